import { randomUUID } from 'node:crypto'
import { gzipSync } from 'node:zlib'
import fc from 'fast-check'
import { afterAll, expect, test } from 'vitest'
import { bodyOf, postDocument, setupOrg, uniqueEmail } from './helpers/api.ts'
import {
  BAD_VALUES,
  badValue,
  encodeComponent,
  exampleFor,
  jsonText,
  mutationsOf,
  objectPathsIn,
  pathsIn,
  plainText,
  randomValueFor,
  REMOVE,
  withValueAt,
  type JsonSchema,
} from './helpers/fuzz-values.ts'
import { operationsOf, SIGNER_OPERATIONS, type OpenApiDocument, type Operation } from './helpers/fuzz-operations.ts'
import { makePdf } from './helpers/pdf.ts'
import { closedPortUrl, postSeal, verifyIdentity } from './helpers/seals.ts'
import { tokenFromMail } from './helpers/signing.ts'
import { startTestServer } from './helpers/test-server.ts'

/*
 * "Never a 500": every operation of the OpenAPI document, and the signer's routes (hidden
 * from it), is sent each bad value in each of its path parameters, query parameters and
 * body fields in turn, the rest of the request valid; then random requests mixing valid and
 * bad values. Any 5xx, dropped connection or JSON error body that is not {error} fails.
 * FUZZ_SEED and FUZZ_RUNS (random requests per operation) explore further than CI does.
 */
const SEED = Number(process.env.FUZZ_SEED ?? 1)
const RUNS = Number(process.env.FUZZ_RUNS ?? 12)

/** A path parameter standing for a signing link: one used by earlier requests, or one nobody has used. */
class Token {
  constructor(readonly kind: 'shared' | 'fresh') {}
}

type PdfBody = 'valid' | 'truncated' | 'header only' | 'empty' | Uint8Array
type Body = { json: unknown } | { raw: string; contentType: string } | { gzip: unknown } | { pdf: PdfBody }

interface FuzzRequest {
  params: Record<string, unknown>
  query: Record<string, unknown>
  body?: Body
  auth: 'key' | 'none' | 'garbage'
}

// Built at module load (top-level await) so that test.each can name one test per operation the server documents.
const server = await startTestServer({ env: { WEBHOOK_ALLOW_PRIVATE: 'true' } })
afterAll(() => server.close())

// The world the requests act on: a Business org (every feature, no metering) with a seal
// identity, a document, a seal, a webhook, and signing links.
const org = await setupOrg(server)
await verifyIdentity(server, org.orgId)
const pdf = await makePdf()
const sealResponse = await postSeal(server, org.apiKey, pdf, { title: 'Fuzz seal' })
const sealed = await bodyOf<{ id: string; last_error: string | null }>(sealResponse)
expect([201, 202], JSON.stringify(sealed)).toContain(sealResponse.status)
const sealId = sealed.id
const registerWebhook = async () => {
  const response = await server.request('/api/v1/webhooks', { method: 'POST', key: org.apiKey, json: { url: await closedPortUrl() } })
  expect(response.status).toBe(201)
  return (await bodyOf<{ id: string }>(response)).id
}
const [webhookId, webhookToDelete] = [await registerWebhook(), await registerWebhook()]

// Role 0 fills a text field and a checkbox; role 1 never signs, so no document completes
// (which would start rendering and sealing its PDF in the background).
const signingTemplate = await server.createTemplate(org.orgId, {
  fields: [
    { role: 0, type: 'text', page: 1, x: 72, y: 100, width: 200, height: 20, label: 'Job title' },
    { role: 0, type: 'checkbox', page: 1, x: 72, y: 140, width: 14, height: 14, required: false },
    { role: 1, type: 'signature', page: 1, x: 72, y: 200, width: 180, height: 30 },
  ],
})
async function sendSigningLink(): Promise<{ documentId: string; token: string }> {
  const email = uniqueEmail('fuzz')
  const response = await postDocument(server, org.apiKey, {
    template_id: signingTemplate.id,
    signers: [
      { role: 0, email },
      { role: 1, email: uniqueEmail('fuzz-other') },
    ],
  })
  expect(response.status).toBe(201)
  const [invitation] = await server.mail.waitFor(email)
  return { documentId: (await bodyOf<{ id: string }>(response)).id, token: tokenFromMail(invitation?.text) }
}
const links = await Promise.all(Array.from({ length: 24 }, sendSigningLink))
const nextLink = () => {
  const link = links.shift()
  if (!link) throw new Error('no signing link left')
  return link
}
const shared = nextLink()
const toVoid = nextLink()
/** Finishing or declining closes a link: each success moves on to the next unused one (the last is reused once all are). */
const freshTokens = links.map((link) => link.token)
const ids = [org.templateId, signingTemplate.id, shared.documentId, sealId, webhookId]

