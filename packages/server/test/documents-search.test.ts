import { randomBytes, randomUUID } from 'node:crypto'
import { and, eq, sql } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { auditEvents, signers } from '../src/db/schema.ts'
import { bodyOf, expectError, postDocument, setupOrg, uniqueEmail, type Json, type TestOrg } from './helpers/api.ts'
import { insertDocuments } from './helpers/documents.ts'
import { sendForSigning, tokenFromMail, valuesFor } from './helpers/signing.ts'
import { startTestServer, type TestServer } from './helpers/test-server.ts'

let server: TestServer
beforeAll(async () => {
  server = await startTestServer()
})
afterAll(() => server.close())

interface DocumentList {
  documents: { id: string; title: string; status: string }[]
  total: number
  has_more: boolean
}

const list = async (org: TestOrg, query: string): Promise<DocumentList> => {
  const response = await server.request(`/api/v1/documents?${query}`, { key: org.apiKey })
  expect(response.status).toBe(200)
  return bodyOf<DocumentList>(response)
}

const send = async (org: TestOrg, templateId: string, email: string): Promise<string> => {
  const response = await postDocument(server, org.apiKey, { template_id: templateId, signer: { email } })
  expect(response.status).toBe(201)
  return (await bodyOf<{ id: string }>(response)).id
}

describe('GET /api/v1/documents?search=', () => {
  test('matches the title or any signer e-mail, case-insensitively, combined with status and paging', async () => {
    const org = await setupOrg(server)
    const nda = (await server.createTemplate(org.orgId, { name: 'Mutual NDA 2026' })).id
    const lease = (await server.createTemplate(org.orgId, { name: 'Office lease' })).id
    const alice = `alice.${randomUUID().slice(0, 8)}@Example.com`
    const first = await send(org, nda, uniqueEmail())
    const second = await send(org, lease, alice)
    const third = await send(org, nda, uniqueEmail())

    expect((await list(org, 'search=nda')).documents.map((d) => d.id)).toEqual([third, first])
    expect((await list(org, 'search=MUTUAL%20nda')).total).toBe(2)
    expect((await list(org, `search=${encodeURIComponent(alice.toUpperCase())}`)).documents.map((d) => d.id)).toEqual([second])
    expect((await list(org, 'search=alice.')).documents.map((d) => d.id)).toEqual([second])
    expect(await list(org, 'search=nobody-has-this')).toMatchObject({ documents: [], total: 0, has_more: false })
    // LIKE's wildcards are text like any other.
    expect((await list(org, 'search=%25')).total).toBe(0)
    expect((await list(org, 'search=_')).total).toBe(0)
    // A blank search is no search.
    expect((await list(org, 'search=%20')).total).toBe(3)

    expect(await list(org, 'search=nda&limit=1')).toMatchObject({ total: 2, has_more: true, documents: [{ id: third }] })
    expect(await list(org, 'search=nda&limit=1&offset=1')).toMatchObject({ total: 2, has_more: false, documents: [{ id: first }] })

    expect((await server.request(`/api/v1/documents/${first}/void`, { method: 'POST', key: org.apiKey })).status).toBe(200)
    expect((await list(org, 'search=nda&status=voided')).documents.map((d) => d.id)).toEqual([first])
    expect((await list(org, 'search=nda&status=sent')).documents.map((d) => d.id)).toEqual([third])

    // Another org's documents never match.
    const other = await setupOrg(server)
    expect((await list(other, 'search=nda')).total).toBe(0)
    await expectError(await server.request(`/api/v1/documents?search=${'x'.repeat(201)}`, { key: org.apiKey }), 400)
  })

  test('stays quick with 2,000 documents in the org', async () => {
    const org = await setupOrg(server)
    const ids = await insertDocuments(
      server,
      org.orgId,
      Array.from({ length: 2000 }, (_, i) => ({
        title: i % 500 === 0 ? `Needle contract ${i}` : `Contract ${i}`,
        createdAt: new Date(Date.UTC(2026, 0, 1, 0, 0, i)),
      })),
    )
    await server.services.db
      .insert(signers)
      .values(ids.map((documentId, i) => ({ documentId, role: 0, position: 0, email: `person${i}@example.org`, tokenHash: randomBytes(32).toString('hex') })))
    const timed = async (query: string) => {
      const started = performance.now()
      const body = await list(org, query)
      return { body, ms: performance.now() - started }
    }
    await timed('search=warm-up')
    const byTitle = await timed('search=needle')
    expect(byTitle.body.total).toBe(4)
    const byEmail = await timed('search=person1999@')
    expect(byEmail.body.documents.map((d) => d.id)).toEqual([ids[1999]])
    const none = await timed('search=zzz')
    expect(none.body.total).toBe(0)
    console.log(`search over 2,000 documents: title ${byTitle.ms.toFixed(1)} ms, e-mail ${byEmail.ms.toFixed(1)} ms, no match ${none.ms.toFixed(1)} ms`)
    expect(Math.max(byTitle.ms, byEmail.ms, none.ms)).toBeLessThan(1000)
  })
})

interface Audit {
  events: Json[]
  chain_valid: boolean
}

const audit = async (org: TestOrg, documentId: string): Promise<Audit> => {
  const response = await server.request(`/api/v1/documents/${documentId}/audit`, { key: org.apiKey })
  expect(response.status).toBe(200)
  return bodyOf<Audit>(response)
}

const signerIds = async (org: TestOrg, documentId: string): Promise<string[]> => {
  const body = await bodyOf<{ signers: { id: string }[] }>(await server.request(`/api/v1/documents/${documentId}`, { key: org.apiKey }))
  return body.signers.map((s) => s.id)
}

