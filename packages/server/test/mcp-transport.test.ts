import { Server } from '@modelcontextprotocol/sdk/server/index.js'
import { MAX_BATCH_SIZE } from '@modelcontextprotocol/sdk/server/requestBody.js'
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js'
import { CallToolRequestSchema, ListToolsRequestSchema, RequestSchema, type CallToolRequest } from '@modelcontextprotocol/sdk/types.js'
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv'
import { Type } from 'typebox'
import { beforeAll, describe, expect, test } from 'vitest'
import type { Actor } from '../src/actors/actor.ts'
import { compileStrict } from '../src/lib/validation.ts'
import type { JsonRpcAnswer, JsonRpcHeaders, JsonTransport } from '../src/mcp/json-transport.ts'
import { INSTRUCTIONS, startMcpServer } from '../src/mcp/mcp-server.ts'
import { defineTool, type AgentTool, type ToolContext } from '../src/mcp/tool.ts'
import { callTool, toolsFor, type Toolbox } from '../src/mcp/toolbox.ts'
import type { Services } from '../src/services.ts'

/*
 * mcp/json-transport.ts with the app's shared SDK Server (mcp/mcp-server.ts), without HTTP or a
 * database: every answer compared with the one the SDK's own transport gave before it (a new
 * Server and WebStandardStreamableHTTPServerTransport per request, stateless, JSON responses,
 * as the endpoint used to work), then what only a shared Server can get wrong: two clients with
 * the same ids at once, and cancellations.
 */

type Json = Record<string, unknown>

/** Releases for the `wait` tool's calls, by their key; the calls it received, in order. */
const gates = new Map<string, () => void>()
const waitCalls: string[] = []
const opened = (key: string) =>
  new Promise<void>((resolve) => {
    gates.set(key, resolve)
  })
const open = (key: string) => {
  const release = gates.get(key)
  if (!release) throw new Error(`no call waits on ${key}`)
  release()
}
/** Until the `wait` tool has been called with the key (the request is inside the Server). */
async function calledWith(key: string): Promise<void> {
  for (let i = 0; i < 100 && !gates.has(key); i++) await new Promise((resolve) => setImmediate(resolve))
  expect(gates.has(key), key).toBe(true)
}

const OrgOutput = Type.Object({ org: Type.String(), key: Type.Optional(Type.String()) })
const whoami = defineTool({
  name: 'whoami',
  title: 'Who am I',
  description: "The caller's org.",
  input: Type.Object({}, { additionalProperties: false }),
  output: OrgOutput,
  scope: 'read',
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  run: async ({ actor }) => ({ structured: { org: actor.orgId } }),
})
const wait = defineTool({
  name: 'wait',
  title: 'Wait',
  description: 'Answers with the caller’s org once the test opens its gate.',
  input: Type.Object({ key: Type.String() }, { additionalProperties: false }),
  output: OrgOutput,
  scope: 'write',
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  run: async ({ actor }, { key }) => {
    waitCalls.push(key)
    await opened(key)
    return { structured: { org: actor.orgId, key } }
  },
})
/** A result with everything a tool result may carry: escapes and non-ASCII in its JSON, a file and an image after it. */
const files = defineTool({
  name: 'files',
  title: 'Files',
  description: 'A file and an image.',
  input: Type.Object({}, { additionalProperties: false }),
  output: Type.Object({ name: Type.String(), note: Type.Optional(Type.String()) }),
  scope: 'read',
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  run: async () => ({
    structured: { name: 'Contrat « signé » — \u2028 "quoted" \\ \n 署名.pdf', note: undefined },
    extra: [
      { type: 'resource', resource: { uri: 'http://signet.invalid/file.pdf', mimeType: 'application/pdf', blob: Buffer.from('%PDF-1.7').toString('base64') } },
      { type: 'image', data: Buffer.from('png').toString('base64'), mimeType: 'image/png' },
    ],
  }),
})
/** A defect of ours: callTool logs it through the context's services and answers a tool error. */
const broken = defineTool({
  name: 'broken',
  title: 'Broken',
  description: 'Throws.',
  input: Type.Object({}, { additionalProperties: false }),
  output: OrgOutput,
  scope: 'read',
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  run: async () => {
    throw new Error('a defect')
  },
})
const tools = [whoami, wait, files, broken] as unknown as AgentTool[]
const toolbox: Toolbox = {
  listing: tools.map((tool) => ({
    scope: tool.scope,
    entry: { name: tool.name, description: tool.description, inputSchema: { type: 'object' }, annotations: tool.annotations },
  })),
  byName: new Map(tools.map((tool) => [tool.name, { tool, validate: compileStrict(tool.input) }])),
}

