import { deflateSync } from 'node:zlib'
import { eq } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { checkAuditChain, readAuditTrail } from '../src/audit/audit-trail.ts'
import { auditEvents, outboundEmails, signers as signerRows } from '../src/db/schema.ts'
import { bodyOf, expectError, setupOrg, type Json, type TestOrg } from './helpers/api.ts'
import { PNG_SIGNATURE, pngChunk } from './helpers/png.ts'
import { makePng, pngDataUrl, sendForSigning, valuesFor } from './helpers/signing.ts'
import { startTestServer, type TestServer } from './helpers/test-server.ts'

let server: TestServer
let org: TestOrg

beforeAll(async () => {
  server = await startTestServer({ env: { JOB_POLL_MS: '100' } })
  org = await setupOrg(server, { name: 'Acme Legal' })
})
afterAll(() => server.close())

const getDocument = async (id: string) => bodyOf(await server.request(`/api/v1/documents/${id}`, { key: org.apiKey }))

async function waitForSignedFile(id: string): Promise<Response> {
  for (let i = 0; i < 100; i++) {
    const response = await server.request(`/api/v1/documents/${id}/signed-file`, { key: org.apiKey })
    if (response.status === 200) return response
    await expectError(response, 404, 'The signed PDF is not ready yet.')
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  throw new Error('the signed PDF never appeared')
}

const eventTypes = async (documentId: string) => (await readAuditTrail(server.services.db, documentId)).map((e) => e.type)

describe('two signers sign a document', () => {
  it('moves signers pending → viewed → signed and the document sent → completed, then serves the signed PDF', async () => {
    const { documentId, signers } = await sendForSigning(server, org, { roles: [0, 1] })
    const [first, second] = signers as [(typeof signers)[0], (typeof signers)[0]]

    const page = await first.page()
    expect(page.status).toBe(200)
    expect(page.headers.get('content-type')).toMatch(/^text\/html/)
    expect(page.headers.get('referrer-policy')).toBe('no-referrer')
    expect(await page.text()).toContain('signet-boot')
    // Opening the page is not "viewed": link scanners fetch pages too; the page's script reports the view.
    expect(((await getDocument(documentId)).signers as Json[])[0]?.status).toBe('pending')

    expect((await first.view()).status).toBe(200)
    expect((await first.view()).status).toBe(200)
    let document = await getDocument(documentId)
    expect((document.signers as Json[]).map((s) => s.status)).toEqual(['viewed', 'pending'])

    const finished = await first.finish(valuesFor(0))
    expect(await bodyOf(finished)).toEqual({ status: 'signed', document_status: 'sent' })
    document = await getDocument(documentId)
    expect(document.status).toBe('sent')
    const firstSigner = (document.signers as Json[])[0]
    expect(firstSigner).toMatchObject({ status: 'signed', signed_at: expect.stringMatching(/Z$/) as unknown })
    await expectError(await server.request(`/api/v1/documents/${documentId}/signed-file`, { key: org.apiKey }), 404, 'The signed PDF is not ready yet.')

    expect(await bodyOf(await second.finish(valuesFor(1)))).toEqual({ status: 'signed', document_status: 'completed' })
    document = await getDocument(documentId)
    expect(document.status).toBe('completed')
    expect((document.signers as Json[]).map((s) => s.status)).toEqual(['signed', 'signed'])

    const file = await waitForSignedFile(documentId)
    expect(file.headers.get('content-type')).toBe('application/pdf')
    expect(file.headers.get('content-disposition')).toContain('(signed).pdf')
    expect(
      Buffer.from(await file.arrayBuffer())
        .subarray(0, 5)
        .toString(),
    ).toBe('%PDF-')

    expect(await eventTypes(documentId)).toEqual([
      'document.sent',
      'document.viewed',
      'document.signed',
      'document.viewed',
      'document.signed',
      'document.completed',
      'signed_pdf.created',
    ])
    expect(checkAuditChain(await readAuditTrail(server.services.db, documentId)).intact).toBe(true)

    // Each signer is told, with the signed PDF attached.
    for (const signer of signers) {
      const mails = await server.mail.waitFor(signer.email, 2)
      const done = mails.find((m) => /is complete/.test(m.subject ?? ''))
      expect(done?.attachments.map((a) => a.mimeType)).toEqual(['application/pdf'])
      // Each message's Message-ID names its outbox row, so one sent again after a crash is recognisably the same.
      const rows = await server.services.db.select({ id: outboundEmails.id }).from(outboundEmails).where(eq(outboundEmails.toAddress, signer.email))
      const host = new URL(server.services.config.publicUrl).hostname
      expect(new Set(mails.map((m) => m.messageId))).toEqual(new Set(rows.map((row) => `<${row.id}@${host}>`)))
    }

    // The link now shows the finished state and offers the download; it can change nothing.
    const after = await first.page()
    expect(await after.text()).toContain('Everyone has signed')
    await expectError(await first.finish(valuesFor(0)), 409, /already complete/)
    expect((await first.call('/signed.pdf')).status).toBe(200)
  })

  it('shows a signer who has signed that the others are still to sign', async () => {
    const { signers } = await sendForSigning(server, org, { roles: [0, 1] })
    await signers[0]?.finish(valuesFor(0))
    expect(await (await signers[0]!.page()).text()).toContain('You have signed')
    await expectError(await signers[0]!.finish(valuesFor(0)), 409, 'You have already signed this document.')
  })
})

describe('the date field', () => {
  /** The date field's value as stored for the signed PDF, after the one signer finishes with `locale`. */
  async function signedDate(locale?: string) {
    const { documentId, signers } = await sendForSigning(server, org, { roles: [0] })
    expect((await signers[0]!.finish(valuesFor(0), locale)).status).toBe(200)
    const [stored] = await server.services.db.select({ values: signerRows.fieldValues }).from(signerRows).where(eq(signerRows.documentId, documentId))
    return Object.values(stored?.values ?? {}).find((value) => value.type === 'date')
  }

  it("is filled with the server's UTC day in the locale the signer page sends, and as yyyy-mm-dd without one", async () => {
    const today = new Date()
    // "26. November 2026": the day, the month in words, the year, as a German reader writes them.
    expect(await signedDate('de-DE')).toEqual({
      type: 'date',
      text: expect.stringMatching(new RegExp(`^${today.getUTCDate()}\\. \\p{L}+ ${today.getUTCFullYear()}$`, 'u')) as unknown,
    })
    expect(await signedDate()).toEqual({ type: 'date', text: today.toISOString().slice(0, 10) })
  })
})

describe('concurrency', () => {
  it('completes a document exactly once when both signers finish at the same instant (30 runs)', async () => {
    for (let run = 0; run < 30; run++) {
      const { documentId, signers } = await sendForSigning(server, org, { roles: [0, 1] })
      const results = await Promise.all(signers.map((s, i) => s.finish(valuesFor(i)).then((r) => bodyOf(r))))
      expect(results.map((r) => r.document_status).sort()).toEqual(['completed', 'sent'])
      const completions = await server.services.db.select().from(auditEvents).where(eq(auditEvents.documentId, documentId))
      expect(completions.filter((e) => e.type === 'document.completed')).toHaveLength(1)
      expect(completions.filter((e) => e.type === 'document.signed')).toHaveLength(2)
    }
  }, 120_000)
})

describe('decline and void', () => {
  it('a decline closes the document for everyone and tells the other signers', async () => {
    const { documentId, signers } = await sendForSigning(server, org, { roles: [0, 1] })
    const [first, second] = signers as [NonNullable<(typeof signers)[0]>, NonNullable<(typeof signers)[0]>]
    await expectError(await first.decline('x'.repeat(501)), 400, /reason/)
    expect(await bodyOf(await first.decline('The fee is wrong'))).toEqual({ status: 'declined' })
    const document = await getDocument(documentId)
    expect(document.status).toBe('declined')
    expect((document.signers as Json[]).map((s) => s.status)).toEqual(['declined', 'pending'])

    await expectError(await second.finish(valuesFor(1)), 409, 'This document was declined, so it can no longer be signed.')
    await expectError(await first.decline(), 409)
    expect(await (await second.page()).text()).toContain('This document was declined')
    expect(await (await first.page()).text()).toContain('You declined this document')
    const mails = await server.mail.waitFor(second.email, 2)
    expect(mails.map((m) => m.subject)).toContainEqual(expect.stringMatching(/^"Test Agreement — [^"]+" was declined$/))
    const trail = await readAuditTrail(server.services.db, documentId)
    expect(trail.find((e) => e.type === 'document.declined')?.data).toEqual({ reason: 'The fee is wrong' })
  })

  it('a voided document shows a cancelled page and its links change nothing', async () => {
    const { documentId, signers } = await sendForSigning(server, org)
    const [signer] = signers as [NonNullable<(typeof signers)[0]>]
    expect((await server.request(`/api/v1/documents/${documentId}/void`, { method: 'POST', key: org.apiKey })).status).toBe(200)
    expect(await (await signer.page()).text()).toContain('This signing request was cancelled')
    await expectError(await signer.finish(valuesFor(0)), 409, /cancelled/)
    await expectError(await signer.view(), 409)
    await expectError(await signer.call('/document.pdf'), 409)
    expect((await getDocument(documentId)).status).toBe('voided')
  })
})

describe('bad input', () => {
  it('rejects a tampered or unknown token with a clear page and a 404', async () => {
    const { signers } = await sendForSigning(server, org)
    const token = signers[0]!.token
    const tampered = `${token.slice(0, -1)}${token.endsWith('A') ? 'B' : 'A'}`
    const page = await server.request(`/sign/${tampered}`)
    expect(page.status).toBe(404)
    expect(await page.text()).toContain('This signing link is not valid')
    await expectError(await server.request(`/sign/${tampered}/finish`, { method: 'POST', json: { values: {} } }), 404, /not valid/)
    await expectError(await server.request('/sign/short/view', { method: 'POST', json: {} }), 404, /not valid/)
  })

  it('checks every submitted field and changes nothing on a bad submission', async () => {
    const { documentId, signers } = await sendForSigning(server, org)
    const signer = signers[0]!
    await expectError(await signer.finish({ '1': 'CEO', '3': true }), 400, /Field 0 \(Signature 0, page 1\) is required/)
    await expectError(await signer.finish({ ...valuesFor(0), '9': 'x' }), 400, 'Field 9 is not one of your fields.')
    await expectError(await signer.finish({ ...valuesFor(0), '0': 'data:image/png;base64,AAAA' }), 400, /not a valid PNG/)
    const interlaced = makePng(40, 20)
    interlaced[28] = 1
    await expectError(await signer.finish({ ...valuesFor(0), '0': pngDataUrl(interlaced) }), 400, /interlaced PNG images are not supported/)
    await expectError(await signer.finish({ ...valuesFor(0), '0': 'hello' }), 400, /PNG image as a data: URL/)
    await expectError(await signer.finish({ ...valuesFor(0), '1': 'x'.repeat(501) }), 400, /longer than 500/)
    await expectError(await signer.finish({ ...valuesFor(0), '3': 'yes' }), 400, /true or false/)
    await expectError(await signer.call('/finish', { json: { values: {}, extra: 1 } }), 400)
    expect((await getDocument(documentId)).status).toBe('sent')
    expect(await eventTypes(documentId)).toEqual(['document.sent'])
  })

  it('decodes every image before anything is stored: damaged or short pixel data is a 400, and the document stays open', async () => {
    const { documentId, signers } = await sendForSigning(server, org)
    const signer = signers[0]!
    const header = (width: number, height: number) => {
      const data = Buffer.alloc(13)
      data.writeUInt32BE(width, 0)
      data.writeUInt32BE(height, 4)
      data.set([8, 6, 0, 0, 0], 8)
      return pngChunk('IHDR', data)
    }
    const png = (width: number, height: number, idat: Buffer) =>
      Buffer.concat([PNG_SIGNATURE, header(width, height), pngChunk('IDAT', idat), pngChunk('IEND', Buffer.alloc(0))])
    // A valid header, then pixel data that is not zlib at all.
    const notZlib = png(40, 20, Buffer.from('these bytes are not compressed pixel data'))
    await expectError(await signer.finish({ ...valuesFor(0), '0': pngDataUrl(notZlib) }), 400, 'Field 0 (Signature 0, page 1): the image data is damaged.')
    // 4000 × 4000 pixels said, a 69-byte IDAT given: a few rows of zeros.
    const short = png(4000, 4000, deflateSync(Buffer.alloc(4001 * 3)))
    expect(short.length).toBeLessThan(200)
    await expectError(
      await signer.finish({ ...valuesFor(0), '0': pngDataUrl(short) }),
      400,
      'Field 0 (Signature 0, page 1): the image data is incomplete (shorter than its width and height say).',
    )
    expect((await getDocument(documentId)).status).toBe('sent')
    expect(await eventTypes(documentId)).toEqual(['document.sent'])
  })

  it('refuses an oversized signature image with a clear message', async () => {
    const { documentId, signers } = await sendForSigning(server, org)
    // Just over 256 KiB: the field's own check says so.
    const over = makePng(300, 219, 'noise')
    expect(over.byteLength).toBeGreaterThan(256 * 1024)
    await expectError(await signers[0]!.finish({ ...valuesFor(0), '0': pngDataUrl(over) }), 400, /the limit is 256 KiB/)
    // Far over it, the body is larger than this signer's fields can need, and is refused before it is read.
    const huge = pngDataUrl(makePng(400, 400, 'noise'))
    await expectError(await signers[0]!.finish({ ...valuesFor(0), '0': huge }), 413, /the most your fields can need \(a signature image is at most 256 KiB\)/)
    expect((await getDocument(documentId)).status).toBe('sent')
  })

  it('keeps the audit trail append-only in the database itself', async () => {
    const { documentId } = await sendForSigning(server, org)
    await expect(server.services.db.update(auditEvents).set({ ip: '1.2.3.4' }).where(eq(auditEvents.documentId, documentId))).rejects.toThrow()
    await expect(server.services.db.delete(auditEvents).where(eq(auditEvents.documentId, documentId))).rejects.toThrow()
  })

  it('never keeps a delivered code e-mail readable in the outbox', async () => {
    const { signers } = await sendForSigning(server, org, { authRequired: [true] })
    expect((await signers[0]!.sendCode()).status).toBe(200)
    await signers[0]!.latestCode()
    await server.services.mail.drain()
    const rows = await server.services.db.select().from(outboundEmails).where(eq(outboundEmails.toAddress, signers[0]!.email))
    const codeRow = rows.find((r) => r.sensitive)
    expect(codeRow?.textBody).not.toMatch(/\d{6}/)
  })
})
