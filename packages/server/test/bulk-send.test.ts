import { eq, inArray, sql } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { documents, outboundEmails, signers } from '../src/db/schema.ts'
import { bodyOf, expectError, setupOrg, uniqueEmail, type Json, type TestOrg } from './helpers/api.ts'
import { startTestServer, type TestServer } from './helpers/test-server.ts'

let server: TestServer
let org: TestOrg

beforeAll(async () => {
  server = await startTestServer()
  org = await setupOrg(server, { plan: 'business' })
})
afterAll(() => server.close())

interface BulkResult {
  sent: number
  documents: { documentId: string; email: string }[]
  skipped_cap_reached?: string[]
  skipped_timeout_reached?: string[]
  note?: string
}

const bulk = (body: unknown, headers: Record<string, string> = {}, target: TestServer = server, key = org.apiKey) =>
  target.request('/api/v1/documents/bulk-send', { method: 'POST', key, json: body, headers })

const recipients = (count: number, label = 'bulk') => Array.from({ length: count }, (_, i) => ({ email: uniqueEmail(`${label}${i}`), name: `Recipient ${i}` }))

/** The invariant a crash must never break: each bulk document has exactly one signer and one invitation. */
async function halfCreated(target: TestServer, ids: string[]): Promise<number> {
  if (ids.length === 0) return 0
  const { db } = target.services
  const count = sql<number>`count(*)::int`
  const signerCounts = await db.select({ id: signers.documentId, n: count }).from(signers).where(inArray(signers.documentId, ids)).groupBy(signers.documentId)
  const mailCounts = await db
    .select({ id: outboundEmails.documentId, n: count })
    .from(outboundEmails)
    .where(inArray(outboundEmails.documentId, ids))
    .groupBy(outboundEmails.documentId)
  const existing = await db.select({ id: documents.id }).from(documents).where(inArray(documents.id, ids))
  const one = (rows: { id: string | null; n: number }[], id: string) => rows.find((r) => r.id === id)?.n === 1
  return existing.filter((d) => !one(signerCounts, d.id) || !one(mailCounts, d.id)).length
}