const contextOf = (orgId: string, scopes: Actor['scopes'] = ['read', 'write']): ToolContext => ({
  services: {} as Services,
  actor: { orgId, orgName: orgId, plan: 'business', authMethod: 'api_key', scopes } as Actor,
})
const ORG_A = contextOf('org-a')
const ORG_B = contextOf('org-b')

const HEADERS = { accept: 'application/json, text/event-stream', 'content-type': 'application/json', 'mcp-protocol-version': '2025-06-18' }
const rpc = (id: unknown, method: string, params?: unknown): Json => ({ jsonrpc: '2.0', id, method, ...(params === undefined ? {} : { params }) })
const note = (method: string, params?: unknown): Json => ({ jsonrpc: '2.0', method, ...(params === undefined ? {} : { params }) })
const call = (id: unknown, name: string, args: Json = {}) => rpc(id, 'tools/call', { name, arguments: args })
const INIT = { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'test', version: '1' } }

/** The endpoint as it was: the SDK's transport and a new Server (the handlers of mcp-server.ts) for one request. */
const referenceValidator = new AjvJsonSchemaValidator()
async function sdkAnswer(
  headers: Record<string, string | undefined>,
  body: unknown,
  context: ToolContext,
): Promise<JsonRpcAnswer & { contentType: string | null }> {
  const server = new Server(
    { name: 'signet', title: 'Signet', version: '1.0.0' },
    { capabilities: { tools: { listChanged: false } }, instructions: INSTRUCTIONS, jsonSchemaValidator: referenceValidator },
  )
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: toolsFor(toolbox, context.actor) }))
  server.setRequestHandler(RequestSchema.extend({ method: CallToolRequestSchema.shape.method }), (request) => {
    const { name, arguments: args } = (request as CallToolRequest).params
    return callTool(toolbox, context, name, args)
  })
  const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true })
  await server.connect(transport)
  const webHeaders = new Headers()
  for (const [name, value] of Object.entries(headers)) if (value !== undefined) webHeaders.set(name, value)
  const response = await transport.handleRequest(new Request('http://signet.invalid/api/mcp', { method: 'POST', headers: webHeaders }), { parsedBody: body })
  const text = await response.text()
  return { status: response.status, body: text === '' ? undefined : text, contentType: response.headers.get('content-type') }
}

let mcp: JsonTransport<ToolContext>
beforeAll(async () => {
  mcp = await startMcpServer(toolbox, '1.0.0')
})

const answer = (body: unknown, context = ORG_A, headers: JsonRpcHeaders = HEADERS) => mcp.answer(headers, body, context)
const jsonOf = (answer: JsonRpcAnswer): unknown => JSON.parse(answer.body ?? 'null')

