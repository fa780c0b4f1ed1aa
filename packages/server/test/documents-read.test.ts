import { randomUUID } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { bodyOf, createSentDocument, expectError, fieldsForRoles, postDocument, setupOrg, uniqueEmail } from './helpers/api.ts'
import { insertDocuments } from './helpers/documents.ts'
import { startTestServer, type TestServer } from './helpers/test-server.ts'

let server: TestServer
beforeAll(async () => {
  server = await startTestServer()
})
afterAll(() => server.close())

interface ListItem {
  id: string
  title: string
  status: string
  is_verified_badge: boolean
  created_at: string
  updated_at: string
  expires_at: string | null
}
interface DocumentList {
  documents: ListItem[]
  total: number
  limit: number
  offset: number
  has_more: boolean
}

const list = async (apiKey: string, query = ''): Promise<DocumentList> => {
  const response = await server.request(`/api/v1/documents${query}`, { key: apiKey })
  expect(response.status).toBe(200)
  return bodyOf<DocumentList>(response)
}
const ids = (page: DocumentList) => page.documents.map((d) => d.id)
const ISO_MILLIS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/

describe('GET /api/v1/documents', () => {
  test('an org without documents gets an empty first page with the defaults', async () => {
    const org = await setupOrg(server)
    expect(await list(org.apiKey)).toEqual({ documents: [], total: 0, limit: 20, offset: 0, has_more: false })
  })

  test("list items are the spec's {id, title, status, is_verified_badge, created_at, updated_at, expires_at} and the recipients and progress extensions", async () => {
    const org = await setupOrg(server)
    const email = uniqueEmail()
    const response = await postDocument(server, org.apiKey, {
      template_id: org.templateId,
      signer: { email },
      expires_at: '2099-06-30T12:00:00Z',
    })
    const { id } = await bodyOf<{ id: string }>(response)
    const [item] = (await list(org.apiKey)).documents
    expect(item).toEqual({
      id,
      title: `Test Agreement — ${email}`,
      status: 'sent',
      is_verified_badge: false,
      created_at: expect.stringMatching(ISO_MILLIS) as unknown,
      updated_at: expect.stringMatching(ISO_MILLIS) as unknown,
      expires_at: '2099-06-30T12:00:00.000Z',
      voided_reason: null,
      recipients: [{ id: expect.stringMatching(UUID) as unknown, name: null, email, status: 'pending', role: 0 }],
      signed_count: 0,
      signer_count: 1,
    })
  })

  test('newest first; limit defaults to 20, with total and has_more', async () => {
    const org = await setupOrg(server)
    const base = Date.parse('2025-01-01T00:00:00Z')
    const inserted = await insertDocuments(
      server,
      org.orgId,
      Array.from({ length: 25 }, (_, i) => ({ createdAt: new Date(base + i * 60_000), title: `Doc ${i}` })),
    )
    const newestFirst = [...inserted].reverse()

    const first = await list(org.apiKey)
    expect(first).toMatchObject({ total: 25, limit: 20, offset: 0, has_more: true })
    expect(ids(first)).toEqual(newestFirst.slice(0, 20))

    const rest = await list(org.apiKey, '?offset=20')
    expect(rest).toMatchObject({ total: 25, limit: 20, offset: 20, has_more: false })
    expect(ids(rest)).toEqual(newestFirst.slice(20))

    expect(await list(org.apiKey, '?offset=25')).toMatchObject({ documents: [], total: 25, has_more: false })
    // Any offset the database can take is answered; larger ones are a 400 (see below).
    expect(await list(org.apiKey, `?offset=${Number.MAX_SAFE_INTEGER}`)).toMatchObject({ documents: [], offset: Number.MAX_SAFE_INTEGER })
  })

  test('limit 100 is the maximum page', async () => {
    const org = await setupOrg(server)
    await insertDocuments(
      server,
      org.orgId,
      Array.from({ length: 101 }, () => ({})),
    )
    const page = await list(org.apiKey, '?limit=100')
    expect(page).toMatchObject({ total: 101, limit: 100, has_more: true })
    expect(page.documents).toHaveLength(100)
  })

  test('documents created in the same millisecond page without overlap or gaps', async () => {
    const org = await setupOrg(server)
    const createdAt = new Date('2025-03-01T09:00:00.123Z')
    const inserted = await insertDocuments(
      server,
      org.orgId,
      Array.from({ length: 7 }, () => ({ createdAt })),
    )

    const seen: string[] = []
    for (let offset = 0; offset < 9; offset += 3) {
      const page = await list(org.apiKey, `?limit=3&offset=${offset}`)
      expect(page.has_more).toBe(offset + 3 < 7)
      seen.push(...ids(page))
    }
    expect(seen).toHaveLength(7)
    expect([...seen].sort()).toEqual([...inserted].sort())
    // The same request twice gives the same order.
    expect(ids(await list(org.apiKey, '?limit=7'))).toEqual(seen)
  })

  test('status filters the list and the total', async () => {
    const org = await setupOrg(server)
    const kept = await createSentDocument(server, org)
    const voided = await createSentDocument(server, org)
    expect((await server.request(`/api/v1/documents/${voided}/void`, { method: 'POST', key: org.apiKey })).status).toBe(200)
    const [declined] = await insertDocuments(server, org.orgId, [{ status: 'declined' }])

    expect(await list(org.apiKey, '?status=sent')).toMatchObject({ total: 1, documents: [{ id: kept, status: 'sent' }] })
    expect(await list(org.apiKey, '?status=voided')).toMatchObject({ total: 1, documents: [{ id: voided, status: 'voided' }] })
    expect(await list(org.apiKey, '?status=declined')).toMatchObject({ total: 1, documents: [{ id: declined }] })
    expect(await list(org.apiKey, '?status=draft')).toMatchObject({ total: 0, documents: [] })
    expect((await list(org.apiKey)).total).toBe(3)
  })

  test('status=completed leaves out self-sealed documents unless include_self_sealed=true', async () => {
    const org = await setupOrg(server)
    const [signed, sealed] = await insertDocuments(server, org.orgId, [
      { status: 'completed', createdAt: new Date('2025-01-01T00:00:00Z') },
      { status: 'completed', isVerifiedBadge: true, createdAt: new Date('2025-01-02T00:00:00Z') },
    ])

    for (const query of ['?status=completed', '?status=completed&include_self_sealed=false']) {
      const page = await list(org.apiKey, query)
      expect(page).toMatchObject({ total: 1, has_more: false })
      expect(ids(page)).toEqual([signed])
    }
    const all = await list(org.apiKey, '?status=completed&include_self_sealed=true')
    expect(all).toMatchObject({ total: 2 })
    expect(all.documents.map((d) => [d.id, d.is_verified_badge])).toEqual([
      [sealed, true],
      [signed, false],
    ])
    // Without a status filter nothing is hidden.
    expect(ids(await list(org.apiKey))).toEqual([sealed, signed])
  })

  test.each([
    ['limit=0', /limit/],
    ['limit=101', /limit must be at most 100/],
    ['limit=-5', /limit/],
    ['limit=abc', /limit must be an integer/],
    ['limit=2.5', /limit must be an integer/],
    ['limit=', /limit/],
    ['offset=-1', /offset must be at least 0/],
    ['offset=x', /offset must be an integer/],
    ['offset=100000000000000000000', /offset must be at most/],
    ['status=archived', /status must be one of/],
    ['status=SENT', /status must be one of/],
    ['include_self_sealed=yes', /include_self_sealed must be a boolean/],
    ['page=2', /page is not an allowed query parameter/],
  ])('?%s → 400 with a clear error', async (query, text) => {
    const org = await setupOrg(server)
    await expectError(await server.request(`/api/v1/documents?${query}`, { key: org.apiKey }), 400, text)
  })
})