/** The real resource a path parameter names when it is not the one under test. */
function knownValue(operation: Operation, name: string): unknown {
  const { method, path } = operation
  if (name === 'token') return new Token(method === 'post' && /\/(finish|decline)$/.test(path) ? 'fresh' : 'shared')
  if (name === 'deliveryId') return randomUUID()
  if (path.startsWith('/api/v1/webhooks')) return method === 'delete' ? webhookToDelete : webhookId
  if (path.startsWith('/api/v1/seals') || path.startsWith('/verify')) return sealId
  if (path.startsWith('/api/v1/documents')) return path.endsWith('/void') ? toVoid.documentId : shared.documentId
  return randomUUID()
}

/** Valid requests to start from, where a schema alone cannot say what is valid (ids, field numbers, "one of signer and signers"). */
const SEEDS: Record<string, { query?: Record<string, unknown>; body?: unknown }> = {
  'POST /api/v1/documents': {
    body: {
      template_id: org.templateId,
      signer: { email: 'ann@example.com', name: 'Ann Example', auth_required: false },
      expires_at: '2099-01-31T17:00:00Z',
      invite_subject: 'Please sign',
      invite_message: 'Hello,\nplease sign this.',
    },
  },
  'POST /api/v1/documents/bulk-send': { body: { template_id: org.templateId, recipients: [{ email: 'bo@example.com', name: 'Bo Example' }] } },
  'GET /api/v1/documents': { query: { status: 'sent', include_self_sealed: true, limit: 20, offset: 0 } },
  'GET /api/v1/templates': { query: { limit: 20, offset: 0 } },
  'GET /api/v1/webhooks/{id}/deliveries': { query: { limit: 20, offset: 0 } },
  'GET /api/v1/usage': { query: { period: '2026-01' } },
  'POST /api/v1/webhooks': { body: { url: 'http://127.0.0.1:9/hook' } },
  'POST /api/v1/seals': { query: { title: 'Board minutes', filename: 'minutes.pdf', certificate_mode: 'both' } },
  'POST /sign/{token}/finish': { body: { values: { '0': 'Head of Legal', '1': true } } },
  'POST /sign/{token}/decline': { body: { reason: 'The name is misspelt.' } },
  'POST /sign/{token}/code/verify': { body: { code: '123456' } },
}

const openApi = await bodyOf<OpenApiDocument>(await server.request('/api/v1/openapi.json'))
const OPERATIONS = [...operationsOf(openApi), ...SIGNER_OPERATIONS]
const nameOf = (operation: Operation) => `${operation.method.toUpperCase()} ${operation.path}`

/** The request every bad value is swapped into: the operation's seed, or its schema's example, with real ids. */
function baseRequest(operation: Operation): FuzzRequest {
  const seed = SEEDS[nameOf(operation)]
  const idFor = () => org.templateId
  const body = operation.body
  return {
    params: Object.fromEntries(operation.pathParams.map((name) => [name, knownValue(operation, name)])),
    query: seed?.query ?? {},
    ...(body ? { body: body.contentType === 'application/pdf' ? { pdf: 'valid' } : { json: seed?.body ?? exampleFor(body.schema, idFor) } } : {}),
    auth: 'key',
  }
}

