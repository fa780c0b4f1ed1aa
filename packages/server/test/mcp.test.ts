import { createHash } from 'node:crypto'
import type { Client } from '@modelcontextprotocol/sdk/client/index.js'
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import { count, eq } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { auditEvents, documents } from '../src/db/schema.ts'
import { bodyOf, createSentDocument, expectError, fieldsForRoles, postDocument, setupOrg, uniqueEmail, type Json, type TestOrg } from './helpers/api.ts'
import { movableClock } from './helpers/clock.ts'
import { callError, callOk, connectAgent, TOOL_NAMES } from './helpers/mcp.ts'
import { makePdf } from './helpers/pdf.ts'
import { download, runOnPdf, verifyIdentity } from './helpers/seals.ts'
import { richFields, SignerClient, tokenFromMail, valuesFor } from './helpers/signing.ts'
import { startTestServer, type TestServer } from './helpers/test-server.ts'
import { haveTools } from '../../../test-support/tools.ts'

/*
 * The agent-tool endpoint (POST /api/mcp) through real HTTP with the official MCP SDK client:
 * the listing, every tool's result and its errors (the REST texts, as tool results with
 * isError), the HTTP layer (auth, Origin, methods, protocol version, rate limit), and the
 * agent-triggered mark in the audit trail and on the signed PDF's certificate page.
 */

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex')
const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/
const MISSING_KEY = 'Missing API key. Pass it as a bearer header: Authorization: Bearer <API_KEY>.'
const NOT_FOUND = 'Document not found.'
const NO_IDENTITY =
  'Sealing needs a one-time identity check of this org first. The workspace owner submits it in Settings → Identity check in the dashboard (http://signet.test/app/settings/identity).'

type Content = CallToolResult['content'][number]
type ResourceItem = Extract<Content, { type: 'resource' }>
type ImageItem = Extract<Content, { type: 'image' }>

/** The one embedded file of a file tool's result (after its JSON text item). */
function resourceOf(result: CallToolResult): { uri: string; mimeType: string | undefined; bytes: Buffer } {
  expect(result.content.map((c) => c.type)).toEqual(['text', 'resource'])
  const { resource } = result.content[1] as ResourceItem
  if (!('blob' in resource)) throw new Error('the resource has no blob')
  return { uri: resource.uri, mimeType: resource.mimeType, bytes: Buffer.from(resource.blob, 'base64') }
}

/** The one image of a result (after its JSON text item): its bytes, checked to be a PNG, and its size. */
function pngOf(result: CallToolResult): { bytes: Buffer; width: number; height: number } {
  expect(result.content.map((c) => c.type)).toEqual(['text', 'image'])
  const image = result.content[1] as ImageItem
  expect(image.mimeType).toBe('image/png')
  const bytes = Buffer.from(image.data, 'base64')
  expect(bytes.subarray(0, 8).equals(PNG_SIGNATURE)).toBe(true)
  return { bytes, width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) }
}

const base64 = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64')

/** A response's status, its body read to the end (a test server closes promptly only once its clients have read their responses). */
const statusOf = async (pending: Promise<Response>): Promise<number> => {
  const response = await pending
  await response.arrayBuffer()
  return response.status
}

