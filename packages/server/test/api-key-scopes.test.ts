import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { bodyOf, createSentDocument, postDocument, setupOrg, uniqueEmail, type Json, type TestOrg } from './helpers/api.ts'
import { callErrorResult, callOk, connectAgent, TOOL_NAMES } from './helpers/mcp.ts'
import { makePdf } from './helpers/pdf.ts'
import { createSignedInUser, type SignedInUser } from './helpers/session.ts'
import { startTestServer, type TestServer } from './helpers/test-server.ts'

/*
 * Issue 20's scopes on API keys: a read-only key reads documents and usage but every request that
 * changes something is 403 insufficient_scope, over REST (by method) and over MCP (the tools it is
 * shown, and a tool error for the others); read-write keys, and keys made before scopes, do everything.
 */

let server: TestServer
let org: TestOrg
let owner: SignedInUser
/** Made in the dashboard with scopes ["read"]. */
let readOnlyKey: string
/** Made in the dashboard with scopes ["read", "write"]. */
let readWriteKey: string
/** A document of the org, sent with the org's first key. */
let documentId: string

const createKey = (json: unknown) => owner.fetch('/api/v1/keys', { method: 'POST', json })

async function keyWith(scopes?: string[]): Promise<{ api_key: string; scopes: string[] }> {
  const response = await createKey({ name: `Key ${scopes?.join('+') ?? 'default'}`, ...(scopes ? { scopes } : {}) })
  expect(response.status).toBe(201)
  return bodyOf(response)
}

beforeAll(async () => {
  server = await startTestServer({ env: { WEBHOOK_ALLOW_PRIVATE: 'true' } })
  org = await setupOrg(server, { name: 'Acme Scopes' })
  owner = await createSignedInUser(server, { orgId: org.orgId, role: 'owner', name: 'Olive Owner' })
  readOnlyKey = (await keyWith(['read'])).api_key
  readWriteKey = (await keyWith(['read', 'write'])).api_key
  documentId = await createSentDocument(server, org)
})
afterAll(async () => {
  await server?.close()
})

const as = (key: string, path: string, init: RequestInit & { json?: unknown } = {}) => server.request(path, { ...init, key })

describe('creating and listing keys with scopes', () => {
  test("scopes default to read and write; the list names each key's scopes, the operator's first key included", async () => {
    expect((await keyWith()).scopes).toEqual(['read', 'write'])
    expect((await keyWith(['read'])).scopes).toEqual(['read'])

    const response = await owner.fetch('/api/v1/keys')
    expect(response.status).toBe(200)
    const { keys } = await bodyOf<{ keys: Json[] }>(response)
    // Keys made in the same millisecond have no fixed order: compared sorted.
    expect(keys.map((key) => JSON.stringify([key.name, key.scopes])).sort()).toEqual(
      [
        ['Key read', ['read']],
        ['Key default', ['read', 'write']],
        ['Key read+write', ['read', 'write']],
        ['Key read', ['read']],
        [null, ['read', 'write']],
      ]
        .map((entry) => JSON.stringify(entry))
        .sort(),
    )
  })

  test.each([
    ['an unknown scope', ['read', 'admin'], '/scopes/1'],
    ['no scope', [], '/scopes'],
    ['a scope twice', ['read', 'read'], '/scopes'],
    ['a string', 'read', '/scopes'],
    ['a number in the list', [1], '/scopes/0'],
    ['write without read', ['write'], '/scopes'],
  ])('%s is 400 validation_failed at its field', async (_case, scopes, field) => {
    const response = await createKey({ name: 'Bad scopes', scopes })
    expect({ status: response.status, body: await bodyOf(response) }).toEqual({
      status: 400,
      body: { error: expect.stringContaining('scopes') as unknown, code: 'validation_failed', field },
    })
  })
})