/** In a query string every value is text: numbers matter only where a number is expected, elsewhere they are just more text. */
const queryBadValues = (schema: JsonSchema | undefined): readonly unknown[] =>
  schema?.type === 'integer' || schema?.type === 'number' ? BAD_VALUES : BAD_VALUES.filter((value) => typeof value === 'string' || Array.isArray(value))

/** The base with each bad value in each parameter and body field in turn, and bodies that are not what the route takes. */
function boundaryRequests(operation: Operation): FuzzRequest[] {
  const base = baseRequest(operation)
  const requests: FuzzRequest[] = []
  for (const name of operation.pathParams) {
    for (const bad of [...BAD_VALUES, 'x'.repeat(65), 'x'.repeat(101), '..']) requests.push({ ...base, params: { ...base.params, [name]: bad } })
  }
  // Routes without a query schema ignore the query string; the others refuse unknown parameters.
  const queryNames = Object.keys(operation.query)
  for (const name of queryNames.length > 0 ? [...queryNames, 'unknown'] : []) {
    for (const bad of queryBadValues(operation.query[name])) requests.push({ ...base, query: { ...base.query, [name]: bad } })
  }
  const body = base.body
  if (body && 'json' in body) {
    for (const path of pathsIn(body.json)) {
      for (const bad of [...BAD_VALUES, REMOVE]) requests.push({ ...base, body: { json: withValueAt(body.json, path, bad) } })
    }
    for (const path of objectPathsIn(body.json)) requests.push({ ...base, body: { json: withValueAt(body.json, [...path, 'unknown_field'], 1) } })
    for (const raw of ['', '{', 'null', '[]', '"x"', '{"a":1e309}', '\u0000']) requests.push({ ...base, body: { raw, contentType: 'application/json' } })
    requests.push({ ...base, body: { raw: jsonText(body.json), contentType: 'text/plain' } }, { ...base, body: { gzip: body.json } })
  } else if (body && 'pdf' in body) {
    for (const pdfBody of ['truncated', 'header only', 'empty'] as const) requests.push({ ...base, body: { pdf: pdfBody } })
    requests.push({ ...base, body: { raw: '{}', contentType: 'application/json' } })
  } else if (operation.method !== 'get') {
    requests.push({ ...base, body: { json: { unknown_field: 1 } } }, { ...base, body: { raw: 'x', contentType: 'text/plain' } })
  }
  // Last: requests that succeed close a signing link for good.
  return [...requests, base, { ...base, auth: 'none' }, { ...base, auth: 'garbage' }]
}

/** Random requests: mostly the base with a few values changed, sometimes built from the schemas alone. */
function randomRequests(operation: Operation): fc.Arbitrary<FuzzRequest> {
  const base = baseRequest(operation)
  const params = fc.record(
    Object.fromEntries(
      Object.entries(base.params).map(([name, value]) => [name, fc.oneof({ arbitrary: fc.constant(value), weight: 4 }, { arbitrary: badValue, weight: 1 })]),
    ),
  )
  const someParameters = fc
    .tuple(
      fc.record(Object.fromEntries(Object.entries(operation.query).map(([name, schema]) => [name, randomValueFor(schema, ids)])), { requiredKeys: [] }),
      fc.option(badValue, { freq: 8, nil: undefined }),
    )
    .map(([named, unknown]): Record<string, unknown> => (unknown === undefined ? named : { ...named, unknown }))
  const query =
    Object.keys(base.query).length > 0
      ? fc.oneof(
          mutationsOf(base.query).map((mutated) => mutated as Record<string, unknown>),
          someParameters,
        )
      : someParameters
  let body: fc.Arbitrary<Body | undefined> = fc.option(
    fc.jsonValue({ maxDepth: 1 }).map((json) => ({ json })),
    { freq: 4, nil: undefined },
  )
  if (base.body && 'json' in base.body && operation.body) {
    body = fc.oneof(
      { arbitrary: mutationsOf(base.body.json).map((json) => ({ json })), weight: 3 },
      { arbitrary: randomValueFor(operation.body.schema, ids).map((json) => ({ json })), weight: 1 },
    )
  } else if (base.body) {
    body = fc
      .oneof(fc.constantFrom<PdfBody>('valid', 'truncated', 'header only', 'empty'), fc.uint8Array({ maxLength: 64 }))
      .map((pdfBody) => ({ pdf: pdfBody }))
  }
  const auth = fc.oneof({ arbitrary: fc.constant('key' as const), weight: 8 }, fc.constantFrom('none' as const, 'garbage' as const))
  return fc.record({ params, query, body, auth }, { requiredKeys: ['params', 'query', 'auth'] })
}

