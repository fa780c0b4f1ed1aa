import { eq } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { executeAdminCommand } from '../src/admin/commands.ts'
import { KEY_USE_PRECISION_MS, KeyUses } from '../src/api-keys/key-uses.ts'
import { apiKeys } from '../src/db/schema.ts'
import { bodyOf, expectError, type Json } from './helpers/api.ts'
import { createSignedInUser, type SignedInUser } from './helpers/session.ts'
import { startTestServer, type TestServer } from './helpers/test-server.ts'

/*
 * Settings → Integration and API: named keys created, listed and revoked through a dashboard
 * session (owners and admins only); a revoked key is refused at once; last use is recorded.
 */

let server: TestServer
let owner: SignedInUser

beforeAll(async () => {
  server = await startTestServer()
  owner = await createSignedInUser(server.services, { name: 'Olive Owner', baseUrl: server.url })
})
afterAll(async () => {
  await server?.close()
})

interface CreatedKey {
  id: string
  name: string
  prefix: string
  api_key: string
  scopes: string[]
  created_at: string
}

async function createKey(user: SignedInUser, name = 'CRM integration'): Promise<CreatedKey> {
  const response = await user.fetch('/api/v1/keys', { method: 'POST', json: { name } })
  expect(response.status).toBe(201)
  return bodyOf<CreatedKey>(response)
}

async function listKeys(user: SignedInUser): Promise<Json[]> {
  const response = await user.fetch('/api/v1/keys')
  expect(response.status).toBe(200)
  return (await bodyOf<{ keys: Json[] }>(response)).keys
}

const useKey = (apiKey: string) => server.request('/api/v1/templates', { key: apiKey })

async function waitFor<T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const value = await read()
    if (done(value) || Date.now() > deadline) return value
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
}

describe('named keys from the dashboard', () => {
  test('create shows the key once; it works; the list names it by prefix and creator, never with the key', async () => {
    const created = await createKey(owner, '  CRM   integration ')
    expect(created).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/) as unknown,
      name: 'CRM integration',
      prefix: created.api_key.slice(0, 17),
      api_key: expect.stringMatching(/^sgn_live_[0-9a-f]{64}$/) as unknown,
      scopes: ['read', 'write'],
      created_at: expect.any(String) as unknown,
    })
    expect((await useKey(created.api_key)).status).toBe(200)

    // last_used_at: its own test below (written by a background flush, so null or a time here).
    const listed = (await listKeys(owner)).find((key) => key.id === created.id)
    expect({ ...listed, last_used_at: undefined }).toEqual({
      id: created.id,
      name: 'CRM integration',
      prefix: created.prefix,
      scopes: ['read', 'write'],
      created_at: created.created_at,
      revoked_at: null,
      created_by: { name: 'Olive Owner', email: owner.email },
    })
    expect(JSON.stringify(await listKeys(owner))).not.toContain(created.api_key)
  })

  test('revoke: the key gets 401 at once, the list shows when; revoking again changes nothing', async () => {
    const created = await createKey(owner, 'to revoke')
    expect((await useKey(created.api_key)).status).toBe(200) // now cached by this process
    const revoked = await owner.fetch(`/api/v1/keys/${created.id}`, { method: 'DELETE' })
    expect(revoked.status).toBe(204)
    expect(await revoked.text()).toBe('')
    await expectError(await useKey(created.api_key), 401, 'Invalid API key.')

    const listed = (await listKeys(owner)).find((key) => key.id === created.id)
    expect(Date.parse(listed?.revoked_at as string)).toBeGreaterThan(Date.parse(created.created_at) - 1)
    expect((await owner.fetch(`/api/v1/keys/${created.id}`, { method: 'DELETE' })).status).toBe(204)
    expect((await listKeys(owner)).find((key) => key.id === created.id)?.revoked_at).toBe(listed?.revoked_at)
  })

  test('keys made by the CLI are listed without name or creator, and the CLI still revokes by prefix', async () => {
    const { api_key } = (await executeAdminCommand(server.services, { name: 'key.create', orgId: owner.orgId })) as { api_key: string }
    const listed = (await listKeys(owner)).find((key) => key.prefix === api_key.slice(0, 17))
    expect(listed).toMatchObject({ name: null, created_by: null, revoked_at: null })
    await executeAdminCommand(server.services, { name: 'key.revoke', orgId: owner.orgId, prefix: api_key.slice(0, 17) })
    await expectError(await useKey(api_key), 401, 'Invalid API key.')
  })

  test('last_used_at is written shortly after a use, then at most once a minute', async () => {
    const created = await createKey(owner, 'usage')
    expect((await listKeys(owner)).find((key) => key.id === created.id)?.last_used_at).toBeNull()
    expect((await useKey(created.api_key)).status).toBe(200)
    const lastUsed = async () => (await listKeys(owner)).find((key) => key.id === created.id)?.last_used_at
    const first = await waitFor(lastUsed, (value) => value !== null)
    expect(typeof first).toBe('string')
    expect(Math.abs(Date.parse(first as string) - Date.now())).toBeLessThan(30_000)

    expect((await useKey(created.api_key)).status).toBe(200)
    await new Promise((resolve) => setTimeout(resolve, 1_500)) // past a flush
    expect(await lastUsed()).toBe(first)
  })
})