describe('REST: the method decides the scope', () => {
  test('a read-only key reads documents, templates, webhooks and usage', async () => {
    for (const path of [
      '/api/v1/documents',
      `/api/v1/documents/${documentId}`,
      `/api/v1/documents/${documentId}/audit`,
      '/api/v1/templates',
      '/api/v1/webhooks',
      '/api/v1/usage',
    ]) {
      expect((await as(readOnlyKey, path)).status, path).toBe(200)
    }
  })

  // The key is in this process's principal cache by now: its scopes are cached with its org.
  test('a read-only key is refused every change with 403 insufficient_scope, before its body is looked at, and nothing changes', async () => {
    const document = await bodyOf<{ signers: { id: string }[] }>(await as(org.apiKey, `/api/v1/documents/${documentId}`))
    const signerId = document.signers[0]?.id ?? ''
    const webhook = await bodyOf<{ id: string }>(await as(org.apiKey, '/api/v1/webhooks', { method: 'POST', json: { url: 'http://127.0.0.1:9/hook' } }))
    const pdf = { headers: { 'content-type': 'application/pdf' }, body: Buffer.from(await makePdf(1)) }
    const changes: [string, string, RequestInit & { json?: unknown }][] = [
      ['POST', '/api/v1/documents', { json: { template_id: org.templateId, signer: { email: uniqueEmail() } } }],
      ['POST', `/api/v1/documents/${documentId}/void`, {}],
      ['POST', `/api/v1/documents/${documentId}/signers/${signerId}/resend`, {}],
      ['POST', '/api/v1/documents/bulk-send', { json: {} }],
      ['POST', '/api/v1/seals', pdf],
      ['POST', '/api/v1/templates', pdf],
      ['PUT', `/api/v1/templates/${org.templateId}/fields`, { json: { fields: [] } }],
      ['PATCH', `/api/v1/templates/${org.templateId}`, { json: { name: 'Renamed' } }],
      ['POST', `/api/v1/templates/${org.templateId}/duplicate`, {}],
      ['DELETE', `/api/v1/templates/${org.templateId}`, {}],
      ['POST', '/api/v1/webhooks', { json: { url: 'http://127.0.0.1:9/other' } }],
      ['PATCH', `/api/v1/webhooks/${webhook.id}`, { json: { enabled: false } }],
      ['POST', `/api/v1/webhooks/${webhook.id}/rotate-secret`, {}],
      ['POST', `/api/v1/webhooks/${webhook.id}/test`, {}],
      ['DELETE', `/api/v1/webhooks/${webhook.id}`, {}],
      ['PUT', '/api/v1/billing/spend-cap', { json: { spend_cap_cents: 100 } }],
    ]
    for (const [method, path, init] of changes) {
      const response = await as(readOnlyKey, path, { method, ...init })
      const route = path.replace(documentId, ':id').replace(signerId, ':signerId').replace(org.templateId, ':id').replace(webhook.id, ':id')
      expect({ status: response.status, body: await bodyOf(response) }, `${method} ${path}`).toEqual({
        status: 403,
        body: { error: `This API key is read-only: ${method} ${route} needs the write scope.`, code: 'insufficient_scope' },
      })
    }

    expect(await bodyOf(await as(readOnlyKey, `/api/v1/documents/${documentId}`))).toMatchObject({ status: 'sent' })
    expect(await bodyOf(await as(readOnlyKey, `/api/v1/templates/${org.templateId}`))).toMatchObject({ id: org.templateId, name: 'Test Agreement' })
    const { webhooks } = await bodyOf<{ webhooks: Json[] }>(await as(readOnlyKey, '/api/v1/webhooks'))
    expect(webhooks).toEqual([expect.objectContaining({ id: webhook.id, enabled: true }) as unknown])
  })

  test("a read-write key and a key made before scopes (the operator's) send, manage and void", async () => {
    for (const key of [readWriteKey, org.apiKey]) {
      const created = await postDocument(server, key, { template_id: org.templateId, signer: { email: uniqueEmail() } })
      expect(created.status).toBe(201)
      const { id } = await bodyOf<{ id: string }>(created)
      const { signers } = await bodyOf<{ signers: { id: string }[] }>(await as(key, `/api/v1/documents/${id}`))
      expect((await as(key, `/api/v1/documents/${id}/signers/${signers[0]?.id ?? ''}/resend`, { method: 'POST' })).status).toBe(202)
      expect((await as(key, `/api/v1/documents/${id}/void`, { method: 'POST' })).status).toBe(200)

      const duplicate = await as(key, `/api/v1/templates/${org.templateId}/duplicate`, { method: 'POST' })
      expect(duplicate.status).toBe(201)
      expect((await as(key, `/api/v1/templates/${(await bodyOf<{ id: string }>(duplicate)).id}`, { method: 'DELETE' })).status).toBe(204)

      const webhook = await as(key, '/api/v1/webhooks', { method: 'POST', json: { url: 'http://127.0.0.1:9/rw' } })
      expect(webhook.status).toBe(201)
      expect((await as(key, `/api/v1/webhooks/${(await bodyOf<{ id: string }>(webhook)).id}`, { method: 'DELETE' })).status).toBe(200)
    }
  })

  test('the dashboard (a session) is unaffected', async () => {
    const response = await owner.fetch('/api/v1/documents', { method: 'POST', json: { template_id: org.templateId, signer: { email: uniqueEmail() } } })
    expect(response.status).toBe(201)
  })
})