/** A JSON-RPC request as raw HTTP clients send it. */
const rpc = (id: number, method: string, params: Json = {}) => ({ jsonrpc: '2.0', id, method, params })
const INITIALIZE_PARAMS = { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw-http', version: '1.0.0' } }

/** POST /api/mcp with the headers a Streamable HTTP client sends (each may be overridden; `undefined` leaves it out). */
function postMcp(target: TestServer, body: unknown, headers: Record<string, string | undefined> = {}): Promise<Response> {
  const all: Record<string, string | undefined> = {
    accept: 'application/json, text/event-stream',
    'content-type': 'application/json',
    'mcp-protocol-version': '2025-06-18',
    ...headers,
  }
  const sent = Object.fromEntries(Object.entries(all).filter((entry): entry is [string, string] => entry[1] !== undefined))
  return fetch(`${target.url}/api/mcp`, { method: 'POST', headers: sent, body: JSON.stringify(body) })
}

let server: TestServer
let org: TestOrg
let agent: Client
let stranger: TestOrg
let strangerAgent: Client

beforeAll(async () => {
  server = await startTestServer({ env: { JOB_POLL_MS: '100' } })
  org = await setupOrg(server, { name: 'Acme Agents' })
  await verifyIdentity(server, org.orgId, 'Acme Agents Ltd')
  agent = await connectAgent(server, org.apiKey)
  stranger = await setupOrg(server, { name: 'Other Org' })
  await verifyIdentity(server, stranger.orgId)
  strangerAgent = await connectAgent(server, stranger.apiKey)
})
afterAll(async () => {
  await agent?.close()
  await strangerAgent?.close()
  await server?.close()
})

const documentCount = async (orgId: string) => (await server.services.db.select({ n: count() }).from(documents).where(eq(documents.orgId, orgId)))[0]?.n

const restDocument = async (id: string, key = org.apiKey) => bodyOf(await server.request(`/api/v1/documents/${id}`, { key }))

/** Sends the org's one-role template to a new address over MCP; returns the document id and the address. */
async function agentSend(client = agent, templateId = org.templateId): Promise<{ id: string; email: string }> {
  const email = uniqueEmail()
  const { structured } = await callOk<Json>(client, 'create_and_send_document', { template_id: templateId, signer_email: email })
  return { id: structured.document_id as string, email }
}

async function agentSeal(client: Client, args: Json = {}): Promise<{ structured: Json; result: CallToolResult }> {
  return callOk<Json>(client, 'seal_document', { file_base64: base64(await makePdf(1)), title: 'Sealed by an agent', ...args })
}

/** get_signed_file until it answers with the file (the final PDF is produced in the background); "not ready" is the only error it may give meanwhile. */
async function waitForSignedFile(client: Client, documentId: string): Promise<{ structured: Json; result: CallToolResult }> {
  for (let i = 0; i < 200; i++) {
    const result = (await client.callTool({ name: 'get_signed_file', arguments: { document_id: documentId } })) as CallToolResult
    if (!result.isError) return callOk<Json>(client, 'get_signed_file', { document_id: documentId })
    expect(result.content).toEqual([{ type: 'text', text: 'The signed PDF is not ready yet.' }])
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  throw new Error('the signed PDF never became ready')
}

/** A document sent over MCP and signed by its signer through the e-mailed link, its signed PDF ready. */
let completed: Promise<{ documentId: string; pdf: Buffer; structured: Json; result: CallToolResult }> | undefined
function agentCompletedDocument() {
  completed ??= (async () => {
    const template = await server.createTemplate(org.orgId, { name: 'Consulting Agreement', fields: richFields([0]) })
    const { id, email } = await agentSend(agent, template.id)
    const [invitation] = await server.mail.waitFor(email)
    const signer = new SignerClient(server, tokenFromMail(invitation?.text), email)
    expect(await statusOf(signer.view())).toBe(200)
    expect(await bodyOf(await signer.finish(valuesFor(0)))).toEqual({ status: 'signed', document_status: 'completed' })
    const { structured, result } = await waitForSignedFile(agent, id)
    return { documentId: id, pdf: resourceOf(result).bytes, structured, result }
  })()
  return completed
}

describe('tools/list', () => {
  test('lists exactly the ten tools, in order, each with a title, a description, object input and output schemas and all four annotations', async () => {
    const { tools } = await agent.listTools()
    expect(tools.map((t) => t.name)).toEqual(TOOL_NAMES)
    for (const tool of tools) {
      expect(tool.title, tool.name).toEqual(expect.stringMatching(/\S/))
      expect(tool.description?.length, tool.name).toBeGreaterThan(80)
      expect(tool.inputSchema.type, tool.name).toBe('object')
      expect(tool.outputSchema?.type, tool.name).toBe('object')
      expect(tool.inputSchema.additionalProperties, tool.name).toBe(false)
      expect(Object.keys(tool.annotations ?? {}).sort(), tool.name).toEqual(['destructiveHint', 'idempotentHint', 'openWorldHint', 'readOnlyHint', 'title'])
    }
    const hints = Object.fromEntries(
      tools.map((t) => [t.name, [t.annotations?.readOnlyHint, t.annotations?.destructiveHint, t.annotations?.idempotentHint, t.annotations?.openWorldHint]]),
    )
    //                                      readOnly destructive idempotent openWorld
    expect(hints).toEqual({
      list_templates: [true, false, true, false],
      create_and_send_document: [false, false, false, true],
      get_document_status: [true, false, true, false],
      list_documents: [true, false, true, false],
      void_document: [false, true, false, true],
      get_signed_file: [true, false, true, false],
      seal_document: [false, false, false, true],
      get_certificate_file: [true, false, true, false],
      get_badge_image: [true, false, true, false],
      get_usage: [true, false, true, false],
    })
  })

  test("the input schemas carry the REST fields' constraints, in plain JSON Schema", async () => {
    const { tools } = await agent.listTools()
    const create = tools.find((t) => t.name === 'create_and_send_document')?.inputSchema as Json & { properties: Record<string, Json> }
    expect(create.required).toEqual(['template_id'])
    expect(create.properties.template_id).toMatchObject({ type: 'string', format: 'uuid' })
    expect(create.properties.signer_email).toMatchObject({ type: 'string', format: 'email', maxLength: 254 })
    expect(create.properties.invite_subject).toMatchObject({ type: 'string', maxLength: 200 })
    expect(create.properties.invite_message).toMatchObject({ type: 'string', maxLength: 2000 })
    expect(JSON.stringify(create.properties.signer_name)).toContain('"maxLength":200')
    // Our own `utc-date-time` format is published as a pattern any validator understands.
    expect(create.properties.expires_at?.format).toBeUndefined()
    expect(new RegExp(create.properties.expires_at?.pattern as string).test('2030-01-31T17:00:00Z')).toBe(true)
    expect(new RegExp(create.properties.expires_at?.pattern as string).test('2030-01-31T17:00:00+02:00')).toBe(false)
    const seal = tools.find((t) => t.name === 'seal_document')?.inputSchema as Json & { properties: Record<string, Json> }
    expect(seal.required).toEqual(['file_base64'])
    expect(seal.properties.certificate_mode).toMatchObject({ enum: ['both', 'separate', 'appended'] })
    for (const name of ['get_document_status', 'void_document', 'get_signed_file', 'get_certificate_file', 'get_badge_image']) {
      expect(tools.find((t) => t.name === name)?.inputSchema, name).toMatchObject({
        required: ['document_id'],
        properties: { document_id: { format: 'uuid' } },
      })
    }
    expect(tools.find((t) => t.name === 'get_usage')?.inputSchema).toMatchObject({ type: 'object', properties: {} })
  })

  test('the server introduces itself as Signet, with instructions for the model', () => {
    expect(agent.getServerVersion()).toMatchObject({ name: 'signet', title: 'Signet' })
    expect(agent.getServerCapabilities()?.tools).toBeDefined()
    expect(agent.getInstructions()).toContain('create_and_send_document')
  })
})

describe('each tool, success', () => {
  test("list_templates: the org's templates with their roles, the same as REST", async () => {
    const twoParty = await server.createTemplate(org.orgId, { name: 'Two-party NDA', fields: fieldsForRoles([0, 1]) })
    const { structured } = await callOk<{ templates: Json[]; org_name: string }>(agent, 'list_templates')
    expect(structured.org_name).toBe('Acme Agents')
    expect(structured.templates).toContainEqual(expect.objectContaining({ id: org.templateId, roles: [0] }))
    expect(structured.templates).toContainEqual(expect.objectContaining({ id: twoParty.id, name: 'Two-party NDA', page_count: 1, roles: [0, 1] }))
    expect(structured).toEqual(await bodyOf(await server.request('/api/v1/templates?limit=500', { key: org.apiKey })))
    // Another org's templates are not listed.
    const { structured: theirs } = await callOk<{ templates: Json[] }>(strangerAgent, 'list_templates')
    expect(theirs.templates.map((t) => t.id)).toEqual([stranger.templateId])
  })

  test('create_and_send_document, one signer: the invitation really arrives, with the given subject and message', async () => {
    const email = uniqueEmail('agent-signer')
    const { structured } = await callOk<Json>(agent, 'create_and_send_document', {
      template_id: org.templateId,
      signer_email: email,
      signer_name: 'Dana Signer',
      expires_at: '2099-01-31T17:00:00Z',
      invite_subject: 'Please sign the agreement',
      invite_message: 'Sent for you by our assistant.',
    })
    expect(structured).toEqual({
      document_id: expect.stringMatching(UUID) as unknown,
      status: 'sent',
      expires_at: '2099-01-31T17:00:00.000Z',
      auth_required: false,
      note: expect.stringContaining('Each signer must still open the link e-mailed to them and sign') as unknown,
    })
    const [invitation] = await server.mail.waitFor(email)
    expect(invitation?.subject).toBe('Please sign the agreement')
    expect(invitation?.text).toContain('Sent for you by our assistant.')
    expect(tokenFromMail(invitation?.text)).toHaveLength(43)
    expect(await restDocument(structured.document_id as string)).toMatchObject({
      status: 'sent',
      signers: [{ email, name: 'Dana Signer', status: 'pending', auth_required: false }],
    })
  })

  test('create_and_send_document, several parties with `signers`: one invitation each', async () => {
    const template = await server.createTemplate(org.orgId, { fields: fieldsForRoles([0, 1]) })
    const [first, second] = [uniqueEmail('party1'), uniqueEmail('party2')]
    const { structured } = await callOk<Json>(agent, 'create_and_send_document', {
      template_id: template.id,
      signers: [
        { role: 0, email: first, name: 'First Party' },
        { role: 1, email: second, auth_required: true },
      ],
    })
    expect(structured).toMatchObject({
      status: 'sent',
      expires_at: null,
      signers: [
        { id: expect.stringMatching(UUID) as unknown, role: 0, email: first, auth_required: false },
        { id: expect.stringMatching(UUID) as unknown, role: 1, email: second, auth_required: true },
      ],
    })
    expect(structured.auth_required).toBeUndefined()
    const mails = await Promise.all([server.mail.waitFor(first), server.mail.waitFor(second)])
    expect(mails.map(([m]) => tokenFromMail(m?.text))).toHaveLength(2)
    expect(((await restDocument(structured.document_id as string)).signers as Json[]).map((s) => s.email)).toEqual([first, second])
  })

  test('get_document_status: the same view as GET /api/v1/documents/{id}', async () => {
    const { id, email } = await agentSend()
    const { structured } = await callOk<Json>(agent, 'get_document_status', { document_id: id })
    expect(structured).toMatchObject({ id, status: 'sent', signed_pdf_status: null, signers: [{ email, status: 'pending' }] })
    expect(structured).toEqual(await restDocument(id))
  })

  test('list_documents: newest first, filtered by status, the same as REST', async () => {
    const sent = await agentSend()
    const voided = await agentSend()
    await callOk(agent, 'void_document', { document_id: voided.id })
    const { structured } = await callOk<{ documents: Json[]; limit: number; offset: number; has_more: boolean }>(agent, 'list_documents', {
      status: 'voided',
      limit: 100,
    })
    const ids = structured.documents.map((d) => d.id)
    expect(ids).toContain(voided.id)
    expect(ids).not.toContain(sent.id)
    expect(structured.documents.every((d) => d.status === 'voided')).toBe(true)
    expect(structured).toEqual(await bodyOf(await server.request('/api/v1/documents?status=voided&limit=100', { key: org.apiKey })))
    const newest = await callOk<{ documents: Json[]; limit: number; has_more: boolean }>(agent, 'list_documents', { limit: 2 })
    expect(newest.structured.documents.map((d) => d.id)).toEqual([voided.id, sent.id])
    expect(newest.structured).toMatchObject({ limit: 2, has_more: true })
  })

  test('void_document: {success: true}; the document is voided and its signer told', async () => {
    const { id, email } = await agentSend()
    await server.mail.waitFor(email)
    const { structured } = await callOk(agent, 'void_document', { document_id: id })
    expect(structured).toEqual({ success: true })
    expect((await restDocument(id)).status).toBe('voided')
    const mails = await server.mail.waitFor(email, 2)
    expect(mails[1]?.text).toMatch(/no longer/i)
  })

  test("get_signed_file: the completed document's signed PDF as an embedded resource, the same file as REST", async () => {
    const { documentId, pdf, structured, result } = await agentCompletedDocument()
    const file = resourceOf(result)
    const downloadUrl = `http://signet.test/api/v1/documents/${documentId}/signed-file`
    expect(structured).toEqual({
      document_id: documentId,
      // The default title names the first signer: the file name keeps the address, the dash plain.
      filename: expect.stringMatching(/^Consulting Agreement - signer\.\w+@example\.com \(signed\)\.pdf$/) as unknown,
      size_bytes: pdf.byteLength,
      sha256: sha256(pdf),
      download_url: downloadUrl,
    })
    expect(file).toMatchObject({ uri: downloadUrl, mimeType: 'application/pdf' })
    expect(pdf.subarray(0, 5).toString('latin1')).toBe('%PDF-')
    expect(pdf.equals(Buffer.from(await download(server, org.apiKey, `/api/v1/documents/${documentId}/signed-file`)))).toBe(true)
    expect((await callOk<Json>(agent, 'get_document_status', { document_id: documentId })).structured).toMatchObject({
      status: 'completed',
      signed_pdf_status: 'ready',
    })
  })

  test('seal_document: sealed and timestamped, with the badge as a PNG image; the same seal REST shows', async () => {
    const original = await makePdf(2)
    const { structured, result } = await callOk<Json>(agent, 'seal_document', { file_base64: base64(original), filename: 'q3-report.pdf', title: 'Q3 report' })
    const id = structured.document_id as string
    expect(id).toMatch(UUID)
    expect(structured).toEqual({
      document_id: id,
      status: 'completed',
      seal_status: 'sealed',
      verify_url: `http://signet.test/verify/${id}`,
      sealed_file_url: `http://signet.test/api/v1/documents/${id}/signed-file`,
      certificate_file_url: `http://signet.test/api/v1/documents/${id}/certificate`,
      badge_image_url: `http://signet.test/api/v1/documents/${id}/badge`,
      sha256: expect.stringMatching(/^[0-9a-f]{64}$/) as unknown,
      original_sha256: sha256(original),
      sealed_at: expect.stringMatching(/Z$/) as unknown,
      timestamp_authority: 'Signet (signet.test) Time-Stamp Authority',
      last_error: null,
      note: expect.stringMatching(/^Sealed and timestamped\./) as unknown,
    })
    const badge = pngOf(result)
    expect([badge.width, badge.height]).toEqual([640, 820])
    expect(badge.bytes.equals(Buffer.from(await download(server, org.apiKey, `/api/v1/documents/${id}/badge`)))).toBe(true)
    const rest = await bodyOf(await server.request(`/api/v1/seals/${id}`, { key: org.apiKey }))
    expect(rest).toMatchObject({ id, title: 'Q3 report', certificate_mode: 'both', sha256: structured.sha256, sealed_at: structured.sealed_at })
    // The sealed file is what get_signed_file returns, and its hash is the seal's.
    const sealedFile = await callOk<Json>(agent, 'get_signed_file', { document_id: id })
    expect(sealedFile.structured).toMatchObject({ filename: 'Q3 report (sealed).pdf', sha256: structured.sha256 })
    expect(sha256(resourceOf(sealedFile.result).bytes)).toBe(structured.sha256)
  })

  test('get_certificate_file: the standalone certificate PDF as an embedded resource', async () => {
    const { structured: sealed } = await agentSeal(agent, { title: 'Board minutes', certificate_mode: 'separate' })
    const id = sealed.document_id as string
    const { structured, result } = await callOk<Json>(agent, 'get_certificate_file', { document_id: id })
    const file = resourceOf(result)
    const downloadUrl = `http://signet.test/api/v1/documents/${id}/certificate`
    expect(structured).toEqual({
      document_id: id,
      filename: 'Board minutes (certificate).pdf',
      size_bytes: file.bytes.byteLength,
      sha256: sha256(file.bytes),
      download_url: downloadUrl,
    })
    expect(file).toMatchObject({ uri: downloadUrl, mimeType: 'application/pdf' })
    expect(file.bytes.subarray(0, 5).toString('latin1')).toBe('%PDF-')
    expect(file.bytes.equals(Buffer.from(await download(server, org.apiKey, `/api/v1/documents/${id}/certificate`)))).toBe(true)
  })

  test('get_badge_image: the badge PNG and the public verification link', async () => {
    const { structured: sealed, result: sealResult } = await agentSeal(agent, { title: 'Badge me' })
    const id = sealed.document_id as string
    const { structured, result } = await callOk<Json>(agent, 'get_badge_image', { document_id: id })
    expect(structured).toEqual({ document_id: id, verify_url: `http://signet.test/verify/${id}` })
    const badge = pngOf(result)
    expect([badge.width, badge.height]).toEqual([640, 820])
    // Drawn from the audit trail: the same bytes as the badge seal_document returned.
    expect(badge.bytes.equals(pngOf(sealResult).bytes)).toBe(true)
    expect(await statusOf(server.request(`/verify/${id}`))).toBe(200)
  })

  test('get_usage: the REST usage report plus whether the spend cap is reached; agent sends metered, REST sends unlimited on Business', async () => {
    const fresh = await setupOrg(server)
    const client = await connectAgent(server, fresh.apiKey)
    try {
      await agentSend(client, fresh.templateId)
      await createSentDocument(server, fresh)
      const { structured } = await callOk<Json>(client, 'get_usage')
      expect(structured).toMatchObject({
        org_id: fresh.orgId,
        plan: 'business',
        included_allowance: 100,
        included_used: 1,
        included_remaining: 99,
        billable_units: 0,
        unlimited_units: 1,
        spend_cap_cents: null,
        spend_cap_reached: false,
      })
      const rest = await bodyOf(await server.request('/api/v1/usage', { key: fresh.apiKey }))
      expect(structured).toEqual({ ...rest, spend_cap_reached: false })
    } finally {
      await client.close()
    }
  })
})

describe('each tool, errors: tool results with isError and the REST texts', () => {
  test('bad arguments name the argument', async () => {
    const email = uniqueEmail()
    const before = await documentCount(org.orgId)
    expect(await callError(agent, 'create_and_send_document', { signer_email: email })).toBe('template_id is required')
    expect(await callError(agent, 'create_and_send_document', { template_id: org.templateId, signer_email: 'not-an-email' })).toBe(
      'signer_email must be a valid e-mail address',
    )
    expect(await callError(agent, 'create_and_send_document', { template_id: org.templateId, signer_email: email, colour: 'red' })).toBe(
      'colour is not an allowed argument',
    )
    expect(await callError(agent, 'create_and_send_document', { template_id: 'template-1', signer_email: email })).toBe('template_id must be a UUID')
    expect(await callError(agent, 'create_and_send_document', { template_id: org.templateId, signer_email: email, invite_subject: 'x'.repeat(201) })).toBe(
      'invite_subject must be at most 200 characters',
    )
    expect(
      await callError(agent, 'create_and_send_document', { template_id: org.templateId, signer_email: email, expires_at: '2030-01-31T17:00:00+02:00' }),
    ).toBe('expires_at must be a UTC date-time such as 2030-01-31T17:00:00Z (or "" for none)')
    const either = 'Provide either signer_email (a template with one role) or signers (one per role of a multi-party template), not both.'
    expect(await callError(agent, 'create_and_send_document', { template_id: org.templateId, signer_email: email, signers: [{ role: 0, email }] })).toBe(either)
    expect(await callError(agent, 'create_and_send_document', { template_id: org.templateId })).toBe(either)
    expect(await callError(agent, 'create_and_send_document', { template_id: org.templateId, signers: [{ role: 0, email: 'nobody' }] })).toBe(
      'signers[0].email must be a valid e-mail address',
    )
    expect(await callError(agent, 'list_documents', { status: 'lost' })).toMatch(/^status must be one of: .*sent/)
    expect(await callError(agent, 'list_documents', { limit: 101 })).toBe('limit must be at most 100')
    expect(await callError(agent, 'get_document_status', {})).toBe('document_id is required')
    expect(await callError(agent, 'get_document_status', { document_id: 'abc' })).toBe('document_id must be a UUID')
    expect(await callError(agent, 'get_usage', { period: '2030-01' })).toBe('period is not an allowed argument')
    expect(await callError(agent, 'no_such_tool')).toBe(`Unknown tool "no_such_tool". The tools are: ${TOOL_NAMES.join(', ')}.`)
    // None of these created a document.
    expect(await documentCount(org.orgId)).toBe(before)
  })

  test("the domain's refusals carry the REST texts", async () => {
    const theirTemplate = (await callOk<{ templates: Json[] }>(strangerAgent, 'list_templates')).structured.templates[0]?.id
    const refused = await postDocument(server, org.apiKey, { template_id: theirTemplate, signer: { email: uniqueEmail() } })
    const restText = await expectError(refused, 400)
    expect(await callError(agent, 'create_and_send_document', { template_id: theirTemplate, signer_email: uniqueEmail() })).toBe(restText)
    expect(restText).toBe('Template not found.')
    expect(
      await callError(agent, 'create_and_send_document', { template_id: org.templateId, signer_email: uniqueEmail(), expires_at: '2001-01-01T00:00:00Z' }),
    ).toBe('expires_at must be in the future.')
  })

  test('another org\'s document is exactly "Document not found.", for every tool that takes a document_id', async () => {
    const theirs = await agentSend(strangerAgent, stranger.templateId)
    const { structured: theirSeal } = await agentSeal(strangerAgent)
    await expectError(await server.request(`/api/v1/documents/${theirs.id}`, { key: org.apiKey }), 404, NOT_FOUND)
    for (const name of ['get_document_status', 'void_document', 'get_signed_file', 'get_certificate_file', 'get_badge_image']) {
      expect(await callError(agent, name, { document_id: theirs.id }), name).toBe(NOT_FOUND)
      expect(await callError(agent, name, { document_id: theirSeal.document_id }), name).toBe(NOT_FOUND)
      expect(await callError(agent, name, { document_id: '00000000-0000-4000-8000-000000000000' }), name).toBe(NOT_FOUND)
    }
    // And nothing happened to it.
    expect((await restDocument(theirs.id, stranger.apiKey)).status).toBe('sent')
  })

  test('get_signed_file before completion: the REST 404 text', async () => {
    const { id } = await agentSend()
    await expectError(await server.request(`/api/v1/documents/${id}/signed-file`, { key: org.apiKey }), 404, 'The signed PDF is not ready yet.')
    expect(await callError(agent, 'get_signed_file', { document_id: id })).toBe('The signed PDF is not ready yet.')
  })

  test('void_document of a document that is not out for signature: the REST text', async () => {
    const { id } = await agentSend()
    await callOk(agent, 'void_document', { document_id: id })
    const text = await callError(agent, 'void_document', { document_id: id })
    expect(text).toBe('Only documents out for signature (status "sent") can be voided; this document is voided.')
    await expectError(await server.request(`/api/v1/documents/${id}/void`, { method: 'POST', key: org.apiKey }), 400, text)
    const { documentId } = await agentCompletedDocument()
    expect(await callError(agent, 'void_document', { document_id: documentId })).toBe(
      'Only documents out for signature (status "sent") can be voided; this document is completed.',
    )
  })

  test('seal_document without the identity check: the 412 text that says what to do', async () => {
    const unverified = await setupOrg(server)
    const client = await connectAgent(server, unverified.apiKey)
    try {
      expect(await callError(client, 'seal_document', { file_base64: base64(await makePdf(1)), title: 'x' })).toBe(NO_IDENTITY)
      expect((await callOk<{ documents: Json[] }>(client, 'list_documents')).structured.documents).toEqual([])
    } finally {
      await client.close()
    }
  })

  test('seal_document with base64 that is not a PDF, or not base64, or no title', async () => {
    expect(await callError(agent, 'seal_document', { file_base64: Buffer.from('hello, this is not a PDF').toString('base64'), title: 'x' })).toBe(
      'The file is not a PDF (no %PDF- header).',
    )
    expect(await callError(agent, 'seal_document', { file_base64: '%PDF-1.7 not base64 at all!', title: 'x' })).toBe(
      'file_base64 must be the PDF encoded as base64.',
    )
    expect(await callError(agent, 'seal_document', { file_base64: '', title: 'x' })).toBe('file_base64 must be at least 1 character')
    expect(await callError(agent, 'seal_document', { file_base64: base64(await makePdf(1)) })).toBe(
      'Give the sealed document a title (or a filename to take it from).',
    )
    expect(await callError(agent, 'seal_document', { file_base64: base64(await makePdf(1)), title: 'x', certificate_mode: 'stapled' })).toBe(
      'certificate_mode must be one of: both, separate, appended',
    )
    // A truncated PDF: the header is there, the rest is not.
    const truncated = (await makePdf(1)).subarray(0, 200)
    expect(await callError(agent, 'seal_document', { file_base64: base64(truncated), title: 'x' })).toBe(
      'The PDF is incomplete (no %%EOF at its end): was the file truncated?',
    )
  })

  test('get_certificate_file of a seal made with certificate_mode "appended", or of a signed document: "No standalone certificate for this document."', async () => {
    const { structured } = await agentSeal(agent, { certificate_mode: 'appended' })
    expect(structured.certificate_file_url).toBeNull()
    expect(await callError(agent, 'get_certificate_file', { document_id: structured.document_id })).toBe('No standalone certificate for this document.')
    const { id } = await agentSend()
    expect(await callError(agent, 'get_certificate_file', { document_id: id })).toBe('No standalone certificate for this document.')
  })

  test('get_badge_image of a document that is not a seal: the REST text', async () => {
    const { id } = await agentSend()
    const text = 'This document is not a sealed document, so it has no Verified Badge.'
    await expectError(await server.request(`/api/v1/documents/${id}/badge`, { key: org.apiKey }), 404, text)
    expect(await callError(agent, 'get_badge_image', { document_id: id })).toBe(text)
  })
})

describe('the HTTP layer', () => {
  const initialize = rpc(1, 'initialize', INITIALIZE_PARAMS)

  test('without a key, or with a bad one: 401 with the REST texts', async () => {
    const missing = await postMcp(server, initialize)
    await expectError(missing, 401, MISSING_KEY)
    const bad = await postMcp(server, initialize, { authorization: `Bearer sgn_live_${'0'.repeat(64)}` })
    await expectError(bad, 401, 'Invalid API key.')
    // The same texts as REST.
    await expectError(await server.request('/api/v1/documents'), 401, MISSING_KEY)
    // The SDK client cannot connect with a bad key either.
    await expect(connectAgent(server, `sgn_live_${'1'.repeat(64)}`)).rejects.toThrow('Invalid API key.')
  })

  test('a request with the key is answered statelessly: tools/list needs no initialize or session first', async () => {
    const response = await postMcp(server, rpc(7, 'tools/list'), { authorization: `Bearer ${org.apiKey}` })
    expect(response.status).toBe(200)
    expect(response.headers.get('content-type')).toMatch(/^application\/json/)
    expect(response.headers.get('mcp-session-id')).toBeNull()
    // The reply goes out through Fastify, so it has the API's headers.
    expect(response.headers.get('x-content-type-options')).toBe('nosniff')
    expect(response.headers.get('cache-control')).toBe('no-store')
    const body = await bodyOf<{ jsonrpc: string; id: number; result: { tools: Json[] } }>(response)
    expect(body).toMatchObject({ jsonrpc: '2.0', id: 7 })
    expect(body.result.tools.map((t) => t.name)).toEqual(TOOL_NAMES)
  })

  test('GET and DELETE: 405, allowing POST only', async () => {
    for (const method of ['GET', 'DELETE']) {
      const response = await server.request('/api/mcp', { method, key: org.apiKey, headers: { accept: 'text/event-stream' } })
      expect(response.headers.get('allow'), method).toBe('POST')
      await expectError(response, 405, /stateless: send each JSON-RPC request with POST/)
    }
  })

  test("a foreign Origin: 403; the service's own origin is allowed", async () => {
    const auth = { authorization: `Bearer ${org.apiKey}` }
    const foreign = await postMcp(server, rpc(2, 'tools/list'), { ...auth, origin: 'https://evil.example' })
    await expectError(foreign, 403, 'Requests from the web origin https://evil.example are not allowed on this endpoint.')
    // Even before the key is checked: a page elsewhere learns nothing about keys.
    await expectError(await postMcp(server, rpc(2, 'tools/list'), { origin: 'http://localhost:3000' }), 403, /web origin http:\/\/localhost:3000/)
    const own = await postMcp(server, rpc(3, 'tools/list'), { ...auth, origin: 'http://signet.test' })
    expect(own.status).toBe(200)
    expect((await bodyOf<{ result: { tools: unknown[] } }>(own)).result.tools).toHaveLength(10)
  })

  test('a malformed tools/call is a JSON-RPC "Invalid params" (-32602), not an internal error', async () => {
    const auth = { authorization: `Bearer ${org.apiKey}` }
    for (const params of [{ name: 'get_usage', arguments: null }, { name: 'get_usage', arguments: [] }, { arguments: {} }]) {
      const response = await postMcp(server, rpc(6, 'tools/call', params), auth)
      expect(response.status, JSON.stringify(params)).toBe(200)
      const body = await bodyOf<{ id: number; error: { code: number; message: string } }>(response)
      expect(body, JSON.stringify(params)).toMatchObject({
        id: 6,
        error: { code: -32602, message: expect.stringContaining('Invalid tools/call request') as unknown },
      })
    }
    // A well-formed call on the same path is answered.
    const ok = await postMcp(server, rpc(7, 'tools/call', { name: 'get_usage', arguments: {} }), auth)
    expect(await bodyOf(ok)).toMatchObject({ id: 7, result: { structuredContent: { org_id: org.orgId } } })
  })

  test('an unsupported MCP-Protocol-Version: 400', async () => {
    const auth = { authorization: `Bearer ${org.apiKey}` }
    const response = await postMcp(server, rpc(4, 'tools/list'), { ...auth, 'mcp-protocol-version': '1999-01-01' })
    expect(response.status).toBe(400)
    const body = await bodyOf<{ jsonrpc: string; error: { code: number; message: string } }>(response)
    expect(body.jsonrpc).toBe('2.0')
    expect(body.error.message).toMatch(/Unsupported protocol version.*1999-01-01/)
    expect(await statusOf(postMcp(server, rpc(5, 'tools/list'), { ...auth, 'mcp-protocol-version': '2025-03-26' }))).toBe(200)
  })

  /*
   * One MCP server answers every request of the process (mcp/json-transport.ts): what a client
   * sees must be what the SDK's own per-request transport answered, and no client may see, or
   * touch, another's requests.
   */
  const usageCall = (id: string | number) => rpc(id as number, 'tools/call', { name: 'get_usage', arguments: {} })
  type UsageAnswer = { jsonrpc: string; id: string | number; result: { structuredContent: { org_id: string } } }

  // Over PostgreSQL the requests overlap inside the server; over PGlite (in-process) each tends to
  // run to its end before the next is read. mcp-transport.test.ts holds them open on purpose.
  test('two clients sending the same id at once each get their own answer: their own org, their own id', async () => {
    const ours = { authorization: `Bearer ${org.apiKey}` }
    const theirs = { authorization: `Bearer ${stranger.apiKey}` }
    const pairs = await Promise.all(Array.from({ length: 10 }, () => Promise.all([postMcp(server, usageCall(1), ours), postMcp(server, usageCall(1), theirs)])))
    for (const [mine, other] of pairs) {
      expect(await bodyOf<UsageAnswer>(mine)).toMatchObject({ jsonrpc: '2.0', id: 1, result: { structuredContent: { org_id: org.orgId } } })
      expect(await bodyOf<UsageAnswer>(other)).toMatchObject({ jsonrpc: '2.0', id: 1, result: { structuredContent: { org_id: stranger.orgId } } })
    }
  })

  test('a batch of two requests: an array of their answers in their order, under their ids', async () => {
    const response = await postMcp(server, [usageCall('usage'), rpc(2, 'ping')], { authorization: `Bearer ${org.apiKey}` })
    expect(response.status).toBe(200)
    expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8')
    const body = await bodyOf<unknown[]>(response)
    expect(body).toHaveLength(2)
    expect(body[0]).toMatchObject({ jsonrpc: '2.0', id: 'usage', result: { structuredContent: { org_id: org.orgId } } })
    expect(body[1]).toEqual({ jsonrpc: '2.0', id: 2, result: {} })
  })

  test('notifications only: 202 with no body', async () => {
    const auth = { authorization: `Bearer ${org.apiKey}` }
    for (const body of [
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      [{ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 1 } }],
    ]) {
      const response = await postMcp(server, body, auth)
      expect(response.status).toBe(202)
      expect(response.headers.get('content-type')).toBeNull()
      expect(response.headers.get('cache-control')).toBe('no-store')
      expect(await response.text()).toBe('')
    }
  })

  test("refusals of the whole body word by word as the SDK's transport gave them (406, 415, 400)", async () => {
    const auth = { authorization: `Bearer ${org.apiKey}` }
    const refusal = (code: number, message: string) => JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null })
    const cases: [string, Promise<Response>, number, string][] = [
      [
        'Accept without text/event-stream',
        postMcp(server, rpc(1, 'ping'), { ...auth, accept: 'application/json' }),
        406,
        refusal(-32000, 'Not Acceptable: Client must accept both application/json and text/event-stream'),
      ],
      [
        // A media type Fastify's JSON parser takes but the SDK's parser does not (a comma in the parameters).
        'Content-Type the SDK does not take for JSON',
        postMcp(server, rpc(1, 'ping'), { ...auth, 'content-type': 'application/json; a=b, c' }),
        415,
        refusal(-32000, 'Unsupported Media Type: Content-Type must be application/json'),
      ],
      ['no body', postMcp(server, undefined, auth), 400, refusal(-32700, 'Parse error: Invalid JSON')],
      ['not a JSON-RPC message', postMcp(server, { method: 'ping' }, auth), 400, refusal(-32700, 'Parse error: Invalid JSON-RPC message')],
      ['an id that is no integer', postMcp(server, rpc(1.5, 'ping'), auth), 400, refusal(-32700, 'Parse error: Invalid JSON-RPC message')],
      [
        'initialize in a batch',
        postMcp(server, [rpc(1, 'initialize', INITIALIZE_PARAMS), rpc(2, 'ping')], auth),
        400,
        refusal(-32600, 'Invalid Request: Only one initialization request is allowed'),
      ],
      [
        'an unsupported MCP-Protocol-Version',
        postMcp(server, rpc(1, 'ping'), { ...auth, 'mcp-protocol-version': '1999-01-01' }),
        400,
        refusal(
          -32000,
          'Bad Request: Unsupported protocol version: 1999-01-01 (supported versions: 2025-11-25, 2025-06-18, 2025-03-26, 2024-11-05, 2024-10-07)',
        ),
      ],
    ]
    for (const [name, pending, status, body] of cases) {
      const response = await pending
      expect(response.status, name).toBe(status)
      expect(response.headers.get('content-type'), name).toBe('application/json; charset=utf-8')
      expect(response.headers.get('cache-control'), name).toBe('no-store')
      expect(await response.text(), name).toBe(body)
    }
  })

  // The server's own ids are not known here: mcp-transport.test.ts guesses every one of them.
  test("a client's notifications/cancelled cannot cancel another client's request", async () => {
    const call = postMcp(server, rpc(1, 'tools/call', { name: 'get_usage', arguments: {} }), { authorization: `Bearer ${org.apiKey}` })
    // Every small id, as numbers, in batches of ten (the most a body may hold).
    const cancellations = Array.from({ length: 10 }, (_, batch) =>
      postMcp(
        server,
        Array.from({ length: 10 }, (_, i) => ({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: batch * 10 + i } })),
        { authorization: `Bearer ${stranger.apiKey}` },
      ),
    )
    for (const response of await Promise.all(cancellations)) expect(await statusOf(Promise.resolve(response))).toBe(202)
    expect(await bodyOf(await call)).toMatchObject({ id: 1, result: { structuredContent: { org_id: org.orgId } } })
  })
})

