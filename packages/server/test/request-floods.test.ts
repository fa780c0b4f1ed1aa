import { randomBytes } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { MAX_JSON_DEPTH, MAX_JSON_VALUES } from '../src/http/json-scan.ts'
import { maxBase64Length } from '../src/mcp/tools/seal.ts'
import { bodyOf, expectError, setupOrg, type Json, type TestOrg } from './helpers/api.ts'
import { movableClock } from './helpers/clock.ts'
import { attackFromOutside } from './helpers/health-watch.ts'
import { pngDataUrl, sendForSigning, valuesFor } from './helpers/signing.ts'
import { startTestServer, type TestServer } from './helpers/test-server.ts'

/**
 * Issue 18, findings 1 and 2: no request body may hold the event loop. Each attack runs while a
 * separate process polls /healthz, whose slowest answer must stay under a second (the attacks
 * held it for 9–37 s). Every JSON body is scanned before it is parsed (nesting depth, number of
 * values); the public account routes and the signer's links take small bodies, a signing link
 * is resolved before its body is read, and /api/mcp takes a large body only as one seal_document call.
 */

const MB = 1024 * 1024
const HEALTHY_MS = 1000
/** The attacks send tens of megabytes at a server on a loaded machine. */
const ATTACK_TIMEOUT_MS = 180_000

let server: TestServer
let org: TestOrg

beforeAll(async () => {
  server = await startTestServer()
  org = await setupOrg(server)
})
afterAll(async () => {
  await server?.close()
})

interface Answer {
  status: number
  body: Json
}

const JSON_TYPE = { 'content-type': 'application/json' }

/** POSTs a raw JSON text; the answer's status and JSON body. */
async function postRaw(target: TestServer, path: string, text: string, headers: Record<string, string> = {}): Promise<Answer> {
  const response = await fetch(`${target.url}${path}`, { method: 'POST', headers: { ...JSON_TYPE, ...headers }, body: text })
  return { status: response.status, body: (await response.json()) as Json }
}

interface Attack {
  path: string
  headers?: Record<string, string>
  body: Buffer
}

/** The requests at once from another process, while a third polls /healthz: their answers and the slowest /healthz answer. */
async function flood(requests: Attack[]) {
  const { result, slowestMs } = await attackFromOutside(
    server.url,
    requests.map(({ path, headers, body }) => ({ url: `${server.url}${path}`, headers: { ...JSON_TYPE, ...headers }, body })),
  )
  return { answers: result, slowestMs }
}

const times = <T>(count: number, make: (i: number) => T): T[] => Array.from({ length: count }, (_, i) => make(i))
const nested = (bytes: number) => Buffer.alloc(bytes, '[')
const balanced = (bytes: number) => Buffer.concat([Buffer.alloc(bytes / 2, '['), Buffer.alloc(bytes / 2, ']')])
const unknownToken = () => randomBytes(32).toString('base64url')