describe('GET /api/v1/documents/{id}', () => {
  test("is exactly the spec's {id, title, status, created_at, updated_at, expires_at, signers} (signers in request order), plus the signed PDF's state and each signer's id, role and times", async () => {
    const org = await setupOrg(server)
    const template = await server.createTemplate(org.orgId, { name: 'Partnership', fields: fieldsForRoles([0, 1, 2]) })
    const given = [
      { role: 1, email: uniqueEmail('bob'), name: 'Bob', auth_required: true },
      { role: 2, email: uniqueEmail('cy') },
      { role: 0, email: uniqueEmail('ann'), name: 'Ann' },
    ]
    const created = await postDocument(server, org.apiKey, { template_id: template.id, signers: given })
    expect(created.status).toBe(201)
    const { id } = await bodyOf<{ id: string }>(created)

    const response = await server.request(`/api/v1/documents/${id}`, { key: org.apiKey })
    expect(response.status).toBe(200)
    const body = await bodyOf<{ created_at: string; updated_at: string }>(response)
    expect(body).toEqual({
      id,
      // The default title names the first signer given.
      title: 'Partnership — Bob',
      status: 'sent',
      created_at: expect.stringMatching(ISO_MILLIS) as unknown,
      updated_at: expect.stringMatching(ISO_MILLIS) as unknown,
      expires_at: null,
      voided_reason: null,
      signed_pdf_status: null,
      signed_pdf_error: null,
      signers: given.map((s) => ({
        id: expect.stringMatching(UUID) as unknown,
        role: s.role,
        email: s.email,
        name: s.name ?? null,
        status: 'pending',
        signed_at: null,
        viewed_at: null,
        declined_at: null,
        auth_required: s.auth_required ?? false,
        auth_verified: false,
      })),
    })
    expect(body).not.toHaveProperty('is_verified_badge')
    expect(Date.parse(body.updated_at)).toBeGreaterThanOrEqual(Date.parse(body.created_at))
  })

  test('a single signer reads back as one pending signer', async () => {
    const org = await setupOrg(server)
    const email = uniqueEmail()
    const id = await createSentDocument(server, org, email)
    const body = await bodyOf(await server.request(`/api/v1/documents/${id}`, { key: org.apiKey }))
    expect(body.signers).toEqual([
      {
        id: expect.stringMatching(UUID) as unknown,
        role: 0,
        email,
        name: null,
        status: 'pending',
        signed_at: null,
        viewed_at: null,
        declined_at: null,
        auth_required: false,
        auth_verified: false,
      },
    ])
  })

  test.each([
    ['an unknown UUID', randomUUID()],
    ['a non-UUID id', '123'],
    ['an id with a path in it', '..%2Fx'],
  ])('%s → 404 "Document not found."', async (_name, id) => {
    const org = await setupOrg(server)
    await expectError(await server.request(`/api/v1/documents/${id}`, { key: org.apiKey }), 404, 'Document not found.')
  })
})
