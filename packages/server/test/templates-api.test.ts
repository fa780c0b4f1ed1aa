import { randomUUID } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { bodyOf, expectError, setupOrg } from './helpers/api.ts'
import { startTestServer, type TestServer } from './helpers/test-server.ts'

let server: TestServer
beforeAll(async () => {
  server = await startTestServer()
})
afterAll(() => server.close())

interface TemplateList {
  templates: { id: string; name: string; page_count: number; created_at: string }[]
  total: number
  limit: number
  offset: number
  has_more: boolean
  org_name: string | null
}

const list = async (apiKey: string, query = ''): Promise<TemplateList> => {
  const response = await server.request(`/api/v1/templates${query}`, { key: apiKey })
  expect(response.status).toBe(200)
  return bodyOf<TemplateList>(response)
}

/** A fresh org with no templates yet. */
const bareOrg = async (name = `Acme ${randomUUID().slice(0, 8)}`) => ({ name, ...(await server.createOrg('business', name)) })

describe('GET /api/v1/templates', () => {
  test('an org without templates: empty list, defaults limit 500 and offset 0, and the org name', async () => {
    const org = await bareOrg()
    expect(await list(org.apiKey)).toEqual({ templates: [], total: 0, limit: 500, offset: 0, has_more: false, org_name: org.name })
  })

  test('items are exactly {id, name, page_count, created_at, roles}, newest first', async () => {
    const org = await bareOrg()
    const older = await server.createTemplate(org.orgId, { name: 'NDA', pages: 1 })
    const newer = await server.createTemplate(org.orgId, { name: 'Master services agreement', pages: 3 })
    const body = await list(org.apiKey)
    expect(body).toMatchObject({ total: 2, limit: 500, offset: 0, has_more: false, org_name: org.name })
    expect(body.templates).toEqual([
      { id: newer.id, name: 'Master services agreement', page_count: 3, created_at: expect.stringMatching(/Z$/) as unknown, roles: [0] },
      { id: older.id, name: 'NDA', page_count: 1, created_at: expect.stringMatching(/Z$/) as unknown, roles: [0] },
    ])
  })

  test('limit and offset page through the list', async () => {
    const org = await bareOrg()
    const created: string[] = []
    for (const name of ['One', 'Two', 'Three']) created.push((await server.createTemplate(org.orgId, { name })).id)
    const newestFirst = created.reverse()

    const first = await list(org.apiKey, '?limit=2')
    expect(first).toMatchObject({ total: 3, limit: 2, offset: 0, has_more: true })
    expect(first.templates.map((t) => t.id)).toEqual(newestFirst.slice(0, 2))

    const second = await list(org.apiKey, '?limit=2&offset=2')
    expect(second).toMatchObject({ total: 3, limit: 2, offset: 2, has_more: false })
    expect(second.templates.map((t) => t.id)).toEqual(newestFirst.slice(2))

    expect(await list(org.apiKey, '?offset=3')).toMatchObject({ templates: [], total: 3, has_more: false })
    expect(await list(org.apiKey, `?offset=${Number.MAX_SAFE_INTEGER}`)).toMatchObject({ templates: [], has_more: false })
  })

  test('limit=500 is allowed', async () => {
    const org = await setupOrg(server)
    expect(await list(org.apiKey, '?limit=500')).toMatchObject({ limit: 500, total: 1 })
  })

  test("another org's templates are not listed", async () => {
    const mine = await setupOrg(server)
    const theirs = await setupOrg(server)
    expect((await list(mine.apiKey)).templates.map((t) => t.id)).toEqual([mine.templateId])
    expect((await list(theirs.apiKey)).templates.map((t) => t.id)).toEqual([theirs.templateId])
  })

  test.each([
    ['limit=501', /limit must be at most 500/],
    ['limit=0', /limit must be at least 1/],
    ['limit=ten', /limit must be an integer/],
    ['offset=-1', /offset must be at least 0/],
    ['offset=1e20', /offset must be at most/],
    ['status=sent', /status is not an allowed query parameter/],
  ])('?%s → 400 with a clear error', async (query, text) => {
    const org = await setupOrg(server)
    await expectError(await server.request(`/api/v1/templates?${query}`, { key: org.apiKey }), 400, text)
  })
})