const resend = (org: TestOrg, documentId: string, signerId: string) =>
  server.request(`/api/v1/documents/${documentId}/signers/${signerId}/resend`, { method: 'POST', key: org.apiKey })

describe('GET /api/v1/documents/{id}/audit', () => {
  test('the trail in order with its chain checked; an edited event makes chain_valid false', async () => {
    const org = await setupOrg(server)
    const {
      documentId,
      signers: [signer],
    } = await sendForSigning(server, org)
    if (!signer) throw new Error('no signer')
    expect((await signer.view()).status).toBe(200)
    expect((await signer.finish(valuesFor(0))).status).toBe(200)

    const trail = await audit(org, documentId)
    expect(trail.chain_valid).toBe(true)
    expect(trail.events.map((e) => e.event)).toEqual(['document.sent', 'document.viewed', 'document.signed', 'document.completed'])
    expect(trail.events[0]).toEqual({
      seq: 1,
      at: expect.stringMatching(/Z$/) as unknown,
      event: 'document.sent',
      actor: expect.any(String) as unknown,
      signer_id: null,
      ip: '127.0.0.1',
      user_agent: 'node',
      auth_method: 'api_key',
      agent_triggered: false,
      data: { template_id: expect.any(String) as unknown, signers: 1 },
      hash: expect.stringMatching(/^[0-9a-f]{64}$/) as unknown,
    })
    expect(trail.events[2]).toMatchObject({ event: 'document.signed', actor: signer.email, user_agent: 'SignetTest/1.0', agent_triggered: false })

    // Someone with the database's keys edits history (the table's append-only trigger set aside).
    await server.services.db.transaction(async (tx) => {
      await tx.execute(sql`alter table audit_events disable trigger audit_events_append_only`)
      await tx
        .update(auditEvents)
        .set({ data: { template_id: 'forged', signers: 1 } })
        .where(and(eq(auditEvents.documentId, documentId), eq(auditEvents.seq, 1)))
      await tx.execute(sql`alter table audit_events enable trigger audit_events_append_only`)
    })
    expect((await audit(org, documentId)).chain_valid).toBe(false)
  })

  test("another org's document is a 404", async () => {
    const [org, other] = [await setupOrg(server), await setupOrg(server)]
    const documentId = await send(org, org.templateId, uniqueEmail())
    await expectError(await server.request(`/api/v1/documents/${documentId}/audit`, { key: other.apiKey }), 404, 'Document not found.')
  })
})

describe('POST /api/v1/documents/{id}/signers/{signerId}/resend', () => {
  test('mails a second invitation with a new link (the old one stops working), audited; a second re-send within a minute is a 429', async () => {
    const org = await setupOrg(server)
    const email = uniqueEmail()
    const documentId = await send(org, org.templateId, email)
    const [first] = await server.mail.waitFor(email)
    const oldToken = tokenFromMail(first?.text)
    const [signerId] = await signerIds(org, documentId)
    if (!signerId) throw new Error('no signer')

    const response = await resend(org, documentId, signerId)
    expect(response.status).toBe(202)
    expect(await bodyOf(response)).toEqual({
      signer_id: signerId,
      email,
      message: `A new invitation is on its way to ${email}; the link in the earlier one no longer works.`,
    })
    const mails = await server.mail.waitFor(email, 2)
    expect(mails[1]?.subject).toBe(first?.subject)
    const newToken = tokenFromMail(mails[1]?.text)
    expect(newToken).not.toBe(oldToken)
    expect((await server.request(`/sign/${newToken}`)).status).toBe(200)
    expect((await server.request(`/sign/${oldToken}`)).status).toBe(404)

    const trail = await audit(org, documentId)
    expect(trail.chain_valid).toBe(true)
    expect(trail.events.at(-1)).toMatchObject({ event: 'signer.invitation_resent', signer_id: signerId, auth_method: 'api_key', data: { email } })

    const again = await resend(org, documentId, signerId)
    await expectError(again, 429, /^An invitation was re-sent to .* moments ago\. Try again in \d+ seconds?\.$/)
    expect(Number(again.headers.get('retry-after'))).toBeGreaterThan(0)
    expect(await server.mail.waitFor(email, 2)).toHaveLength(2)
  })

  test('409 for a signer who signed, and for a document no longer out for signature; 404 for unknown ids and other orgs', async () => {
    const org = await setupOrg(server)
    const {
      documentId,
      signers: [, second],
    } = await sendForSigning(server, org, { roles: [0, 1] })
    if (!second) throw new Error('no second signer')
    expect((await second.view()).status).toBe(200)
    expect((await second.finish(valuesFor(1))).status).toBe(200)
    const [firstId, secondId] = await signerIds(org, documentId)
    if (!firstId || !secondId) throw new Error('no signers')
    await expectError(await resend(org, documentId, secondId), 409, `${second.email} has already signed: there is no invitation to re-send.`)

    const other = await setupOrg(server)
    await expectError(await resend(other, documentId, firstId), 404, 'Document not found.')
    await expectError(await resend(org, documentId, randomUUID()), 404, 'Signer not found.')
    await expectError(await resend(org, documentId, 'nope'), 404, 'Signer not found.')
    const elsewhere = await send(org, org.templateId, uniqueEmail())
    await expectError(await resend(org, elsewhere, firstId), 404, 'Signer not found.')
    await expectError(
      await server.request(`/api/v1/documents/${documentId}/signers/${firstId}/resend`, { method: 'POST', key: org.apiKey, json: { x: 1 } }),
      400,
    )

    expect((await server.request(`/api/v1/documents/${documentId}/void`, { method: 'POST', key: org.apiKey })).status).toBe(200)
    await expectError(await resend(org, documentId, firstId), 409, 'This document is voided: invitations can only be re-sent while it is out for signature.')
  })
})
