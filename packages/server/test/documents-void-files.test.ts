import { randomUUID } from 'node:crypto'
import { and, eq } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { outboundEmails, signers } from '../src/db/schema.ts'
import { bodyOf, createSentDocument, expectError, fieldsForRoles, postDocument, setupOrg, uniqueEmail, type TestOrg } from './helpers/api.ts'
import { insertDocuments } from './helpers/documents.ts'
import { startTestServer, type TestServer } from './helpers/test-server.ts'

let server: TestServer
let org: TestOrg
beforeAll(async () => {
  server = await startTestServer()
  org = await setupOrg(server)
})
afterAll(() => server.close())

const voidDocument = (id: string, init: RequestInit & { json?: unknown } = {}) =>
  server.request(`/api/v1/documents/${id}/void`, { method: 'POST', key: org.apiKey, ...init })
const statusOf = async (id: string) => (await bodyOf(await server.request(`/api/v1/documents/${id}`, { key: org.apiKey }))).status

const NOT_VOIDABLE = /only documents out for signature .*can be voided/i

describe('POST /api/v1/documents/{id}/void', () => {
  test('voids a sent document once, voided_reason says the sender did; a second void is 400', async () => {
    const id = await createSentDocument(server, org)
    expect((await bodyOf(await server.request(`/api/v1/documents/${id}`, { key: org.apiKey }))).voided_reason).toBeNull()
    const response = await voidDocument(id)
    expect(response.status).toBe(200)
    expect(await bodyOf(response)).toEqual({ success: true })
    const read = await bodyOf<{ status: string; voided_reason: string | null; created_at: string; updated_at: string }>(
      await server.request(`/api/v1/documents/${id}`, { key: org.apiKey }),
    )
    expect(read).toMatchObject({ status: 'voided', voided_reason: 'sender' })
    const listed = await bodyOf<{ documents: { id: string; voided_reason: string | null }[] }>(
      await server.request('/api/v1/documents?status=voided', { key: org.apiKey }),
    )
    expect(listed.documents.find((d) => d.id === id)?.voided_reason).toBe('sender')
    expect(Date.parse(read.updated_at)).toBeGreaterThanOrEqual(Date.parse(read.created_at))

    await expectError(await voidDocument(id), 400, NOT_VOIDABLE)
    expect(await statusOf(id)).toBe('voided')
  })

  test.each(['completed', 'declined', 'draft'] as const)('a %s document cannot be voided', async (status) => {
    const [id] = await insertDocuments(server, org.orgId, [{ status }])
    await expectError(await voidDocument(id as string), 400, NOT_VOIDABLE)
    expect(await statusOf(id as string)).toBe(status)
  })

  test.each([
    ['an unknown id', randomUUID()],
    ['a non-UUID id', 'abc'],
  ])('%s → 404 "Document not found."', async (_name, id) => {
    await expectError(await voidDocument(id), 404, 'Document not found.')
  })

  test('an empty body works without a Content-Type', async () => {
    const id = await createSentDocument(server, org)
    expect((await voidDocument(id)).status).toBe(200)
  })

  test('an empty body works with Content-Type: application/json', async () => {
    const id = await createSentDocument(server, org)
    expect((await voidDocument(id, { headers: { 'content-type': 'application/json' } })).status).toBe(200)
  })

  test.each([
    ['an object with fields', { reason: 'changed my mind' }],
    ['a string', 'void'],
    ['a number', 1],
  ])('a body that is %s → 400, and the document stays sent', async (_name, json) => {
    const id = await createSentDocument(server, org)
    await expectError(await voidDocument(id, { json }), 400, /no request body/)
    expect(await statusOf(id)).toBe('sent')
  })

  test('two concurrent voids: one succeeds, the other is 400, and the signer is told once', async () => {
    const email = uniqueEmail()
    const id = await createSentDocument(server, org, email)
    const responses = await Promise.all([voidDocument(id), voidDocument(id)])
    expect(responses.map((r) => r.status).sort()).toEqual([200, 400])
    const mails = await server.services.db
      .select({ subject: outboundEmails.subject })
      .from(outboundEmails)
      .where(and(eq(outboundEmails.documentId, id), eq(outboundEmails.toAddress, email)))
    expect(mails.filter((m) => /cancelled/.test(m.subject))).toHaveLength(1)
  })

  test('signers who have not signed are told the request was cancelled', async () => {
    const template = await server.createTemplate(org.orgId, { name: 'Joint venture', fields: fieldsForRoles([0, 1]) })
    const [waiting, done] = [uniqueEmail('waiting'), uniqueEmail('done')]
    const created = await postDocument(server, org.apiKey, {
      template_id: template.id,
      signers: [
        { role: 0, email: waiting, name: 'Wendy' },
        { role: 1, email: done },
      ],
    })
    const { id } = await bodyOf<{ id: string }>(created)
    // Signing is not an API operation: mark the second signer signed directly.
    await server.services.db
      .update(signers)
      .set({ status: 'signed', signedAt: new Date() })
      .where(and(eq(signers.documentId, id), eq(signers.email, done)))

    expect((await voidDocument(id)).status).toBe(200)

    // Mail is delivered concurrently, so the cancellation may arrive before the invitation.
    const cancellation = (await server.mail.waitFor(waiting, 2)).find((m) => m.subject?.includes('cancelled'))
    expect(cancellation?.subject).toBe('"Joint venture — Wendy" has been cancelled')
    expect(cancellation?.text).toContain('Hello Wendy,')
    const toSigned = await server.services.db
      .select({ subject: outboundEmails.subject })
      .from(outboundEmails)
      .where(and(eq(outboundEmails.documentId, id), eq(outboundEmails.toAddress, done)))
    expect(toSigned).toHaveLength(1)
    expect(toSigned[0]?.subject).not.toMatch(/cancelled/)
  })
})

describe('file downloads', () => {
  test('signed-file of a document still out for signature → 404 "not ready yet"', async () => {
    const id = await createSentDocument(server, org)
    await expectError(await server.request(`/api/v1/documents/${id}/signed-file`, { key: org.apiKey }), 404, /signed PDF is not ready yet/)
  })

  test('certificate of an ordinary document → 404', async () => {
    const id = await createSentDocument(server, org)
    await expectError(await server.request(`/api/v1/documents/${id}/certificate`, { key: org.apiKey }), 404)
  })

  test('badge of an ordinary document, and of an unsealed self-sealed one → 404', async () => {
    const id = await createSentDocument(server, org)
    await expectError(await server.request(`/api/v1/documents/${id}/badge`, { key: org.apiKey }), 404)
    const [sealed] = await insertDocuments(server, org.orgId, [{ status: 'completed', isVerifiedBadge: true }])
    await expectError(await server.request(`/api/v1/documents/${sealed}/badge`, { key: org.apiKey }), 404)
  })

  test.each(['signed-file', 'certificate', 'badge'])('%s of an unknown or another org’s document → 404 "Document not found."', async (file) => {
    const other = await setupOrg(server)
    const foreign = await createSentDocument(server, other)
    for (const id of [randomUUID(), 'not-an-id', foreign]) {
      await expectError(await server.request(`/api/v1/documents/${id}/${file}`, { key: org.apiKey }), 404, 'Document not found.')
    }
  })
})
