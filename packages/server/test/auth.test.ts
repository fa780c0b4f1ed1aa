import { randomBytes, randomUUID } from 'node:crypto'
import { eq } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { executeAdminCommand } from '../src/admin/commands.ts'
import { apiKeys } from '../src/db/schema.ts'
import { sha256Hex } from '../src/lib/crypto.ts'
import { bodyOf, createSentDocument, expectError, setupOrg, type TestOrg } from './helpers/api.ts'
import { startTestServer, type TestServer } from './helpers/test-server.ts'

let server: TestServer
beforeAll(async () => {
  server = await startTestServer()
})
afterAll(() => server.close())

const INVALID_KEY = { error: 'Invalid API key.', code: 'invalid_api_key' }
const SOME_ID = '00000000-0000-4000-8000-000000000000'

/** Every /api/v1 route, with a body where the route takes one. */
const ROUTES: { method: string; path: string; json?: unknown }[] = [
  { method: 'POST', path: '/api/v1/documents', json: { template_id: SOME_ID, signer: { email: 'a@example.com' } } },
  { method: 'GET', path: '/api/v1/documents' },
  { method: 'GET', path: `/api/v1/documents/${SOME_ID}` },
  { method: 'POST', path: `/api/v1/documents/${SOME_ID}/void` },
  { method: 'GET', path: `/api/v1/documents/${SOME_ID}/signed-file` },
  { method: 'GET', path: `/api/v1/documents/${SOME_ID}/certificate` },
  { method: 'GET', path: `/api/v1/documents/${SOME_ID}/badge` },
  { method: 'GET', path: '/api/v1/templates' },
]
const routeName = (route: (typeof ROUTES)[number]) => `${route.method} ${route.path}`

const revoke = (orgId: string, apiKey: string) =>
  executeAdminCommand(server.services, { name: 'key.revoke', orgId, prefix: apiKey.slice(0, 'sgn_live_'.length + 8) })

describe('a missing key', () => {
  test.each(ROUTES.map((r) => [routeName(r), r] as const))('%s answers 401 asking for a bearer header', async (_name, route) => {
    const response = await server.request(route.path, { method: route.method, json: route.json })
    const text = await expectError(response, 401)
    expect(text).toMatch(/missing/i)
    expect(text).toMatch(/bearer/i)
  })

  test.each([
    ['an empty Authorization header', ''],
    ['a Bearer scheme without a key', 'Bearer '],
    ['another scheme', `Basic ${Buffer.from('user:pass').toString('base64')}`],
  ])('%s counts as missing', async (_name, authorization) => {
    const response = await server.request('/api/v1/templates', { headers: { authorization } })
    await expectError(response, 401, /missing.*bearer/i)
  })
})

describe('an invalid key', () => {
  test.each([
    ['an unknown well-formed key', `sgn_live_${randomBytes(32).toString('hex')}`],
    ['a malformed key', 'not-a-key'],
    ['a key without its prefix', randomBytes(32).toString('hex')],
  ])('%s answers exactly {"error":"Invalid API key.","code":"invalid_api_key"} on every route', async (_name, key) => {
    for (const route of ROUTES) {
      const response = await server.request(route.path, { method: route.method, key, json: route.json })
      expect({ route: routeName(route), status: response.status, body: await bodyOf(response) }).toEqual({
        route: routeName(route),
        status: 401,
        body: INVALID_KEY,
      })
    }
  })

  test('authentication happens before the body is validated', async () => {
    const response = await server.request('/api/v1/documents', { method: 'POST', key: 'sgn_live_nope', json: { nonsense: true } })
    expect(response.status).toBe(401)
    expect(await bodyOf(response)).toEqual(INVALID_KEY)
  })

  test('a revoked key is invalid, while the org’s other keys keep working', async () => {
    const org = await setupOrg(server)
    const { api_key: second } = (await executeAdminCommand(server.services, { name: 'key.create', orgId: org.orgId })) as { api_key: string }
    expect((await server.request('/api/v1/templates', { key: org.apiKey })).status).toBe(200)

    await revoke(org.orgId, org.apiKey)

    const revoked = await server.request('/api/v1/templates', { key: org.apiKey })
    expect(revoked.status).toBe(401)
    expect(await bodyOf(revoked)).toEqual(INVALID_KEY)
    expect((await server.request('/api/v1/templates', { key: second })).status).toBe(200)
  })
})

describe('keys', () => {
  test('start with sgn_live_ and are accepted as a bearer header', async () => {
    const org = await setupOrg(server)
    expect(org.apiKey).toMatch(/^sgn_live_[0-9a-f]{64}$/)
    const response = await server.request('/api/v1/templates', { headers: { authorization: `Bearer ${org.apiKey}` } })
    expect(response.status).toBe(200)
  })

  test('are stored only as their SHA-256 hash', async () => {
    const org = await setupOrg(server)
    const rows = await server.services.db.select().from(apiKeys).where(eq(apiKeys.orgId, org.orgId))
    expect(rows).toHaveLength(1)
    const [row] = rows
    expect(row?.keyHash).toBe(sha256Hex(org.apiKey))
    // No column holds the key, nor its secret part.
    const stored = JSON.stringify(rows)
    expect(stored).not.toContain(org.apiKey)
    expect(stored).not.toContain(org.apiKey.slice('sgn_live_'.length + 8))
  })
})

describe('org scoping', () => {
  let owner: TestOrg
  let stranger: TestOrg
  let documentId: string
  beforeAll(async () => {
    owner = await setupOrg(server)
    stranger = await setupOrg(server)
    documentId = await createSentDocument(server, owner)
  })

  test.each(['', '/signed-file', '/certificate', '/badge'])("GET another org's document%s answers exactly like a missing one", async (suffix) => {
    const foreign = await server.request(`/api/v1/documents/${documentId}${suffix}`, { key: stranger.apiKey })
    const missing = await server.request(`/api/v1/documents/${randomUUID()}${suffix}`, { key: stranger.apiKey })
    expect(foreign.status).toBe(404)
    expect(missing.status).toBe(404)
    expect(await bodyOf(foreign)).toEqual(await bodyOf(missing))
  })

  test("another org's document cannot be voided, and stays sent", async () => {
    const foreign = await server.request(`/api/v1/documents/${documentId}/void`, { method: 'POST', key: stranger.apiKey })
    const missing = await server.request(`/api/v1/documents/${randomUUID()}/void`, { method: 'POST', key: stranger.apiKey })
    expect(foreign.status).toBe(404)
    expect(await bodyOf(foreign)).toEqual(await bodyOf(missing))
    const read = await server.request(`/api/v1/documents/${documentId}`, { key: owner.apiKey })
    expect(await bodyOf(read)).toMatchObject({ status: 'sent' })
  })

  test("lists show only the key's own org", async () => {
    const documents = await bodyOf<{ documents: { id: string }[]; total: number }>(await server.request('/api/v1/documents', { key: stranger.apiKey }))
    expect(documents).toMatchObject({ documents: [], total: 0 })
    const templates = await bodyOf<{ templates: { id: string }[] }>(await server.request('/api/v1/templates', { key: stranger.apiKey }))
    expect(templates.templates.map((t) => t.id)).toEqual([stranger.templateId])
  })
})
