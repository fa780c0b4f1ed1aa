import type { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { bodyOf, fieldsForRoles, postDocument, setupOrg, uniqueEmail, type Json, type TestOrg } from './helpers/api.ts'
import { callErrorResult, connectAgent } from './helpers/mcp.ts'
import { makePdf } from './helpers/pdf.ts'
import { startTestServer, type TestServer } from './helpers/test-server.ts'

/**
 * Errors a program can act on: every refusal of POST /api/v1/documents carries a `code` and,
 * when one value is at fault, its JSON pointer as `field` — the same through the MCP tool
 * create_and_send_document, as structuredContent, the pointer then into the tool's arguments.
 */

let server: TestServer
let org: TestOrg
let agent: Client
/** Templates of `org`: one needing Parties 1–3, one without fields yet. */
let threeParty: string
let noFields: string

beforeAll(async () => {
  server = await startTestServer()
  org = await setupOrg(server)
  threeParty = (await server.createTemplate(org.orgId, { name: 'Three-party agreement', fields: fieldsForRoles([0, 1, 2]) })).id
  // An upload from the dashboard has no fields until they are placed in the editor.
  const upload = await server.request('/api/v1/templates?name=Blank', {
    method: 'POST',
    key: org.apiKey,
    body: (await makePdf(1)) as BodyInit,
    headers: { 'content-type': 'application/pdf' },
  })
  noFields = (await bodyOf<{ id: string }>(upload)).id
  agent = await connectAgent(server, org.apiKey)
})
afterAll(async () => {
  await agent?.close()
  await server.close()
})

const SOME_UUID = '00000000-0000-4000-8000-000000000000'
const email = () => uniqueEmail()
const party = (role: number, extra: Json = {}) => ({ role, email: uniqueEmail(`party${role + 1}`), ...extra })

interface Case {
  /** The body without template_id (added unless the case names its own, or `raw` is set). */
  body: Json
  raw?: unknown
  template?: () => string
  code: 'validation_failed' | 'invalid_request'
  /** The pointer into the REST body, or undefined when no single value is at fault. */
  field: string | undefined
  /** For the tool: false when the REST body has no equivalent in its flat arguments. */
  tool?: false
}

/** One refusal per rule of CreateDocumentBody (documents.schemas.ts) and createDocument (create-document.ts). */
const CASES: Record<string, Case> = {
  // Required
  'template_id missing': { raw: { signer: { email: 'a@example.com' } }, body: {}, code: 'validation_failed', field: '/template_id' },
  'signer.email missing': { body: { signer: { name: 'Ann' } }, code: 'validation_failed', field: '/signer/email', tool: false },
  'signers[0].role missing': { body: { signers: [{ email: 'a@example.com' }] }, code: 'validation_failed', field: '/signers/0/role' },
  'signers[1].email missing': { body: { signers: [party(0), { role: 1 }] }, code: 'validation_failed', field: '/signers/1/email' },
  // Unknown fields
  'an unknown top-level field': { body: { signer: { email: 'a@example.com' }, colour: 'red' }, code: 'validation_failed', field: '/colour' },
  'an unknown field in signer': {
    body: { signer: { email: 'a@example.com', colour: 'red' } },
    code: 'validation_failed',
    field: '/signer/colour',
    tool: false,
  },
  'an unknown field in signers[0]': { body: { signers: [party(0, { colour: 'red' })] }, code: 'validation_failed', field: '/signers/0/colour' },
  // Types
  'the body is not an object': { raw: [], body: {}, code: 'validation_failed', field: undefined, tool: false },
  'template_id a number': { raw: { template_id: 5, signer: { email: 'a@example.com' } }, body: {}, code: 'validation_failed', field: '/template_id' },
  'signer a string': { body: { signer: 'a@example.com' }, code: 'validation_failed', field: '/signer', tool: false },
  'signers an object': { body: { signers: { role: 0 } }, code: 'validation_failed', field: '/signers' },
  'signers[0].role a string': { body: { signers: [party(0, { role: '0' })] }, code: 'validation_failed', field: '/signers/0/role' },
  'signers[0].role a fraction': { body: { signers: [party(0, { role: 0.5 })] }, code: 'validation_failed', field: '/signers/0/role' },
  'signer.auth_required a string': {
    body: { signer: { email: 'a@example.com', auth_required: 'yes' } },
    code: 'validation_failed',
    field: '/signer/auth_required',
  },
  'signer.name a number': { body: { signer: { email: 'a@example.com', name: 5 } }, code: 'validation_failed', field: '/signer/name' },
  'title a number': { body: { signer: { email: 'a@example.com' }, title: 5 }, code: 'validation_failed', field: '/title' },
  'expires_at a number': { body: { signer: { email: 'a@example.com' }, expires_at: 5 }, code: 'validation_failed', field: '/expires_at' },
  'invite_subject a number': { body: { signer: { email: 'a@example.com' }, invite_subject: 5 }, code: 'validation_failed', field: '/invite_subject' },
  'invite_message an array': { body: { signer: { email: 'a@example.com' }, invite_message: [] }, code: 'validation_failed', field: '/invite_message' },
  // Formats
  'template_id not a UUID': {
    raw: { template_id: 'template-1', signer: { email: 'a@example.com' } },
    body: {},
    code: 'validation_failed',
    field: '/template_id',
  },
  'signer.email not an address': { body: { signer: { email: 'not-an-email' } }, code: 'validation_failed', field: '/signer/email' },
  'signers[1].email not an address': { body: { signers: [party(0), party(1, { email: 'a@b' })] }, code: 'validation_failed', field: '/signers/1/email' },
  'expires_at with an offset': {
    body: { signer: { email: 'a@example.com' }, expires_at: '2030-01-31T17:00:00+02:00' },
    code: 'validation_failed',
    field: '/expires_at',
  },
  'expires_at a date only': { body: { signer: { email: 'a@example.com' }, expires_at: '2030-01-31' }, code: 'validation_failed', field: '/expires_at' },
  // Lengths and counts
  'signer.email over 254 characters': { body: { signer: { email: `${'a'.repeat(250)}@example.com` } }, code: 'validation_failed', field: '/signer/email' },
  'signer.name over 200 characters': { body: { signer: { email: 'a@example.com', name: 'A'.repeat(201) } }, code: 'validation_failed', field: '/signer/name' },
  'title empty': { body: { signer: { email: 'a@example.com' }, title: '' }, code: 'validation_failed', field: '/title' },
  'title over 200 characters': { body: { signer: { email: 'a@example.com' }, title: 'T'.repeat(201) }, code: 'validation_failed', field: '/title' },
  'invite_subject over 200 characters': {
    body: { signer: { email: 'a@example.com' }, invite_subject: 'x'.repeat(201) },
    code: 'validation_failed',
    field: '/invite_subject',
  },
  'invite_message over 2000 characters': {
    body: { signer: { email: 'a@example.com' }, invite_message: 'x'.repeat(2001) },
    code: 'validation_failed',
    field: '/invite_message',
  },
  'signers empty': { body: { signers: [] }, code: 'validation_failed', field: '/signers' },
  'more than 20 signers': { body: { signers: Array.from({ length: 21 }, (_, i) => party(i % 20)) }, code: 'validation_failed', field: '/signers' },
  'a role below 0': { body: { signers: [party(-1)] }, code: 'validation_failed', field: '/signers/0/role' },
  'a role above 19': { body: { signers: [party(20)] }, code: 'validation_failed', field: '/signers/0/role' },
  // Characters
  'a control character in invite_message': {
    body: { signer: { email: 'a@example.com' }, invite_message: 'Hello\u0000' },
    code: 'validation_failed',
    field: '/invite_message',
  },
  'a bidirectional override in signer.name': {
    body: { signer: { email: 'a@example.com', name: 'Ann\u202Egnp.exe' } },
    code: 'validation_failed',
    field: '/signer/name',
  },
  'a bidirectional override in signers[0].name': { body: { signers: [party(0, { name: 'Ann\u202E' })] }, code: 'validation_failed', field: '/signers/0/name' },
  'a control character in title': { body: { signer: { email: 'a@example.com' }, title: 'NDA\u0007' }, code: 'validation_failed', field: '/title' },
  // The domain's rules
  'both signer and signers': { body: { signer: { email: 'a@example.com' }, signers: [party(0)] }, code: 'invalid_request', field: undefined },
  'neither signer nor signers': { body: {}, code: 'invalid_request', field: undefined },
  'an unknown template': { body: { signer: { email: 'a@example.com' } }, template: () => SOME_UUID, code: 'invalid_request', field: '/template_id' },
  'a template without fields': { body: { signer: { email: 'a@example.com' } }, template: () => noFields, code: 'invalid_request', field: '/template_id' },
  'expires_at in the past': { body: { signer: { email: 'a@example.com' }, expires_at: '2001-01-01T00:00:00Z' }, code: 'invalid_request', field: '/expires_at' },
  'one signer for a three-party template': {
    body: { signer: { email: 'a@example.com' } },
    template: () => threeParty,
    code: 'invalid_request',
    field: '/signer',
  },
  'a party without a signer': { body: { signers: [party(0), party(1)] }, template: () => threeParty, code: 'invalid_request', field: '/signers' },
  'a signer for a party the template lacks': {
    body: { signers: [party(0), party(1), party(2), party(3)] },
    template: () => threeParty,
    code: 'invalid_request',
    field: '/signers/3/role',
  },
}

const restBodyOf = (c: Case): unknown => c.raw ?? { template_id: (c.template ?? (() => org.templateId))(), ...c.body }

/** The tool's arguments for a REST body: signer's fields flattened into signer_email, signer_name and auth_required. */
function toolArgumentsOf(body: Json): Json {
  const { signer, ...rest } = body as { signer?: Json } & Json
  if (!signer) return rest
  const { email: signer_email, name: signer_name, auth_required } = signer
  return { ...rest, ...Object.fromEntries(Object.entries({ signer_email, signer_name, auth_required }).filter(([, value]) => value !== undefined)) }
}
const TOOL_ARGUMENT: Record<string, string> = {
  '/signer': '/signer_email',
  '/signer/email': '/signer_email',
  '/signer/name': '/signer_name',
  '/signer/auth_required': '/auth_required',
}
const toolFieldOf = (field: string | undefined) => (field === undefined ? undefined : (TOOL_ARGUMENT[field] ?? field))

describe('POST /api/v1/documents: every refusal has a code, and a field when one value is at fault', () => {
  test.each(Object.entries(CASES))('%s', async (_name, c) => {
    const response = await postDocument(server, org.apiKey, restBodyOf(c))
    const body = await bodyOf(response)
    expect({ status: response.status, code: body.code, field: body.field }).toEqual({ status: 400, code: c.code, field: c.field })
    expect(Object.keys(body).sort()).toEqual(c.field === undefined ? ['code', 'error'] : ['code', 'error', 'field'])
  })

  test('the texts stay as they were', async () => {
    const refused = await postDocument(server, org.apiKey, { template_id: org.templateId, signers: [party(0), party(1, { email: 'a@b' })] })
    expect(await bodyOf(refused)).toEqual({ error: 'signers[1].email must be a valid e-mail address', code: 'validation_failed', field: '/signers/1/email' })
  })

  test('a pointer escapes ~ and / in a property name (RFC 6901)', async () => {
    const refused = await postDocument(server, org.apiKey, { template_id: org.templateId, signer: { email: 'a@example.com' }, 'a/b~c': 1 })
    expect(await bodyOf(refused)).toMatchObject({ code: 'validation_failed', field: '/a~1b~0c' })
  })

  test('no refusal created a document', async () => {
    const list = await bodyOf<{ documents: unknown[] }>(await server.request('/api/v1/documents', { key: org.apiKey }))
    expect(list.documents).toEqual([])
  })
})

describe('create_and_send_document: the same codes and fields as structuredContent, pointing into its arguments', () => {
  const toolCases = Object.entries(CASES).filter(([, c]) => c.tool !== false)

  test.each(toolCases)('%s', async (_name, c) => {
    const { body } = await callErrorResult(agent, 'create_and_send_document', toolArgumentsOf(restBodyOf(c) as Json))
    expect({ code: body.code, field: body.field }).toEqual({ code: c.code, field: toolFieldOf(c.field) })
  })

  test("the tool's own rule: signer_name goes with signer_email", async () => {
    const { body } = await callErrorResult(agent, 'create_and_send_document', { template_id: threeParty, signers: [party(0)], signer_name: 'Ann' })
    expect(body).toEqual({
      error: 'signer_name and auth_required go with signer_email; with signers, give name and auth_required on each signer.',
      code: 'invalid_request',
      field: '/signer_name',
    })
  })

  test('other tools: a query argument, an unknown tool', async () => {
    expect((await callErrorResult(agent, 'list_documents', { limit: 101 })).body).toEqual({
      error: 'limit must be at most 100',
      code: 'validation_failed',
      field: '/limit',
    })
    expect((await callErrorResult(agent, 'get_document_status', { document_id: SOME_UUID })).body).toEqual({ error: 'Document not found.', code: 'not_found' })
    expect((await callErrorResult(agent, 'no_such_tool')).body).toMatchObject({ code: 'not_found' })
  })
})

describe('errors other than validation carry their code', () => {
  const request = (path: string, init: Parameters<TestServer['request']>[1] = {}) => server.request(path, init)
  const answer = async (response: Response) => ({ status: response.status, body: await bodyOf(response) })

  test('401 without a key, and with an unknown one', async () => {
    expect(await answer(await request('/api/v1/documents'))).toEqual({ status: 401, body: { error: expect.any(String) as unknown, code: 'missing_api_key' } })
    expect(await answer(await request('/api/v1/documents', { key: 'sgn_live_nope' }))).toEqual({
      status: 401,
      body: { error: 'Invalid API key.', code: 'invalid_api_key' },
    })
  })

  test('404 for a route no one serves, and for a document of no one', async () => {
    expect(await answer(await request('/api/v1/nothing-here', { key: org.apiKey }))).toEqual({
      status: 404,
      body: { error: 'No route for GET /api/v1/nothing-here.', code: 'not_found' },
    })
    expect(await answer(await request(`/api/v1/documents/${SOME_UUID}`, { key: org.apiKey }))).toEqual({
      status: 404,
      body: { error: 'Document not found.', code: 'not_found' },
    })
  })

  test('400 for a query parameter, with its pointer', async () => {
    expect(await answer(await request('/api/v1/documents?limit=1000', { key: org.apiKey }))).toEqual({
      status: 400,
      body: { error: 'limit must be at most 100', code: 'validation_failed', field: '/limit' },
    })
  })

  test('400 for a body that is not JSON, 413 for one too large, 415 for one that is not JSON at all', async () => {
    const post = (body: string, contentType = 'application/json') =>
      request('/api/v1/documents', { method: 'POST', key: org.apiKey, headers: { 'content-type': contentType }, body })
    expect(await answer(await post('{"template_id": '))).toMatchObject({ status: 400, body: { code: 'invalid_json' } })
    expect(await answer(await post(JSON.stringify({ invite_message: 'x'.repeat(1024 * 1024) })))).toMatchObject({
      status: 413,
      body: { code: 'payload_too_large' },
    })
    expect(await answer(await post('template_id=x', 'text/plain'))).toMatchObject({ status: 415, body: { code: 'unsupported_media_type' } })
  })
})

describe('on a server without mail and with a small hourly limit', () => {
  let limited: TestServer
  let limitedOrg: TestOrg
  beforeAll(async () => {
    limited = await startTestServer({ env: { SMTP_URL: '', RATE_LIMITS: 'create=2' } })
    limitedOrg = await setupOrg(limited)
  })
  afterAll(() => limited.close())

  test('auth_required without mail points at the signer who needs a code; the limit is a 429 rate_limited', async () => {
    const send = (signer: Json) => postDocument(limited, limitedOrg.apiKey, { template_id: limitedOrg.templateId, signer })
    expect(await bodyOf(await send({ email: email(), auth_required: true }))).toMatchObject({ code: 'invalid_request', field: '/signer/auth_required' })
    expect((await send({ email: email() })).status).toBe(201)
    const refused = await send({ email: email() })
    expect({ status: refused.status, body: await bodyOf(refused) }).toMatchObject({ status: 429, body: { code: 'rate_limited' } })
  })
})