describe('the agent-tools rate limit', () => {
  let limited: TestServer
  beforeAll(async () => {
    // Windows are whole UTC hours: start just after one, so the test never straddles two.
    const { clock, setNow } = movableClock()
    setNow('2031-03-01T10:00:05Z')
    limited = await startTestServer({ clock, env: { RATE_LIMITS: 'agent-tools=2' } })
  })
  afterAll(async () => {
    await limited?.close()
  })

  test('initialize and tools/list count elsewhere (agent-protocol); the third tools/call answers 429 with Retry-After, the RateLimit headers and a JSON-RPC error', async () => {
    const limitedOrg = await setupOrg(limited)
    const auth = { authorization: `Bearer ${limitedOrg.apiKey}` }
    for (let i = 0; i < 5; i++) {
      const initialized = await postMcp(limited, rpc(1, 'initialize', INITIALIZE_PARAMS), auth)
      expect(initialized.status).toBe(200)
      expect(await bodyOf(initialized)).toMatchObject({ id: 1, result: { serverInfo: { name: 'signet' } } })
      const list = await postMcp(limited, rpc(2, 'tools/list'), auth)
      expect(list.status).toBe(200)
      expect(list.headers.get('ratelimit-policy')).toBe('"agent-protocol";q=600;w=3600')
      expect((await bodyOf<{ result: { tools: unknown[] } }>(list)).result.tools).toHaveLength(10)
    }
    const call = (id: number) => postMcp(limited, rpc(id, 'tools/call', { name: 'get_usage', arguments: {} }), auth)
    for (const [id, left] of [
      [10, 1],
      [11, 0],
    ] as const) {
      const response = await call(id)
      expect(response.status).toBe(200)
      expect(response.headers.get('ratelimit-policy')).toBe('"agent-tools";q=2;w=3600')
      expect(response.headers.get('ratelimit')).toMatch(new RegExp(`^"agent-tools";r=${left};t=\\d+$`))
      expect(await bodyOf(response)).toMatchObject({ jsonrpc: '2.0', id, result: { structuredContent: { org_id: limitedOrg.orgId } } })
    }
    const refused = await call(12)
    expect(refused.status).toBe(429)
    const retryAfter = Number(refused.headers.get('retry-after'))
    // Seconds to 11:00:00, as the clock runs on in real time.
    expect(retryAfter).toBeGreaterThan(3000)
    expect(retryAfter).toBeLessThanOrEqual(3595)
    expect(refused.headers.get('ratelimit-policy')).toBe('"agent-tools";q=2;w=3600')
    expect(refused.headers.get('ratelimit')).toBe(`"agent-tools";r=0;t=${retryAfter}`)
    expect(await bodyOf(refused)).toEqual({
      jsonrpc: '2.0',
      id: 12,
      error: { code: -32000, message: expect.stringMatching(/^Rate limit exceeded\. Try again in \d+ (seconds?|minutes?)\.$/) as unknown },
    })

    // The SDK client still connects and lists (not tool calls), and sees the refused call as an error.
    const client = await connectAgent(limited, limitedOrg.apiKey)
    try {
      expect((await client.listTools()).tools).toHaveLength(10)
      await expect(client.callTool({ name: 'get_usage', arguments: {} })).rejects.toThrow(/429|Rate limit exceeded/)
    } finally {
      await client.close()
    }

    // The limit is the org's: another org's agent is still answered, and REST creates count elsewhere.
    const otherOrg = await setupOrg(limited)
    const theirs = await postMcp(limited, rpc(1, 'tools/call', { name: 'get_usage', arguments: {} }), { authorization: `Bearer ${otherOrg.apiKey}` })
    expect(theirs.status).toBe(200)
    expect(await bodyOf(theirs)).toMatchObject({ result: { structuredContent: { org_id: otherOrg.orgId } } })
    expect(await statusOf(postDocument(limited, limitedOrg.apiKey, { template_id: limitedOrg.templateId, signer: { email: uniqueEmail() } }))).toBe(201)
  })
})