describe('MCP: the tools a key is shown and may call', () => {
  const READ_TOOLS = ['list_templates', 'get_document_status', 'list_documents', 'get_signed_file', 'get_certificate_file', 'get_badge_image', 'get_usage']

  test('a read-only key lists exactly the seven read tools and may call them', async () => {
    const agent = await connectAgent(server, readOnlyKey)
    try {
      expect((await agent.listTools()).tools.map((tool) => tool.name)).toEqual(READ_TOOLS)
      const { structured } = await callOk<{ status: string }>(agent, 'get_document_status', { document_id: documentId })
      expect(structured.status).toBe('sent')
    } finally {
      await agent.close()
    }
  })

  test('a read-only key calling a write tool gets a tool error insufficient_scope, and nothing is sent or voided', async () => {
    const agent = await connectAgent(server, readOnlyKey)
    try {
      const created = await callErrorResult(agent, 'create_and_send_document', { template_id: org.templateId, signer: { email: uniqueEmail() } })
      const message = 'This API key is read-only: the tool create_and_send_document needs the write scope.'
      expect(created).toEqual({ text: message, body: { error: message, code: 'insufficient_scope' } })
      // Refused for its scope before its arguments are checked.
      expect((await callErrorResult(agent, 'void_document', {})).body.code).toBe('insufficient_scope')
      expect((await callErrorResult(agent, 'seal_document', {})).body.code).toBe('insufficient_scope')
      expect((await callErrorResult(agent, 'no_such_tool', {})).body).toEqual({
        error: `Unknown tool "no_such_tool". The tools are: ${READ_TOOLS.join(', ')}.`,
        code: 'not_found',
      })
    } finally {
      await agent.close()
    }
    expect(await bodyOf(await as(readOnlyKey, `/api/v1/documents/${documentId}`))).toMatchObject({ status: 'sent' })
  })

  test('a read-write key and an older key list all ten tools', async () => {
    for (const key of [readWriteKey, org.apiKey]) {
      const agent = await connectAgent(server, key)
      try {
        expect((await agent.listTools()).tools.map((tool) => tool.name)).toEqual(TOOL_NAMES)
      } finally {
        await agent.close()
      }
    }
  })

  test('each tool needs read exactly when it only reads (its readOnlyHint)', async () => {
    const agent = await connectAgent(server, readWriteKey)
    try {
      const { tools } = await agent.listTools()
      expect(tools.filter((tool) => tool.annotations?.readOnlyHint).map((tool) => tool.name)).toEqual(READ_TOOLS)
    } finally {
      await agent.close()
    }
  })
})