describe('finding 1: one unauthenticated request froze every tenant', () => {
  test(
    '8 MB of nested [ posted to /sign/<unknown link>/finish: 404 before the body is read; /healthz stays under 1 s',
    async () => {
      const body = nested(8 * MB)
      const { answers, slowestMs } = await flood(times(3, () => ({ path: `/sign/${unknownToken()}/finish`, body })))
      for (const answer of answers) {
        expect(answer).toEqual({
          status: 404,
          body: { error: 'This signing link is not valid. Check that you copied the whole link from your e-mail.', code: 'not_found' },
        })
      }
      expect(slowestMs).toBeLessThan(HEALTHY_MS)
    },
    ATTACK_TIMEOUT_MS,
  )

  test(
    'sign-up, log-in and password bodies over 16 KiB are refused (413) before they are parsed; a flood of 1 MiB ones leaves /healthz under 1 s',
    async () => {
      const refusal = 'The request body is larger than 16384 bytes (16 KiB: sign-up, sign-in and password requests carry only a few short fields).'
      const paths = ['/api/v1/auth/login', '/api/v1/auth/signup', '/api/v1/auth/forgot-password', '/api/v1/auth/reset-password', '/api/v1/auth/verify-email']
      const body = balanced(MB)
      const { answers, slowestMs } = await flood(times(10, (i) => ({ path: paths[i % paths.length] as string, body })))
      for (const answer of answers) expect(answer).toEqual({ status: 413, body: { error: refusal, code: 'payload_too_large' } })
      expect(slowestMs).toBeLessThan(HEALTHY_MS)

      // A real log-in body is well within the limit (and answered as before).
      const login = await postRaw(server, '/api/v1/auth/login', JSON.stringify({ email: 'nobody@example.com', password: 'x'.repeat(512) }))
      expect(login.status).toBe(401)
    },
    ATTACK_TIMEOUT_MS,
  )

  test(
    `every JSON route refuses a body nested deeper than ${MAX_JSON_DEPTH} levels (400) before parsing it; 1 MiB of [ costs nothing`,
    async () => {
      const depthError = `The request body is nested deeper than ${MAX_JSON_DEPTH} levels.`
      const auth = { authorization: `Bearer ${org.apiKey}` }
      const post = (text: string) => postRaw(server, '/api/v1/documents', text, auth)
      const body = balanced(MB)
      const { answers, slowestMs } = await flood(times(10, () => ({ path: '/api/v1/documents', headers: auth, body })))
      for (const answer of answers) expect(answer).toEqual({ status: 400, body: { error: depthError, code: 'invalid_request' } })
      expect(slowestMs).toBeLessThan(HEALTHY_MS)

      // The bound is exact, and brackets inside strings do not count.
      const deepest = `{"x":${'['.repeat(MAX_JSON_DEPTH - 1)}${']'.repeat(MAX_JSON_DEPTH - 1)}}`
      await expectError(
        await server.request('/api/v1/documents', { method: 'POST', key: org.apiKey, body: deepest, headers: { 'content-type': 'application/json' } }),
        400,
        /^x is not an allowed field|template_id is required/,
      )
      const tooDeep = `{"x":${'['.repeat(MAX_JSON_DEPTH)}${']'.repeat(MAX_JSON_DEPTH)}}`
      expect(await post(tooDeep)).toEqual({ status: 400, body: { error: depthError, code: 'invalid_request' } })
      const bracketsInText = JSON.stringify({
        template_id: org.templateId,
        signer: { email: 'ann@example.com' },
        invite_message: `[{"\\\\"${'['.repeat(1000)}`,
      })
      expect((await post(bracketsInText)).status).toBe(201)
    },
    ATTACK_TIMEOUT_MS,
  )

  test(`a body of more than ${MAX_JSON_VALUES} values is refused (413) before it is parsed`, async () => {
    const values = `[${'0,'.repeat(MAX_JSON_VALUES)}0]`
    expect(values.length).toBeLessThan(MB)
    expect(await postRaw(server, '/api/v1/documents', values, { authorization: `Bearer ${org.apiKey}` })).toEqual({
      status: 413,
      body: { error: `The request body holds more than ${MAX_JSON_VALUES} values.`, code: 'payload_too_large' },
    })
  })

  test("a signer's finish takes what their own fields can need, and their other requests 16 KiB", async () => {
    // richFields: a signature, a text, a date and a checkbox.
    const { signers } = await sendForSigning(server, org)
    const signer = signers[0]!
    const limit = 1024 + 4 * 64 + 'data:image/png;base64,'.length + Math.ceil((256 * 1024) / 3) * 4 + 500 * 6
    const tooMuch = JSON.stringify({ values: { ...valuesFor(0), '1': 'x'.repeat(limit) } })
    expect(await postRaw(server, `/sign/${signer.token}/finish`, tooMuch)).toEqual({
      status: 413,
      body: {
        error: `The request body is larger than ${limit} bytes, the most your fields can need (a signature image is at most 256 KiB).`,
        code: 'payload_too_large',
      },
    })
    expect(await postRaw(server, `/sign/${signer.token}/decline`, JSON.stringify({ reason: 'x'.repeat(16 * 1024) }))).toEqual({
      status: 413,
      body: {
        error: "The request body is larger than 16384 bytes (16 KiB: a signer's requests other than finishing carry a few short fields).",
        code: 'payload_too_large',
      },
    })
    // A real signature (and the other fields) still signs.
    const finished = await signer.finish({ ...valuesFor(0), '0': pngDataUrl() })
    expect(finished.status).toBe(200)
    expect(await bodyOf(finished)).toMatchObject({ status: 'signed' })
  })
})

