import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { bodyOf, expectError, postDocument, setupOrg, uniqueEmail, type TestOrg } from './helpers/api.ts'
import { insertDocuments } from './helpers/documents.ts'
import { callOk, connectAgent } from './helpers/mcp.ts'
import { createSignedInUser } from './helpers/session.ts'
import { sendForSigning, valuesFor } from './helpers/signing.ts'
import { startTestServer, type TestServer } from './helpers/test-server.ts'

// The extensions the dashboard's Documents list and Overview need (README, API extensions):
// recipients and progress on each list item, counts per status, a title chosen at send time.

let server: TestServer
beforeAll(async () => {
  server = await startTestServer()
})
afterAll(() => server.close())

interface ListItem {
  id: string
  title: string
  recipients: { name: string | null; email: string; status: string; role: number }[]
  signed_count: number
  signer_count: number
}

const list = async (apiKey: string, query = ''): Promise<ListItem[]> => {
  const response = await server.request(`/api/v1/documents${query}`, { key: apiKey })
  expect(response.status).toBe(200)
  return (await bodyOf<{ documents: ListItem[] }>(response)).documents
}

const counts = async (apiKey: string, query = '') => {
  const response = await server.request(`/api/v1/documents/counts${query}`, { key: apiKey })
  expect(response.status).toBe(200)
  return bodyOf(response)
}

describe('GET /api/v1/documents: recipients and progress', () => {
  test('each item lists its signers in request order and how many of them signed', async () => {
    const org = await setupOrg(server)
    const sent = await sendForSigning(server, org, { roles: [0, 1], names: ['Ann Lee', 'Bo Chen'] })
    const [first, second] = sent.signers
    if (!first || !second) throw new Error('two signers expected')
    expect((await first.finish(valuesFor(0))).status).toBe(200)

    const [item] = await list(org.apiKey)
    expect(item).toMatchObject({
      id: sent.documentId,
      title: 'Test Agreement — Ann Lee',
      recipients: [
        { name: 'Ann Lee', email: first.email, status: 'signed', role: 0 },
        { name: 'Bo Chen', email: second.email, status: 'pending', role: 1 },
      ],
      signed_count: 1,
      signer_count: 2,
    })
  })

  test('a page of 100 documents carries every document its own signers', async () => {
    const org = await setupOrg(server)
    const emails = Array.from({ length: 3 }, () => uniqueEmail())
    for (const email of emails) expect((await postDocument(server, org.apiKey, { template_id: org.templateId, signer: { email } })).status).toBe(201)
    const [selfSealed] = await insertDocuments(server, org.orgId, [{ status: 'completed', isVerifiedBadge: true, title: 'Sealed minutes' }])

    const items = await list(org.apiKey, '?limit=100')
    expect(items.map((d) => d.recipients.map((r) => r.email))).toEqual([[], ...[...emails].reverse().map((email) => [email])])
    expect(items.find((d) => d.id === selfSealed)).toMatchObject({ recipients: [], signed_count: 0, signer_count: 0 })
  })
})

describe('GET /api/v1/documents?expires_before=', () => {
  test('lists only what expires before the time, the soonest first', async () => {
    const org = await setupOrg(server)
    const send = async (expires_at: string | undefined) => {
      const response = await postDocument(server, org.apiKey, {
        template_id: org.templateId,
        signer: { email: uniqueEmail() },
        ...(expires_at ? { expires_at } : {}),
      })
      return (await bodyOf<{ id: string }>(response)).id
    }
    const later = await send('2099-03-01T00:00:00Z')
    const soon = await send('2099-01-02T00:00:00Z')
    await send(undefined)
    await send('2099-06-01T00:00:00Z')
    expect((await list(org.apiKey, '?expires_before=2099-04-01T00:00:00Z')).map((d) => d.id)).toEqual([soon, later])
    await expectError(await server.request('/api/v1/documents?expires_before=2099-02-31T00:00:00Z', { key: org.apiKey }), 400, /expires_before/)
  })
})

