import { randomUUID } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { bodyOf, expectError, type Json } from './helpers/api.ts'
import { createSignedInUser, sessionCookieOf, sessionFetch, type SignedInUser } from './helpers/session.ts'
import { startTestServer, type TestServer } from './helpers/test-server.ts'

/*
 * The Operator area: orgs and users (search, paging), plans, credit packs, disabling and
 * promoting users — for instance operators only.
 */

let server: TestServer
let operator: SignedInUser
let owner: SignedInUser
/** Unique per run, so searches on a shared PostgreSQL find only this file's rows. */
const tag = randomUUID().slice(0, 8)

beforeAll(async () => {
  server = await startTestServer()
  operator = await createSignedInUser(server.services, { name: `Otto Operator ${tag}`, isOperator: true, baseUrl: server.url })
  owner = await createSignedInUser(server.services, { name: `Olive ${tag}`, baseUrl: server.url })
})
afterAll(async () => {
  await server?.close()
})

const orgsMatching = async (search: string, extra = ''): Promise<{ orgs: Json[]; total: number; limit: number; offset: number }> => {
  const response = await operator.fetch(`/api/v1/operator/orgs?search=${encodeURIComponent(search)}${extra}`)
  expect(response.status).toBe(200)
  return bodyOf(response)
}

const usersMatching = async (search: string): Promise<Json[]> => {
  const response = await operator.fetch(`/api/v1/operator/users?search=${encodeURIComponent(search)}`)
  expect(response.status).toBe(200)
  return (await bodyOf<{ users: Json[] }>(response)).users
}

describe('orgs', () => {
  test('search by name (any case) with members, plan, identity status and credits; paging with a total', async () => {
    const admin = await createSignedInUser(server.services, { orgId: owner.orgId, role: 'admin', baseUrl: server.url })
    expect(admin.orgId).toBe(owner.orgId)
    const found = await orgsMatching(`olive ${tag}`.toUpperCase())
    expect(found).toEqual({
      orgs: [
        {
          id: owner.orgId,
          name: `Olive ${tag}'s workspace`,
          plan: 'free',
          created_at: expect.any(String) as unknown,
          members: 2,
          identity_status: 'none',
          credit_balance: 0,
        },
      ],
      total: 1,
      limit: 50,
      offset: 0,
    })
    expect((await orgsMatching(owner.orgId)).orgs.map((org) => org.id)).toEqual([owner.orgId])

    for (const n of [1, 2, 3]) await server.createOrg('free', `Paging ${tag} ${n}`)
    const firstPage = await orgsMatching(`paging ${tag}`, '&limit=2')
    expect(firstPage.total).toBe(3)
    expect(firstPage.orgs.map((org) => org.name)).toEqual([`Paging ${tag} 3`, `Paging ${tag} 2`])
    expect((await orgsMatching(`paging ${tag}`, '&limit=2&offset=2')).orgs.map((org) => org.name)).toEqual([`Paging ${tag} 1`])
  })

  test('% and _ in a search are literal characters', async () => {
    await server.createOrg('free', `Percent ${tag} 100%`)
    expect((await orgsMatching(`${tag} 100%`)).orgs.map((org) => org.name)).toEqual([`Percent ${tag} 100%`])
    expect((await orgsMatching(`${tag}%`)).total).toBe(0)
    expect((await orgsMatching(`Percent_${tag}`)).total).toBe(0)
  })

  test('set the plan: the org and its keys move at once', async () => {
    const { orgId, apiKey } = await server.createOrg('free', `Plan ${tag}`)
    // Webhooks need Pro or higher; the key's principal (with its plan) is now cached.
    const addWebhook = () => server.request('/api/v1/webhooks', { key: apiKey, method: 'POST', json: { url: 'http://127.0.0.1:9/hook' } })
    expect((await addWebhook()).status).toBe(402)
    const response = await operator.fetch(`/api/v1/operator/orgs/${orgId}/plan`, { method: 'PUT', json: { plan: 'team' } })
    expect(response.status).toBe(200)
    expect(await bodyOf(response)).toEqual({ org_id: orgId, plan: 'team' })
    expect((await orgsMatching(`Plan ${tag}`)).orgs[0]).toMatchObject({ id: orgId, plan: 'team' })
    const afterUpgrade = await addWebhook()
    expect(afterUpgrade.status).not.toBe(402)
    expect(afterUpgrade.status).toBeLessThan(500)
  })

  test('grant credit packs: 25 credits each, shown in the list', async () => {
    const { orgId } = await server.createOrg('free', `Credits ${tag}`)
    const response = await operator.fetch(`/api/v1/operator/orgs/${orgId}/credits`, { method: 'POST', json: { packs: 2 } })
    expect(response.status).toBe(200)
    expect(await bodyOf(response)).toEqual({ org_id: orgId, credits_granted: 50, credit_balance: 50 })
    expect((await orgsMatching(`Credits ${tag}`)).orgs[0]).toMatchObject({ credit_balance: 50 })
  })

  test('bad input: 4xx {error}', async () => {
    const unknown = '00000000-0000-4000-8000-000000000000'
    await expectError(await operator.fetch(`/api/v1/operator/orgs/${owner.orgId}/plan`, { method: 'PUT', json: { plan: 'platinum' } }), 400)
    await expectError(await operator.fetch(`/api/v1/operator/orgs/${unknown}/plan`, { method: 'PUT', json: { plan: 'pro' } }), 404, `Org ${unknown} not found.`)
    await expectError(await operator.fetch('/api/v1/operator/orgs/nope/plan', { method: 'PUT', json: { plan: 'pro' } }), 404)
    await expectError(await operator.fetch(`/api/v1/operator/orgs/${owner.orgId}/credits`, { method: 'POST', json: { packs: 0 } }), 400)
    await expectError(await operator.fetch(`/api/v1/operator/orgs/${owner.orgId}/credits`, { method: 'POST', json: { packs: 1001 } }), 400)
    await expectError(await operator.fetch(`/api/v1/operator/orgs/${owner.orgId}/credits`, { method: 'POST', json: { packs: '2' } }), 400)
    await expectError(await operator.fetch(`/api/v1/operator/orgs/${unknown}/credits`, { method: 'POST', json: { packs: 1 } }), 404)
    await expectError(await operator.fetch('/api/v1/operator/orgs?limit=0'), 400)
    await expectError(await operator.fetch('/api/v1/operator/orgs?limit=1e309'), 400)
    await expectError(await operator.fetch('/api/v1/operator/orgs?offset=-1'), 400)
    await expectError(await operator.fetch(`/api/v1/operator/orgs?search=${'x'.repeat(201)}`), 400)
    await expectError(await operator.fetch('/api/v1/operator/users?sort=name'), 400)
  })
})