describe('POST /api/v1/documents/bulk-send', () => {
  it('sends one single-signer document with its own invitation to each recipient, a repeated address once', async () => {
    const list = recipients(4)
    const repeated = { email: list[1]!.email.toUpperCase(), name: 'Again' }
    const response = await bulk({ template_id: org.templateId, recipients: [...list, repeated] })
    expect(response.status).toBe(201)
    const body = await bodyOf<BulkResult>(response)
    expect(body.sent).toBe(4)
    expect(body.documents.map((d) => d.email)).toEqual(list.map((r) => r.email))
    expect(body.note).toBe('1 repeated e-mail address was sent once.')
    expect(Object.keys(body).sort()).toEqual(['documents', 'note', 'sent'])

    for (const [i, { documentId, email }] of body.documents.entries()) {
      const document = await bodyOf(await server.request(`/api/v1/documents/${documentId}`, { key: org.apiKey }))
      expect(document).toMatchObject({ status: 'sent', signers: [{ email, name: `Recipient ${i}`, status: 'pending' }] })
      const [invitation] = await server.mail.waitFor(email)
      expect(invitation?.text).toMatch(/\/sign\/[A-Za-z0-9_-]{43}/)
    }
    expect(
      await halfCreated(
        server,
        body.documents.map((d) => d.documentId),
      ),
    ).toBe(0)
  })

  it('answers 402 {error, upgrade: true} below the Team plan, before sending anyone', async () => {
    const pro = await setupOrg(server, { plan: 'pro' })
    const response = await bulk({ template_id: pro.templateId, recipients: recipients(2) }, {}, server, pro.apiKey)
    expect(response.status).toBe(402)
    expect(await bodyOf(response)).toEqual({ error: expect.stringMatching(/Team plan/) as unknown, code: 'payment_required', upgrade: true })
    expect((await bodyOf<Json>(await server.request('/api/v1/documents', { key: pro.apiKey }))).total).toBe(0)
  })

  it('rejects invalid bodies with a clear 400', async () => {
    await expectError(await bulk({ template_id: org.templateId, recipients: [] }), 400, /recipients must have at least 1 item/)
    await expectError(await bulk({ template_id: org.templateId, recipients: [{ email: 'a@b.com' }, { email: 'not-an-email' }] }), 400, /recipients\[1\]\.email/)
    await expectError(await bulk({ template_id: org.templateId, recipients: [{ email: 'a@b.com', role: 0 }] }), 400)
    await expectError(await bulk({ template_id: org.templateId, recipients: [{ email: 'a@b.com' }], extra: true }), 400)
    await expectError(await bulk({ template_id: '00000000-0000-4000-8000-000000000000', recipients: [{ email: 'a@b.com' }] }), 400, 'Template not found.')
    const tooMany = Array.from({ length: 10_001 }, (_, i) => ({ email: `r${i}@example.com` }))
    await expectError(await bulk({ template_id: org.templateId, recipients: tooMany }), 400, /at most 10000/)
    const twoParty = await server.createTemplate(org.orgId, {
      fields: [0, 1].map((role) => ({ role, type: 'signature', page: 1, x: 72, y: 100 + role * 50, width: 150, height: 30 })),
    })
    await expectError(await bulk({ template_id: twoParty.id, recipients: [{ email: 'a@b.com' }] }), 400, /one signer \(Party 1\)/)
    await expectError(
      await bulk({ template_id: org.templateId, recipients: [{ email: 'a@b.com' }] }, { 'idempotency-key': 'x'.repeat(256) }),
      400,
      /Idempotency-Key/,
    )
  })

  it('replays a finished request with the same Idempotency-Key and refuses the key with another body', async () => {
    const body = { template_id: org.templateId, recipients: recipients(3, 'idem') }
    const first = await bodyOf<BulkResult>(await bulk(body, { 'idempotency-key': 'order-42' }))
    const again = await bulk(body, { 'idempotency-key': 'order-42' })
    expect(again.status).toBe(201)
    expect(await bodyOf(again)).toEqual(first)
    const rows = await server.services.db
      .select({ id: documents.id })
      .from(documents)
      .where(
        inArray(
          documents.bulkRecipient,
          body.recipients.map((r) => r.email.toLowerCase()),
        ),
      )
    expect(rows).toHaveLength(3)
    await expectError(await bulk({ ...body, recipients: recipients(1) }, { 'idempotency-key': 'order-42' }), 409, /different request body/)
    // Keys are per org.
    const other = await setupOrg(server, { plan: 'business' })
    expect((await bulk({ template_id: other.templateId, recipients: recipients(1) }, { 'idempotency-key': 'order-42' }, server, other.apiKey)).status).toBe(201)
  })
})

describe('the time budget', () => {
  let tight: TestServer
  let tightOrg: TestOrg
  beforeAll(async () => {
    tight = await startTestServer({ env: { BULK_BUDGET_MS: '300' } })
    tightOrg = await setupOrg(tight, { plan: 'business' })
  })
  afterAll(() => tight.close())

  it('returns the recipients it had no time for in skipped_timeout_reached, and creates none of them', async () => {
    const list = recipients(3000, 'budget')
    const response = await bulk({ template_id: tightOrg.templateId, recipients: list }, {}, tight, tightOrg.apiKey)
    expect(response.status).toBe(201)
    const body = await bodyOf<BulkResult>(response)
    expect(body.skipped_timeout_reached?.length).toBeGreaterThan(0)
    expect(body.sent + (body.skipped_timeout_reached?.length ?? 0)).toBe(3000)
    expect(body.documents.map((d) => d.email)).toEqual(list.slice(0, body.sent).map((r) => r.email))
    expect(body.skipped_timeout_reached).toEqual(list.slice(body.sent).map((r) => r.email))
    expect(body.note).toMatch(/time budget ran out/)

    const created = await tight.services.db
      .select({ email: signers.email })
      .from(signers)
      .innerJoin(documents, eq(documents.id, signers.documentId))
      .where(eq(documents.orgId, tightOrg.orgId))
    expect(created.map((c) => c.email).sort()).toEqual(body.documents.map((d) => d.email).sort())
    expect(
      await halfCreated(
        tight,
        body.documents.map((d) => d.documentId),
      ),
    ).toBe(0)
    const list2 = (await bodyOf<Json>(await tight.request('/api/v1/documents?limit=1', { key: tightOrg.apiKey }))).total
    expect(list2).toBe(body.sent)
  })
})