describe('GET /api/v1/documents/counts', () => {
  let org: TestOrg
  beforeAll(async () => {
    org = await setupOrg(server)
    await insertDocuments(server, org.orgId, [
      { status: 'sent', title: 'Lease for Ann' },
      { status: 'sent', title: 'Lease for Bo' },
      { status: 'completed', title: 'NDA for Ann' },
      { status: 'completed', isVerifiedBadge: true, title: 'Sealed minutes' },
      { status: 'declined', title: 'NDA for Cy' },
      { status: 'voided', title: 'Old lease' },
    ])
  })

  test('counts each status as the list totals it, completed without self-sealed documents by default', async () => {
    expect(await counts(org.apiKey)).toEqual({ all: 6, by_status: { draft: 0, sent: 2, completed: 1, declined: 1, voided: 1 } })
    expect(await counts(org.apiKey, '?include_self_sealed=true')).toMatchObject({ all: 6, by_status: { completed: 2 } })
  })

  test('counts only what the search matches', async () => {
    expect(await counts(org.apiKey, '?search=ann')).toEqual({ all: 2, by_status: { draft: 0, sent: 1, completed: 1, declined: 0, voided: 0 } })
  })

  test("sees only the caller's workspace, with an API key or the dashboard's session", async () => {
    const other = await setupOrg(server)
    expect(await counts(other.apiKey)).toEqual({ all: 0, by_status: { draft: 0, sent: 0, completed: 0, declined: 0, voided: 0 } })
    const member = await createSignedInUser(server, { orgId: org.orgId, role: 'member' })
    const response = await member.fetch('/api/v1/documents/counts')
    expect(response.status).toBe(200)
    expect(await bodyOf(response)).toMatchObject({ all: 6 })
  })

  test('100 reads at once give the same answer', async () => {
    const answers = await Promise.all(Array.from({ length: 100 }, () => counts(org.apiKey)))
    expect(new Set(answers.map((answer) => JSON.stringify(answer)))).toEqual(new Set([JSON.stringify(answers[0])]))
    expect(answers[0]).toMatchObject({ all: 6 })
  })

  test('refuses what the list refuses', async () => {
    await expectError(await server.request('/api/v1/documents/counts?status=sent', { key: org.apiKey }), 400)
    await expectError(await server.request('/api/v1/documents/counts'), 401)
  })
})

describe('POST /api/v1/documents: title (extension)', () => {
  test('the title given is what the document shows', async () => {
    const org = await setupOrg(server)
    const response = await postDocument(server, org.apiKey, { template_id: org.templateId, title: 'NDA with Acme (2026)', signer: { email: uniqueEmail() } })
    expect(response.status).toBe(201)
    const { id } = await bodyOf<{ id: string }>(response)
    expect(await bodyOf(await server.request(`/api/v1/documents/${id}`, { key: org.apiKey }))).toMatchObject({ title: 'NDA with Acme (2026)' })
  })

  test("without one: the template's name and the first signer's name, or their e-mail address", async () => {
    const org = await setupOrg(server)
    const email = uniqueEmail()
    await postDocument(server, org.apiKey, { template_id: org.templateId, signer: { email, name: 'Ann Lee' } })
    await postDocument(server, org.apiKey, { template_id: org.templateId, signer: { email } })
    expect((await list(org.apiKey)).map((d) => d.title)).toEqual([`Test Agreement — ${email}`, 'Test Agreement — Ann Lee'])
  })

  test('a title follows the rules of names: 1 to 200 visible characters on one line', async () => {
    const org = await setupOrg(server)
    const send = (title: string) => postDocument(server, org.apiKey, { template_id: org.templateId, title, signer: { email: uniqueEmail() } })
    await expectError(await send(''), 400, 'title must be at least 1 character')
    await expectError(await send('x'.repeat(201)), 400, 'title must be at most 200 characters')
    await expectError(await send('Lease\nfor Ann'), 400, /^title /)
    await expectError(await send('Lease\u200Bfor Ann'), 400, /^title /)
    expect((await send('x'.repeat(200))).status).toBe(201)
  })

  test('the agent tool takes the same title', async () => {
    const org = await setupOrg(server)
    const agent = await connectAgent(server, org.apiKey)
    try {
      const { structured } = await callOk<{ document_id: string }>(agent, 'create_and_send_document', {
        template_id: org.templateId,
        title: 'Lease, flat 4',
        signer_email: uniqueEmail(),
      })
      expect(await bodyOf(await server.request(`/api/v1/documents/${structured.document_id}`, { key: org.apiKey }))).toMatchObject({ title: 'Lease, flat 4' })
    } finally {
      await agent.close()
    }
  })
})