describe('who may manage keys', () => {
  test('an admin may; a member gets 403 on list, create and revoke', async () => {
    const admin = await createSignedInUser(server.services, { orgId: owner.orgId, role: 'admin', baseUrl: server.url })
    const member = await createSignedInUser(server.services, { orgId: owner.orgId, role: 'member', baseUrl: server.url })
    const made = await createKey(admin, 'made by an admin')
    expect((await listKeys(owner)).find((key) => key.id === made.id)?.created_by).toEqual({ name: admin.name, email: admin.email })

    const forbidden = "Only the workspace's owners and admins can manage API keys."
    await expectError(await member.fetch('/api/v1/keys'), 403, forbidden)
    await expectError(await member.fetch('/api/v1/keys', { method: 'POST', json: { name: 'x' } }), 403, forbidden)
    await expectError(await member.fetch(`/api/v1/keys/${made.id}`, { method: 'DELETE' }), 403, forbidden)
    expect((await useKey(made.api_key)).status).toBe(200)
  })

  test("another workspace's key is a 404 and keeps working; it is not in this workspace's list", async () => {
    const stranger = await createSignedInUser(server.services, { baseUrl: server.url })
    const theirs = await createKey(stranger, 'theirs')
    await expectError(await owner.fetch(`/api/v1/keys/${theirs.id}`, { method: 'DELETE' }), 404, 'No such API key in this workspace.')
    expect((await useKey(theirs.api_key)).status).toBe(200)
    expect((await listKeys(owner)).map((key) => key.id)).not.toContain(theirs.id)
    const [row] = await server.services.db.select({ revokedAt: apiKeys.revokedAt }).from(apiKeys).where(eq(apiKeys.id, theirs.id))
    expect(row?.revokedAt).toBeNull()
  })

  test('an API key cannot manage keys: 401', async () => {
    const created = await createKey(owner, 'a key')
    await expectError(await server.request('/api/v1/keys', { key: created.api_key }), 401, /Sign in to the dashboard/)
    await expectError(await server.request('/api/v1/keys', { key: created.api_key, method: 'POST', json: { name: 'x' } }), 401, /Sign in to the dashboard/)
    await expectError(await server.request(`/api/v1/keys/${created.id}`, { key: created.api_key, method: 'DELETE' }), 401, /Sign in to the dashboard/)
    expect((await useKey(created.api_key)).status).toBe(200)
  })

  test('a cross-site POST (foreign Origin) creates nothing: 403', async () => {
    const before = (await listKeys(owner)).length
    const response = await owner.fetch('/api/v1/keys', { method: 'POST', json: { name: 'csrf' }, headers: { origin: 'https://evil.example' } })
    expect(response.status).toBe(403)
    expect((await listKeys(owner)).length).toBe(before)
  })
})

describe('bad input: 4xx {error}', () => {
  test.each([
    ['no body', undefined, 400],
    ['an empty name', { name: '' }, 400],
    ['a blank name', { name: '   ' }, 400],
    ['a name of 101 characters', { name: 'x'.repeat(101) }, 400],
    ['a name that is not a string', { name: 5 }, 400],
    ['an unknown field', { name: 'x', scope: 'all' }, 400],
    ['a control character', { name: 'a\u0000b' }, 400],
  ])('POST /keys with %s', async (_label, body, status) => {
    await expectError(await owner.fetch('/api/v1/keys', { method: 'POST', ...(body !== undefined ? { json: body } : {}) }), status)
  })

  test('DELETE /keys with an id that is not a UUID, or unknown: 404', async () => {
    await expectError(await owner.fetch('/api/v1/keys/not-a-uuid', { method: 'DELETE' }), 404, 'No such API key in this workspace.')
    await expectError(await owner.fetch('/api/v1/keys/00000000-0000-4000-8000-000000000000', { method: 'DELETE' }), 404)
  })
})

describe('KeyUses', () => {
  test('a key is noted once per minute; take() empties the batch', () => {
    let now = 0
    const uses = new KeyUses(() => now)
    uses.note('a')
    uses.note('a')
    uses.note('b')
    expect(uses.take().sort()).toEqual(['a', 'b'])
    expect(uses.take()).toEqual([])
    now += KEY_USE_PRECISION_MS - 1
    uses.note('a')
    expect(uses.take()).toEqual([])
    now += 1
    uses.note('a')
    expect(uses.take()).toEqual(['a'])
  })
})