/** The headers of a Streamable HTTP client. */
const mcpHeaders = (apiKey: string) => ({
  authorization: `Bearer ${apiKey}`,
  accept: 'application/json, text/event-stream',
  'mcp-protocol-version': '2025-06-18',
})
const postMcp = (target: TestServer, apiKey: string, text: string) => postRaw(target, '/api/mcp', text, mcpHeaders(apiKey))
const rpc = (id: number, method: string, params: Json = {}) => ({ jsonrpc: '2.0', id, method, params })
const rpcText = (id: number, method: string, params: Json = {}) => JSON.stringify(rpc(id, method, params))
/** A tools/list whose params end in `tail` (JSON text), unclosed. */
const listWithTail = (tail: string | Buffer) =>
  Buffer.concat([Buffer.from('{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":'), Buffer.from(tail)])

describe('finding 2: any API key froze the server through /api/mcp', () => {
  test(
    'a 34 MB nested tools/list is refused at once (400) and /healthz stays under 1 s',
    async () => {
      const body = listWithTail(nested(34 * MB))
      const { answers, slowestMs } = await flood(times(2, () => ({ path: '/api/mcp', headers: mcpHeaders(org.apiKey), body })))
      for (const answer of answers)
        expect(answer).toEqual({ status: 400, body: { error: `The request body is nested deeper than ${MAX_JSON_DEPTH} levels.`, code: 'invalid_request' } })
      expect(slowestMs).toBeLessThan(HEALTHY_MS)
    },
    ATTACK_TIMEOUT_MS,
  )

  test(
    'only a single seal_document call may be larger than BODY_LIMIT: any other large body is 413, cheaply, whatever its shape',
    async () => {
      const sealLimit = maxBase64Length(server.config.pdfLimits.maxBytes) + 64 * 1024
      const refusal = `The request body is larger than ${server.config.bodyLimit} bytes (BODY_LIMIT): only a seal_document call, not in a batch, may be larger (up to ${sealLimit} bytes, from PDF_MAX_MB).`
      const bigString = `"${'a'.repeat(30 * MB)}"}}`
      const shapes = [
        listWithTail(bigString), // one big string, but no seal call
        listWithTail(`{"a":"b"${' '.repeat(30 * MB)}}}}`), // whitespace
        listWithTail(`[${'"abcdefgh",'.repeat(3 * MB)}"ab"]}}`), // many short strings
        Buffer.from(`[${rpcText(1, 'tools/call', { name: 'seal_document', arguments: { file_base64: 'QUJD'.repeat(8 * MB), filename: 'a.pdf' } })}]`), // a seal call in a batch
      ]
      const { answers, slowestMs } = await flood(shapes.map((body) => ({ path: '/api/mcp', headers: mcpHeaders(org.apiKey), body })))
      for (const answer of answers) expect(answer).toEqual({ status: 413, body: { error: refusal, code: 'payload_too_large' } })
      expect(slowestMs).toBeLessThan(HEALTHY_MS)

      // One seal_document call of 10 MB is read, parsed and handed to the tool (which wants the org's identity check first).
      const seal = await postMcp(
        server,
        org.apiKey,
        rpcText(2, 'tools/call', { name: 'seal_document', arguments: { file_base64: randomBytes(7.5 * MB).toString('base64'), filename: 'scan.pdf' } }),
      )
      expect(seal.status).toBe(200)
      expect(seal.body).toMatchObject({ id: 2, result: { isError: true, content: [{ type: 'text', text: expect.stringMatching(/identity/i) as unknown }] } })
    },
    ATTACK_TIMEOUT_MS,
  )

  describe('batches and tools/list are counted', () => {
    let limited: TestServer
    let limitedOrg: TestOrg
    beforeAll(async () => {
      // Windows are whole UTC hours: start just after one, so the test never straddles two.
      const { clock, setNow } = movableClock()
      setNow('2031-03-01T10:00:05Z')
      limited = await startTestServer({ clock, env: { RATE_LIMITS: 'agent-protocol=4,agent-tools=2' } })
      limitedOrg = await setupOrg(limited)
    })
    afterAll(async () => {
      await limited?.close()
    })

    test('a batch holds at most 10 messages; every message of a batch counts; over the agent-protocol limit tools/list is 429 with a JSON-RPC error', async () => {
      // The batch of 100 tools/list (96 KB in, 41 MB out) is refused whole.
      const hundred = JSON.stringify(Array.from({ length: 100 }, (_, i) => rpc(i, 'tools/list')))
      expect(await postMcp(limited, limitedOrg.apiKey, hundred)).toEqual({
        status: 400,
        body: { jsonrpc: '2.0', id: null, error: { code: -32600, message: 'A batch may hold at most 10 messages; this one holds 100.' } },
      })

      const three = await postMcp(limited, limitedOrg.apiKey, JSON.stringify([rpc(1, 'tools/list'), rpc(2, 'ping'), rpc(3, 'tools/list')]))
      expect(three.status).toBe(200)
      expect((three.body as unknown as { id: number }[]).map((answer) => answer.id)).toEqual([1, 2, 3])

      const fourth = await fetch(`${limited.url}/api/mcp`, {
        method: 'POST',
        headers: { authorization: `Bearer ${limitedOrg.apiKey}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: rpcText(4, 'tools/list'),
      })
      expect(fourth.status).toBe(200)
      expect(fourth.headers.get('ratelimit')).toMatch(/^"agent-protocol";r=0;t=\d+$/)
      await fourth.text()

      const refused = await postMcp(limited, limitedOrg.apiKey, rpcText(5, 'tools/list'))
      expect(refused).toEqual({
        status: 429,
        body: {
          jsonrpc: '2.0',
          id: 5,
          error: { code: -32000, message: expect.stringMatching(/^Rate limit exceeded\. Try again in \d+ minutes?\.$/) as unknown },
        },
      })
      // Tool calls have their own limit.
      const call = await postMcp(limited, limitedOrg.apiKey, rpcText(6, 'tools/call', { name: 'get_usage', arguments: {} }))
      expect(call).toMatchObject({ status: 200, body: { id: 6, result: { structuredContent: { org_id: limitedOrg.orgId } } } })
    })

    test('a body larger than BODY_LIMIT is counted as the seal_document call it must be before it is read: past the limit, 429 at once', async () => {
      const sealing = await setupOrg(limited)
      const seal = (id: number) =>
        rpcText(id, 'tools/call', { name: 'seal_document', arguments: { file_base64: randomBytes(1.5 * MB).toString('base64'), filename: 'scan.pdf' } })
      const first = await postMcp(limited, sealing.apiKey, seal(1))
      expect(first.status).toBe(200)
      expect(first.body).toMatchObject({ id: 1, result: { isError: true } })
      const second = await postMcp(limited, sealing.apiKey, rpcText(2, 'tools/call', { name: 'get_usage', arguments: {} }))
      expect(second).toMatchObject({ status: 200, body: { id: 2, result: { structuredContent: { org_id: sealing.orgId } } } })
      // The third call of the hour: refused from its Content-Length alone (id null: the body was never read).
      expect(await postMcp(limited, sealing.apiKey, seal(3))).toEqual({
        status: 429,
        body: { jsonrpc: '2.0', id: null, error: { code: -32000, message: expect.stringMatching(/^Rate limit exceeded\./) as unknown } },
      })
    })
  })

  test('a body larger than BODY_LIMIT that does not declare its size (chunked) is refused (413)', async () => {
    const text = rpcText(1, 'tools/call', { name: 'seal_document', arguments: { file_base64: randomBytes(1.5 * MB).toString('base64'), filename: 'scan.pdf' } })
    const chunked = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode(text))
        controller.close()
      },
    })
    const response = await fetch(`${server.url}/api/mcp`, {
      method: 'POST',
      headers: { ...JSON_TYPE, ...mcpHeaders(org.apiKey) },
      body: chunked,
      duplex: 'half',
    } as RequestInit)
    await expectError(response, 413, 'A request body larger than 1048576 bytes (BODY_LIMIT) must declare its size (Content-Length).')
  })
})
