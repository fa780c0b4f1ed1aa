import { eq } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { readAuditTrail } from '../src/audit/audit-trail.ts'
import { outboundEmails } from '../src/db/schema.ts'
import { CODES_PER_DAY, WRONG_CODES_PER_DAY } from '../src/signing/email-code.ts'
import { expireDueDocuments } from '../src/signing/expiry.ts'
import { bodyOf, expectError, setupOrg, type Json, type TestOrg } from './helpers/api.ts'
import { sendForSigning, valuesFor, type SignerClient } from './helpers/signing.ts'
import { movableClock } from './helpers/clock.ts'
import { startTestServer, type TestServer } from './helpers/test-server.ts'

/** A clock the tests move forward: codes, cool-downs and expiry are checked without waiting. */
const { clock, advance } = movableClock()

let server: TestServer
let org: TestOrg

beforeAll(async () => {
  // Expiry is swept by the tests themselves, so the background sweep stays out of the way.
  server = await startTestServer({ clock, env: { JOB_POLL_MS: '3600000' } })
  org = await setupOrg(server, { name: 'Acme Codes' })
})
afterAll(() => server.close())

const getDocument = async (id: string) => bodyOf(await server.request(`/api/v1/documents/${id}`, { key: org.apiKey }))

async function codeSigner(): Promise<{ documentId: string; signer: SignerClient }> {
  const { documentId, signers } = await sendForSigning(server, org, { authRequired: [true] })
  return { documentId, signer: signers[0]! }
}

describe('the e-mail code step', () => {
  it('shows no document content before the code, and opens the document after it', async () => {
    const { documentId, signer } = await codeSigner()
    const page = await (await signer.page()).text()
    expect(page).toContain('6-digit code')
    // Neither the fields nor the page geometry of the document is in the code page.
    expect(page).not.toMatch(/"fields"|"pages"|Signature 0/)
    await expectError(await signer.call('/document.pdf'), 403, /code/)
    await expectError(await signer.view(), 403)
    await expectError(await signer.finish(valuesFor(0)), 403)
    await expectError(await signer.verify('123456'), 400, 'Ask for a code first: select "Email me a code".')

    expect(await bodyOf(await signer.sendCode())).toEqual({ sent_to: expect.stringMatching(/^s\*\*\*@example\.com$/) as unknown, resend_in_seconds: 60 })
    const code = await signer.latestCode()
    await expectError(await signer.verify('12345'), 400, 'Enter the 6 digits of the code from your e-mail.')
    expect(await bodyOf(await signer.verify(code))).toEqual({ verified: true })

    expect((await signer.call('/document.pdf')).headers.get('content-type')).toBe('application/pdf')
    expect(await (await signer.page()).text()).toMatch(/Signature 0/)
    expect((await getDocument(documentId)).signers).toMatchObject([{ auth_required: true, auth_verified: true, status: 'pending' }])
    expect(await bodyOf(await signer.finish(valuesFor(0)))).toEqual({ status: 'signed', document_status: 'completed' })
    const trail = await readAuditTrail(server.services.db, documentId)
    expect(trail.find((e) => e.type === 'document.signed')?.authMethod).toBe('email_link+email_code')
    // The code works once: it is gone after use.
    await expectError(await signer.verify(code), 409)
  })

  it('allows five wrong codes, then refuses even the right one until a new code is sent', async () => {
    const { documentId, signer } = await codeSigner()
    await signer.sendCode()
    const code = await signer.latestCode()
    const wrong = code === '000000' ? '111111' : '000000'
    const texts: string[] = []
    for (let i = 0; i < 5; i++) texts.push(await expectError(await signer.verify(wrong), 400))
    expect(texts).toEqual([
      'That code is not correct. 4 attempts left.',
      'That code is not correct. 3 attempts left.',
      'That code is not correct. 2 attempts left.',
      'That code is not correct. 1 attempt left.',
      'That code is not correct. Ask for a new code.',
    ])
    await expectError(await signer.verify(wrong), 429, 'Too many wrong codes. Ask for a new code.')
    await expectError(await signer.verify(code), 429, 'Too many wrong codes. Ask for a new code.')
    expect((await getDocument(documentId)).signers).toMatchObject([{ auth_verified: false }])

    await expectError(await signer.sendCode(), 429, /Wait \d+ seconds/)
    advance(61_000)
    expect((await signer.sendCode()).status).toBe(200)
    const fresh = await signer.latestCode(2)
    expect(await bodyOf(await signer.verify(fresh))).toEqual({ verified: true })
  })

  it('refuses an expired code', async () => {
    const { signer } = await codeSigner()
    await signer.sendCode()
    const code = await signer.latestCode()
    advance(10 * 60_000 + 1000)
    await expectError(await signer.verify(code), 400, 'This code has expired. Ask for a new code.')
    await expectError(await signer.call('/document.pdf'), 403)
  })

  it('asks a second browser for its own code', async () => {
    const { signer } = await codeSigner()
    await signer.sendCode()
    await signer.verify(await signer.latestCode())
    const { SignerClient } = await import('./helpers/signing.ts')
    const otherBrowser = new SignerClient(server, signer.token, signer.email)
    await expectError(await otherBrowser.call('/document.pdf'), 403)
  })
})