describe('the same answers as the SDK transport', () => {
  const cases: [string, unknown, Record<string, string | undefined>?][] = [
    ['initialize', rpc(1, 'initialize', INIT)],
    ['initialize, an unsupported MCP-Protocol-Version header (not checked on initialize)', rpc(1, 'initialize', INIT), { 'mcp-protocol-version': '1999' }],
    ['initialize of an unknown version', rpc('i', 'initialize', { ...INIT, protocolVersion: '2000-01-01' })],
    ['initialize with bad params', rpc(1, 'initialize', { protocolVersion: 1 })],
    ['initialize in a batch', [rpc(1, 'initialize', INIT), rpc(2, 'ping')]],
    ['initialize as a notification', note('initialize', INIT), { 'mcp-protocol-version': 'zzz' }],
    ['ping', rpc(1, 'ping')],
    ['ping with a string id and _meta', rpc('s', 'ping', { _meta: { progressToken: 5 } })],
    ['ping with a bad progress token', rpc(1, 'ping', { _meta: { progressToken: 5.5 } })],
    ['tools/list', rpc(7, 'tools/list')],
    ['tools/call', call(3, 'whoami')],
    ['tools/call of an unknown tool', call(3, 'nope')],
    ['tools/call with bad arguments', call(3, 'wait', { key: 5 })],
    ['tools/call with arguments null', rpc(3, 'tools/call', { name: 'whoami', arguments: null })],
    ['tools/call without a name', rpc(3, 'tools/call', { arguments: {} })],
    ['tools/call asking for a task', rpc(3, 'tools/call', { name: 'whoami', arguments: {}, task: { ttl: 5 } })],
    ['tools/call with a string id', call('call-1', 'whoami')],
    ['tools/call with id 0', call(0, 'whoami')],
    ['tools/call with id ""', call('', 'whoami')],
    ['tools/call with id 1.5', call(1.5, 'whoami')],
    ['tools/call with id 2^60', call(2 ** 60, 'whoami')],
    ['tools/call with id null', call(null, 'whoami')],
    ['tools/call without arguments', rpc(3, 'tools/call', { name: 'whoami' })],
    ['tools/call with arguments an array', rpc(3, 'tools/call', { name: 'whoami', arguments: [] })],
    ['tools/call with arguments a string', rpc(3, 'tools/call', { name: 'whoami', arguments: 'x' })],
    ['tools/call with a number for a name', rpc(3, 'tools/call', { name: 5, arguments: {} })],
    ['tools/call with params of its own', rpc(3, 'tools/call', { name: 'whoami', arguments: {}, extra: true })],
    ['tools/call with _meta', rpc(3, 'tools/call', { name: 'whoami', arguments: {}, _meta: { progressToken: 'p' } })],
    ['tools/call with a bad _meta', rpc(3, 'tools/call', { name: 'whoami', arguments: {}, _meta: { progressToken: 1.5 } })],
    ['tools/call without params', rpc(3, 'tools/call')],
    ['tools/call with params null', rpc(3, 'tools/call', null)],
    ['tools/call with jsonrpc 1.0', { ...call(3, 'whoami'), jsonrpc: '1.0' }],
    ['tools/call with an extra key', { ...call(3, 'whoami'), extra: 1 }],
    ['tools/call in a batch of one', [call(3, 'whoami')]],
    ['tools/call of a tool with files', call(3, 'files')],
    ['tools/call whose defect cannot be logged (callTool rejects)', call(3, 'broken')],
    ['tools/call, an unsupported MCP-Protocol-Version', call(3, 'whoami'), { 'mcp-protocol-version': '1999-01-01' }],
    ['tools/call, no MCP-Protocol-Version', call(3, 'whoami'), { 'mcp-protocol-version': undefined }],
    ['tools/call, Accept: application/json', call(3, 'whoami'), { accept: 'application/json' }],
    ['an unknown method', rpc(1, 'foo/bar')],
    ['logging/setLevel (no logging capability)', rpc(1, 'logging/setLevel', { level: 'info' })],
    ['a batch of two', [call('first', 'whoami'), rpc(2, 'ping')]],
    ['a batch with a notification', [note('notifications/initialized'), rpc(9, 'ping')]],
    ['a batch repeating an id', [rpc(1, 'ping'), rpc(1, 'ping')]],
    ['a batch repeating an id, answered in turn', [rpc(1, 'ping'), rpc(1, 'tools/list'), rpc(2, 'ping')]],
    ['ids 1 and "1"', [rpc(1, 'ping'), rpc('1', 'ping')]],
    ['a batch repeating an unknown method', [rpc(1, 'foo'), rpc(2, 'ping'), rpc(1, 'bar')]],
    ['notifications only', note('notifications/initialized')],
    ['a batch of notifications', [note('notifications/initialized'), note('notifications/whatever')]],
    ['a client response', { jsonrpc: '2.0', id: 5, result: {} }],
    ['a client error', { jsonrpc: '2.0', id: 5, error: { code: 1, message: 'x' } }],
    ['a cancellation of nothing', note('notifications/cancelled', { requestId: 1 })],
    ['an empty batch', []],
    ['no body', undefined],
    ['not a message', { foo: 1 }],
    ['null', null],
    ['a number', 42],
    ['a batch with a bad message', [rpc(1, 'ping'), { foo: 1 }]],
    ['a nested batch', [[rpc(1, 'ping')]]],
    ['id 1.5', rpc(1.5, 'ping')],
    ['id null', rpc(null, 'ping')],
    ['id 2^60', rpc(2 ** 60, 'ping')],
    ['id MAX_SAFE_INTEGER', rpc(Number.MAX_SAFE_INTEGER, 'ping')],
    ['id 0', rpc(0, 'ping')],
    ['id ""', rpc('', 'ping')],
    ['jsonrpc 1.0', { jsonrpc: '1.0', id: 1, method: 'ping' }],
    ['params an array', rpc(1, 'ping', [])],
    ['an extra key', { ...rpc(1, 'ping'), extra: 1 }],
    [`a batch of ${MAX_BATCH_SIZE + 1}`, Array.from({ length: MAX_BATCH_SIZE + 1 }, (_, i) => rpc(i, 'ping'))],
    ['no Accept', rpc(1, 'ping'), { accept: undefined }],
    ['Accept: application/json', rpc(1, 'ping'), { accept: 'application/json' }],
    ['Accept: text/event-stream', rpc(1, 'ping'), { accept: 'text/event-stream' }],
    ['Accept: */*', rpc(1, 'ping'), { accept: '*/*' }],
    ['Accept padded', rpc(1, 'ping'), { accept: ' \ttext/event-stream, application/json ' }],
    ['no Content-Type', rpc(1, 'ping'), { 'content-type': undefined }],
    ['Content-Type with a charset', rpc(1, 'ping'), { 'content-type': 'application/json; charset=utf-8' }],
    ['Content-Type in capitals', rpc(1, 'ping'), { 'content-type': 'Application/JSON' }],
    ['Content-Type with a comma', rpc(1, 'ping'), { 'content-type': 'application/json; a=b, c' }],
    ['Content-Type text/plain', rpc(1, 'ping'), { 'content-type': 'text/plain' }],
    ['no MCP-Protocol-Version', rpc(1, 'ping'), { 'mcp-protocol-version': undefined }],
    ['an unsupported MCP-Protocol-Version', rpc(1, 'ping'), { 'mcp-protocol-version': '1999-01-01' }],
    ['an unsupported MCP-Protocol-Version, notifications only', note('notifications/initialized'), { 'mcp-protocol-version': '1999-01-01' }],
    ['an empty MCP-Protocol-Version', rpc(1, 'ping'), { 'mcp-protocol-version': '' }],
    ['a padded MCP-Protocol-Version', rpc(1, 'ping'), { 'mcp-protocol-version': ' 2025-06-18 ' }],
    ['an old MCP-Protocol-Version', rpc(1, 'ping'), { 'mcp-protocol-version': '2024-10-07' }],
  ]

  test.each(cases)('%s', async (_name, body, headerChanges = {}) => {
    const headers = { ...HEADERS, ...headerChanges }
    const expected = await sdkAnswer(headers, structuredClone(body), ORG_A)
    const actual = await mcp.answer(headers, structuredClone(body), ORG_A)
    expect(actual).toEqual({ status: expected.status, body: expected.body })
    // The route sends Content-Type application/json exactly when there is a body.
    expect(expected.contentType).toBe(expected.body === undefined ? null : 'application/json')
  })
})