describe('seal_document while every time-stamp authority is down', () => {
  let down: TestServer
  beforeAll(async () => {
    down = await startTestServer({
      timestampAuthority: {
        name: 'Unreachable TSA',
        timestamp: () => Promise.reject(new Error('connect ECONNREFUSED 127.0.0.1:9')),
      },
    })
  })
  afterAll(async () => {
    await down?.close()
  })

  test('seal_status "pending" with the reason, no badge yet, never an untimed seal', async () => {
    const waiting = await setupOrg(down)
    await verifyIdentity(down, waiting.orgId)
    const client = await connectAgent(down, waiting.apiKey)
    try {
      const { structured, result } = await agentSeal(client, { title: 'Waiting for time' })
      expect(structured).toMatchObject({ status: 'completed', seal_status: 'pending', sealed_at: null, sha256: null, timestamp_authority: null })
      expect(structured.last_error).toMatch(/ECONNREFUSED/)
      expect(structured.note).toMatch(/^Not sealed yet: .*ECONNREFUSED.*retried in the background/)
      expect(result.content.map((c) => c.type)).toEqual(['text'])
      const id = structured.document_id as string
      expect(await callError(client, 'get_badge_image', { document_id: id })).toBe("This document hasn't been sealed yet.")
      expect(await callError(client, 'get_signed_file', { document_id: id })).toBe("This document hasn't been sealed yet.")
    } finally {
      await client.close()
    }
  })
})