describe('the daily allowance of codes per signer', () => {
  const DAY_MS = 24 * 3_600_000
  const LOCKED =
    /^Too many codes were asked for or entered wrongly on this link\. For your security, no more codes can be sent or entered until (.+ GMT)\. Contact Acme Codes, who sent you this document/

  /** Asks for the signer's nth code (after the resend cool-down) and returns it. */
  async function nextCode(signer: SignerClient, nth: number): Promise<string> {
    advance(61_000)
    expect(await bodyOf(await signer.sendCode())).toMatchObject({ resend_in_seconds: 60 })
    return signer.latestCode(nth)
  }
  const wrongFor = (code: string) => (code === '000000' ? '111111' : '000000')

  it(`allows ${WRONG_CODES_PER_DAY} wrong codes in 24 hours, however many new codes are asked for; then the page says to contact the sender`, async () => {
    expect(WRONG_CODES_PER_DAY).toBe(10)
    const { documentId, signer } = await codeSigner()
    const texts: string[] = []
    for (let nth = 1; nth <= 3; nth++) {
      const code = await nextCode(signer, nth)
      for (let i = 0; i < 3; i++) texts.push(await expectError(await signer.verify(wrongFor(code)), 400))
    }
    // A new code gives five tries of its own, but not beyond what is left of the day's ten.
    expect(texts.map((text) => text.replace('That code is not correct. ', ''))).toEqual([
      '4 attempts left.',
      '3 attempts left.',
      '2 attempts left.',
      '4 attempts left.',
      '3 attempts left.',
      '2 attempts left.',
      '3 attempts left.',
      '2 attempts left.',
      '1 attempt left.',
    ])

    const fourth = await nextCode(signer, 4)
    const locked = await expectError(await signer.verify(wrongFor(fourth)), 429, LOCKED)
    const firstWrong = (await readAuditTrail(server.services.db, documentId)).find((e) => e.type === 'signer.code_rejected')?.occurredAt
    expect(LOCKED.exec(locked)?.[1]).toBe(new Date(firstWrong!.getTime() + DAY_MS).toUTCString())
    // Even the right code is refused now, and no new code is sent.
    await expectError(await signer.verify(fourth), 429, LOCKED)
    advance(61_000)
    await expectError(await signer.sendCode(), 429, LOCKED)
    const page = await (await signer.page()).text()
    expect(page).toContain('Too many code attempts')
    expect(page).toContain('Contact Acme Codes, who sent you this document')
    expect(page).not.toContain('6-digit code')
    expect((await getDocument(documentId)).signers).toMatchObject([{ auth_verified: false }])

    // A day after the first wrong code, the link takes codes again.
    advance(DAY_MS)
    expect(await (await signer.page()).text()).toContain('6-digit code')
    expect(await bodyOf(await signer.verify(await nextCode(signer, 5)))).toEqual({ verified: true })
  })

  it(`sends at most ${CODES_PER_DAY} codes in 24 hours; the last one still works until it is used up or expires`, async () => {
    expect(CODES_PER_DAY).toBe(5)
    const { signer } = await codeSigner()
    for (let nth = 1; nth <= 4; nth++) await nextCode(signer, nth)
    const last = await nextCode(signer, 5)
    advance(61_000)
    await expectError(await signer.sendCode(), 429, LOCKED)
    expect(await (await signer.page()).text()).toContain('6-digit code')

    advance(10 * 60_000)
    await expectError(await signer.verify(last), 429, LOCKED)
    expect(await (await signer.page()).text()).toContain('Contact Acme Codes, who sent you this document')
    expect(await server.services.db.select().from(outboundEmails).where(eq(outboundEmails.toAddress, signer.email))).toHaveLength(1 + CODES_PER_DAY)
  })
})

describe('expiry', () => {
  it('closes the links at expires_at and voids the document with a document.expired event', async () => {
    const expiresAt = new Date(clock.now().getTime() + 3_600_000).toISOString()
    const { documentId, signers } = await sendForSigning(server, org, { roles: [0, 1], expiresAt })
    await signers[0]!.finish(valuesFor(0))
    advance(3_600_000 + 1000)

    await expectError(await signers[1]!.finish(valuesFor(1)), 410, /expired on/)
    expect(await (await signers[1]!.page()).text()).toContain('This signing request has expired')
    expect((await getDocument(documentId)).status).toBe('sent')

    expect(await expireDueDocuments(server.services.db, clock, server.config.publicUrl)).toBeGreaterThanOrEqual(1)
    const document = await getDocument(documentId)
    // The spec's status stays voided; the extension says why, for the dashboard's "Expired".
    expect(document).toMatchObject({ status: 'voided', voided_reason: 'expired' })
    expect((document.signers as Json[]).map((s) => s.status)).toEqual(['signed', 'pending'])
    expect(await (await signers[1]!.page()).text()).toContain('This signing request has expired')
    await expectError(await signers[1]!.finish(valuesFor(1)), 410)
    const audit = await bodyOf<{ events: { event: string; auth_method: string | null }[] }>(
      await server.request(`/api/v1/documents/${documentId}/audit`, { key: org.apiKey }),
    )
    expect(audit.events.at(-1)).toMatchObject({ event: 'document.expired', auth_method: 'system' })
    expect(await expireDueDocuments(server.services.db, clock, server.config.publicUrl)).toBe(0)
  })
})