describe('the same answers as the SDK transport, for other callers', () => {
  const errors: unknown[] = []
  const logged: ToolContext = { ...contextOf('org-logged'), services: { logger: { error: (entry: unknown) => errors.push(entry) } } as unknown as Services }
  const cases: [string, unknown, ToolContext][] = [
    ['a defect of a tool, logged', call(3, 'broken'), logged],
    ['a write tool for a read-only key', call(3, 'wait', { key: 'never' }), contextOf('org-r', ['read'])],
    ['a write tool for a read-only key, in a batch', [call(3, 'wait', { key: 'never' })], contextOf('org-r', ['read'])],
  ]

  test.each(cases)('%s', async (_name, body, context) => {
    const expected = await sdkAnswer(HEADERS, structuredClone(body), context)
    const actual = await mcp.answer(HEADERS, structuredClone(body), context)
    expect(actual).toEqual({ status: expected.status, body: expected.body })
  })

  test('the defect was logged by both', () => {
    expect(errors).toHaveLength(2)
  })
})

describe('a lone tools/call', () => {
  test('is answered without the Server (no request waits in it), as a batch of one is not', async () => {
    const lone = answer(call(1, 'wait', { key: 'lone' }))
    await calledWith('lone')
    expect(mcp.pendingRequests).toBe(0)
    open('lone')
    expect(jsonOf(await lone)).toMatchObject({ id: 1, result: { structuredContent: { org: 'org-a', key: 'lone' } } })
    const batch = answer([call(1, 'wait', { key: 'batch-of-one' })])
    await calledWith('batch-of-one')
    expect(mcp.pendingRequests).toBe(1)
    open('batch-of-one')
    // A batch's one response is answered as an object, as the SDK's transport answered it.
    expect(jsonOf(await batch)).toMatchObject({ id: 1, result: { structuredContent: { org: 'org-a', key: 'batch-of-one' } } })
  })

  test('still running when the transport closes: answered as the SDK transport answered then (404), once', async () => {
    const own = await startMcpServer(toolbox, '1.0.0')
    const running = own.answer(HEADERS, call(1, 'wait', { key: 'closing' }), ORG_A)
    await calledWith('closing')
    await own.close()
    const sessionNotFound = { status: 404, body: JSON.stringify({ jsonrpc: '2.0', error: { code: -32001, message: 'Session not found' }, id: null }) }
    expect(await running).toEqual(sessionNotFound)
    open('closing')
    expect(await own.answer(HEADERS, call(2, 'whoami'), ORG_A)).toEqual(sessionNotFound)
  })
})