describe('agent-triggered', () => {
  const trailOf = (documentId: string) =>
    server.services.db
      .select({ type: auditEvents.type, agentTriggered: auditEvents.agentTriggered, authMethod: auditEvents.authMethod, actorName: auditEvents.actorName })
      .from(auditEvents)
      .where(eq(auditEvents.documentId, documentId))
      .orderBy(auditEvents.seq)

  test('documents created, voided and sealed over MCP are marked agent_triggered with auth_method api_key; REST ones are not', async () => {
    const { id } = await agentSend()
    await callOk(agent, 'void_document', { document_id: id })
    expect(await trailOf(id)).toEqual([
      { type: 'document.sent', agentTriggered: true, authMethod: 'api_key', actorName: 'Acme Agents' },
      { type: 'document.voided', agentTriggered: true, authMethod: 'api_key', actorName: 'Acme Agents' },
    ])

    const restId = await createSentDocument(server, org)
    expect(await statusOf(server.request(`/api/v1/documents/${restId}/void`, { method: 'POST', key: org.apiKey }))).toBe(200)
    expect(await trailOf(restId)).toEqual([
      { type: 'document.sent', agentTriggered: false, authMethod: 'api_key', actorName: 'Acme Agents' },
      { type: 'document.voided', agentTriggered: false, authMethod: 'api_key', actorName: 'Acme Agents' },
    ])

    // A REST-created document voided by an agent: only the void is the agent's.
    const mixed = await createSentDocument(server, org)
    await callOk(agent, 'void_document', { document_id: mixed })
    expect((await trailOf(mixed)).map((e) => [e.type, e.agentTriggered])).toEqual([
      ['document.sent', false],
      ['document.voided', true],
    ])

    const { structured } = await agentSeal(agent)
    expect((await trailOf(structured.document_id as string))[0]).toEqual({
      type: 'document.seal_requested',
      agentTriggered: true,
      authMethod: 'api_key',
      actorName: 'Acme Agents',
    })
  })

  test.runIf(haveTools('pdftotext'))('the signed PDF of an agent-created document says on its certificate page that an AI agent sent it', async () => {
    const { pdf } = await agentCompletedDocument()
    const text = runOnPdf(pdf, 'pdftotext', (file) => ['-enc', 'UTF-8', file, '-']).replace(/\s+/g, ' ')
    expect(text).toContain('An AI agent for')
    expect(text).toContain('An AI agent for Acme Agents, through the agent-tool endpoint (MCP) · API key')

    // A document sent over REST and signed the same way does not say so.
    const template = await server.createTemplate(org.orgId, { name: 'REST Agreement', fields: richFields([0]) })
    const email = uniqueEmail()
    const created = await postDocument(server, org.apiKey, { template_id: template.id, signer: { email } })
    expect(created.status).toBe(201)
    const { id } = await bodyOf<{ id: string }>(created)
    const [invitation] = await server.mail.waitFor(email)
    const signer = new SignerClient(server, tokenFromMail(invitation?.text), email)
    expect(await statusOf(signer.view())).toBe(200)
    expect(await statusOf(signer.finish(valuesFor(0)))).toBe(200)
    const { result } = await waitForSignedFile(agent, id)
    const restText = runOnPdf(resourceOf(result).bytes, 'pdftotext', (file) => ['-enc', 'UTF-8', file, '-']).replace(/\s+/g, ' ')
    expect(restText).toContain('Acme Agents · API key')
    expect(restText).not.toContain('AI agent')
  })
})