const PDF_BODIES = { valid: pdf, truncated: pdf.subarray(0, pdf.length >> 1), 'header only': Buffer.from('%PDF-1.7\n%%EOF\n'), empty: new Uint8Array() }

function encodeBody(body: Body | undefined): { body?: BodyInit; headers: Record<string, string> } {
  if (!body) return { headers: {} }
  if ('json' in body) return { body: jsonText(body.json), headers: { 'content-type': 'application/json' } }
  if ('raw' in body) return { body: body.raw, headers: { 'content-type': body.contentType } }
  if ('gzip' in body) return { body: gzipSync(jsonText(body.gzip)), headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' } }
  const bytes = typeof body.pdf === 'string' ? PDF_BODIES[body.pdf] : body.pdf
  return { body: new Uint8Array(bytes), headers: { 'content-type': 'application/pdf' } }
}

function tokenFor(token: Token): string {
  return token.kind === 'shared' ? shared.token : (freshTokens[0] ?? shared.token)
}

/** Sends the request and fails on a 5xx, a dropped connection, or a JSON error that is not {error}. */
async function send(operation: Operation, request: FuzzRequest): Promise<void> {
  const fresh = Object.values(request.params).some((value) => value instanceof Token && value.kind === 'fresh')
  const path = operation.path.replace(/\{(\w+)\}/g, (_match, name: string) => {
    const value = request.params[name]
    return encodeComponent(value instanceof Token ? tokenFor(value) : plainText(value))
  })
  const search = Object.entries(request.query)
    .flatMap(([name, value]) => (Array.isArray(value) ? value : [value]).map((item) => `${encodeComponent(name)}=${encodeComponent(plainText(item))}`))
    .join('&')
  const { body, headers } = encodeBody(operation.method === 'get' ? undefined : request.body)
  if (request.auth !== 'none') headers.authorization = request.auth === 'key' ? `Bearer ${org.apiKey}` : 'Bearer sgn_live_0000'
  let response: Response
  let text: string
  try {
    response = await fetch(`${server.url}${path}${search ? `?${search}` : ''}`, { method: operation.method.toUpperCase(), headers, body })
    // A live event stream (GET /api/v1/events) never ends: its status and headers are the answer.
    const endless = response.headers.get('content-type')?.startsWith('text/event-stream')
    text = endless ? '' : await response.text()
    if (endless) await response.body?.cancel()
  } catch (error) {
    throw new Error(`the connection was dropped: ${String(error)}`)
  }
  const { status } = response
  expect(status, `answered ${status}: ${text.slice(0, 500)}`).toBeLessThan(500)
  if (status >= 400 && response.headers.get('content-type')?.startsWith('application/json')) {
    expect(JSON.parse(text) as unknown).toMatchObject({ error: expect.any(String) as unknown })
  }
  if (fresh && status < 300) freshTokens.splice(0, Math.min(1, freshTokens.length - 1))
}

test('every seed names an operation', () => {
  expect(OPERATIONS.map(nameOf)).toEqual(expect.arrayContaining(Object.keys(SEEDS)))
})

test.each(OPERATIONS.map((operation) => [nameOf(operation), operation] as const))('%s never answers 5xx', async (_name, operation) => {
  const examples = boundaryRequests(operation).map((request): [FuzzRequest] => [request])
  // fast-check counts the examples as runs: RUNS random requests follow them.
  await fc.assert(
    fc.asyncProperty(randomRequests(operation), (request) => send(operation, request)),
    { seed: SEED, numRuns: examples.length + RUNS, examples },
  )
})