describe('users', () => {
  test('search by e-mail or name, with workspaces and roles', async () => {
    const [byEmail] = await usersMatching(owner.email.toUpperCase())
    expect(byEmail).toEqual({
      id: owner.userId,
      email: owner.email,
      name: `Olive ${tag}`,
      is_operator: false,
      disabled: false,
      email_verified: true,
      two_factor: false,
      created_at: expect.any(String) as unknown,
      workspaces: [{ id: owner.orgId, name: `Olive ${tag}'s workspace`, role: 'owner' }],
    })
    expect((await usersMatching(`otto operator ${tag}`)).map((user) => user.id)).toEqual([operator.userId])
  })

  test('disable ends their sessions and sign-in at once; enable lets them sign in again', async () => {
    const person = await createSignedInUser(server.services, { baseUrl: server.url })
    expect((await person.fetch('/api/v1/me')).status).toBe(200)

    const disabled = await operator.fetch(`/api/v1/operator/users/${person.userId}/disable`, { method: 'POST' })
    expect(disabled.status).toBe(200)
    expect(await bodyOf(disabled)).toMatchObject({ id: person.userId, disabled: true })
    expect((await person.fetch('/api/v1/me')).status).toBe(401)
    const logIn = () => sessionFetch(server.url, '')('/api/v1/auth/login', { method: 'POST', json: { email: person.email, password: person.password } })
    expect((await logIn()).status).toBeGreaterThanOrEqual(400)

    const enabled = await operator.fetch(`/api/v1/operator/users/${person.userId}/enable`, { method: 'POST' })
    expect(await bodyOf(enabled)).toMatchObject({ id: person.userId, disabled: false })
    const again = await logIn()
    expect(again.status).toBe(200)
    const cookie = sessionCookieOf(again)
    expect(cookie).toBeDefined()
    expect((await sessionFetch(server.url, cookie ?? '')('/api/v1/me')).status).toBe(200)
  })

  test('an operator cannot disable themselves', async () => {
    await expectError(
      await operator.fetch(`/api/v1/operator/users/${operator.userId}/disable`, { method: 'POST' }),
      409,
      'You cannot disable your own account.',
    )
    expect((await operator.fetch('/api/v1/operator/orgs')).status).toBe(200)
  })

  test('promote: the user is an operator from their next request', async () => {
    const person = await createSignedInUser(server.services, { baseUrl: server.url })
    await expectError(await person.fetch('/api/v1/operator/orgs'), 403)
    const promoted = await operator.fetch(`/api/v1/operator/users/${person.userId}/promote`, { method: 'POST' })
    expect(promoted.status).toBe(200)
    expect(await bodyOf(promoted)).toMatchObject({ id: person.userId, is_operator: true })
    expect((await person.fetch('/api/v1/operator/orgs')).status).toBe(200)
  })

  test('unknown or malformed user ids: 404', async () => {
    for (const action of ['disable', 'enable', 'promote']) {
      await expectError(await operator.fetch(`/api/v1/operator/users/00000000-0000-4000-8000-000000000000/${action}`, { method: 'POST' }), 404, 'No such user.')
      await expectError(await operator.fetch(`/api/v1/operator/users/nope/${action}`, { method: 'POST' }), 404, 'No such user.')
    }
  })
})

describe('operators only', () => {
  const routes: [string, string, unknown?][] = [
    ['GET', '/api/v1/operator/orgs'],
    ['GET', '/api/v1/operator/users'],
    ['PUT', '/api/v1/operator/orgs/ORG/plan', { plan: 'business' }],
    ['POST', '/api/v1/operator/orgs/ORG/credits', { packs: 1 }],
    ['GET', '/api/v1/operator/identity-checks'],
    ['POST', '/api/v1/operator/users/USER/disable'],
    ['POST', '/api/v1/operator/users/USER/enable'],
    ['POST', '/api/v1/operator/users/USER/promote'],
  ]
  const pathFor = (path: string) => path.replace('ORG', owner.orgId).replace('USER', owner.userId)

  test.each(routes)('%s %s: 403 for an owner, 401 for an API key; nothing changes', async (method, path, json) => {
    await expectError(await owner.fetch(pathFor(path), { method, ...(json !== undefined ? { json } : {}) }), 403, 'Only the instance operator can do this.')
    const { apiKey } = await server.createOrg('business')
    await expectError(await server.request(pathFor(path), { method, key: apiKey, ...(json !== undefined ? { json } : {}) }), 401)
    expect((await orgsMatching(owner.orgId)).orgs[0]).toMatchObject({ plan: 'free', credit_balance: 0 })
    expect((await usersMatching(owner.email))[0]).toMatchObject({ is_operator: false, disabled: false })
  })
})