describe('one Server for every client', () => {
  test('two clients with the same id at once: each gets its own answer, under its own id', async () => {
    const a = answer(call(1, 'wait', { key: 'same-id-a' }), ORG_A)
    const b = answer(call(1, 'wait', { key: 'same-id-b' }), ORG_B)
    await calledWith('same-id-a')
    await calledWith('same-id-b')
    // The later request finishes first.
    open('same-id-b')
    expect(jsonOf(await b)).toMatchObject({ id: 1, result: { structuredContent: { org: 'org-b', key: 'same-id-b' } } })
    open('same-id-a')
    expect(jsonOf(await a)).toMatchObject({ id: 1, result: { structuredContent: { org: 'org-a', key: 'same-id-a' } } })
    expect(mcp.pendingRequests).toBe(0)
  })

  test('tools/list is the caller’s: a read-only key is not shown the write tool, at the same time as another is', async () => {
    const [full, readOnly] = await Promise.all([answer(rpc(1, 'tools/list'), ORG_A), answer(rpc(1, 'tools/list'), contextOf('org-r', ['read']))])
    expect((jsonOf(full) as { result: { tools: Json[] } }).result.tools.map((t) => t.name)).toEqual(['whoami', 'wait', 'files', 'broken'])
    expect((jsonOf(readOnly) as { result: { tools: Json[] } }).result.tools.map((t) => t.name)).toEqual(['whoami', 'files', 'broken'])
  })

  test('a batch: the answers in the order of the requests, under their ids, while another client’s batch runs', async () => {
    const a = answer([call('x', 'wait', { key: 'batch-a' }), rpc(2, 'ping'), call(3, 'whoami')], ORG_A)
    const b = answer([call(3, 'whoami'), call('x', 'wait', { key: 'batch-b' })], ORG_B)
    await calledWith('batch-a')
    await calledWith('batch-b')
    open('batch-b')
    open('batch-a')
    // Each answer's id and structured result, in the order of the array.
    const summary = (answer: JsonRpcAnswer) =>
      (jsonOf(answer) as { id: unknown; result: { structuredContent?: unknown } }[]).map(({ id, result }) => [id, result.structuredContent])
    expect(summary(await a)).toEqual([
      ['x', { org: 'org-a', key: 'batch-a' }],
      [2, undefined],
      [3, { org: 'org-a' }],
    ])
    expect(summary(await b)).toEqual([
      [3, { org: 'org-b' }],
      ['x', { org: 'org-b', key: 'batch-b' }],
    ])
  })

  test("a client cannot cancel another's request, by its id or by any id the Server might use", async () => {
    // A Server of its own, so that the ids it uses are among those guessed below.
    const own = await startMcpServer(toolbox, '1.0.0')
    const answer = (body: unknown, context: ToolContext) => own.answer(HEADERS, body, context)
    const a = answer(call(7, 'wait', { key: 'not-yours' }), ORG_A)
    await calledWith('not-yours')
    // Every id up to well past the last one handed out, as numbers and as strings.
    const guesses = Array.from({ length: 50 }, (_, i) => note('notifications/cancelled', { requestId: i % 2 ? i : String(i), reason: 'mine now' }))
    expect(await answer([note('notifications/cancelled', { requestId: 7 }), ...guesses], ORG_B)).toEqual({ status: 202, body: undefined })
    const many = Array.from({ length: 2 }, (_, round) =>
      answer(
        Array.from({ length: 100 }, (_, i) => note('notifications/cancelled', { requestId: round * 100 + i })),
        ORG_B,
      ),
    )
    for (const refused of await Promise.all(many)) expect(refused.status).toBe(202)
    open('not-yours')
    expect(jsonOf(await a)).toMatchObject({ id: 7, result: { structuredContent: { org: 'org-a', key: 'not-yours' } } })
  })

  test('a cancellation of a request of the same body: that request is not answered, nor its tool run; the others are', async () => {
    const before = waitCalls.length
    // The SDK's transport never answered such a body; now it is answered without the cancelled request.
    expect(await answer([call(1, 'wait', { key: 'cancelled' }), note('notifications/cancelled', { requestId: 1 })])).toEqual({ status: 202, body: undefined })
    expect(jsonOf(await answer([rpc(1, 'ping'), rpc(2, 'ping'), note('notifications/cancelled', { requestId: 1 })]))).toEqual({
      jsonrpc: '2.0',
      id: 2,
      result: {},
    })
    // Beside a request still being answered (its handler starts while the body waits).
    expect(jsonOf(await answer([call(1, 'wait', { key: 'cancelled-beside' }), rpc(2, 'ping'), note('notifications/cancelled', { requestId: 1 })]))).toEqual({
      jsonrpc: '2.0',
      id: 2,
      result: {},
    })
    // Named before the request, as the SDK's transport allowed.
    expect(await answer([note('notifications/cancelled', { requestId: 'w' }), call('w', 'wait', { key: 'cancelled-first' })])).toEqual({
      status: 202,
      body: undefined,
    })
    // A request answered at once (an unknown method) keeps its answer.
    expect(jsonOf(await answer([rpc(1, 'foo'), note('notifications/cancelled', { requestId: 1 })]))).toMatchObject({ id: 1, error: { code: -32601 } })
    // A cancellation the SDK ignores stays ignored: id 0, or params its schema refuses.
    expect(jsonOf(await answer([rpc(0, 'ping'), note('notifications/cancelled', { requestId: 0 })]))).toEqual({ jsonrpc: '2.0', id: 0, result: {} })
    expect(jsonOf(await answer([call(4, 'whoami'), note('notifications/cancelled', { requestId: 4, reason: 5 })]))).toMatchObject({
      id: 4,
      result: { structuredContent: { org: 'org-a' } },
    })
    await new Promise((resolve) => setImmediate(resolve))
    expect(waitCalls.length).toBe(before)
    expect(mcp.pendingRequests).toBe(0)
  })

  test('nothing is kept once every exchange is answered', async () => {
    const bodies = [
      rpc(1, 'ping'),
      [rpc(1, 'ping'), rpc(1, 'tools/list')],
      [rpc(1, 'foo'), rpc(1, 'ping')],
      call(2, 'whoami'),
      note('notifications/initialized'),
    ]
    await Promise.all(bodies.map((body) => answer(body)))
    // A repeated id's second request is answered after its exchange: it is dropped then.
    await new Promise((resolve) => setImmediate(resolve))
    expect(mcp.pendingRequests).toBe(0)
  })
})
