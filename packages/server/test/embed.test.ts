import { eq } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { checkAuditChain, readAuditTrail } from '../src/audit/audit-trail.ts'
import { webhookDeliveries } from '../src/db/schema.ts'
import { MAX_RECORDED_REFUSALS } from '../src/signing/embed/embed-links.ts'
import { bodyOf, expectError, setupOrg, type Json, type TestOrg } from './helpers/api.ts'
import { movableClock } from './helpers/clock.ts'
import { sendForSigning, SignerClient, valuesFor } from './helpers/signing.ts'
import { startTestServer, type TestServer } from './helpers/test-server.ts'

/** Embedded signing over HTTP: minting the single-use URL, its refusals, its one use, the embedded page's audit trail and framing. */
const { clock, advance } = movableClock()

let server: TestServer
let org: TestOrg
const APP = 'https://app.example.com'

beforeAll(async () => {
  // A webhook endpoint on a closed loopback port: deliveries are queued (and fail), which shows what webhooks carry.
  server = await startTestServer({ clock, env: { WEBHOOK_ALLOW_PRIVATE: 'true' } })
  org = await setupOrg(server, { name: 'Acme Embeds' })
  const saved = await server.request('/api/v1/settings/embed', { method: 'PUT', key: org.apiKey, json: { origins: [APP, 'http://localhost:5173'] } })
  expect(saved.status).toBe(200)
  const endpoint = await server.request('/api/v1/webhooks', { method: 'POST', key: org.apiKey, json: { url: 'http://127.0.0.1:9/hooks' } })
  expect(endpoint.status).toBe(201)
}, 120_000)
afterAll(() => server.close())

const signerIdsOf = async (documentId: string, apiKey = org.apiKey) =>
  (await bodyOf<{ signers: { id: string }[] }>(await server.request(`/api/v1/documents/${documentId}`, { key: apiKey }))).signers.map((s) => s.id)

const embed = (documentId: string, signerId: string, body: Json = {}, apiKey = org.apiKey) =>
  server.request(`/api/v1/documents/${documentId}/signers/${signerId}/embed`, { method: 'POST', key: apiKey, json: body })

/** Mints a URL that must be accepted and returns its path. */
async function embedPath(documentId: string, signerId: string, body: Json = {}): Promise<string> {
  const response = await embed(documentId, signerId, body)
  const created = await bodyOf<{ url: string; expires_at: string }>(response)
  expect(response.status, JSON.stringify(created)).toBe(201)
  expect(Object.keys(created).sort()).toEqual(['expires_at', 'url'])
  expect(created.url).toMatch(new RegExp(`^${server.config.publicUrl}/sign/embed/[A-Za-z0-9_-]{43}$`))
  expect(Date.parse(created.expires_at) - clock.now().getTime()).toBeGreaterThan(4.9 * 60_000)
  expect(Date.parse(created.expires_at) - clock.now().getTime()).toBeLessThanOrEqual(5 * 60_000)
  return new URL(created.url).pathname
}

/** GETs an embed URL without following the redirect. */
const open = (path: string) => server.request(path, { redirect: 'manual', headers: { 'user-agent': 'EmbedTest/1.0' } })

/** Opens an embed URL, which must work: the embedded page's client (its capability instead of the e-mailed token). */
async function openEmbedded(path: string, email: string): Promise<SignerClient> {
  const response = await open(path)
  expect(response.status).toBe(303)
  const location = response.headers.get('location') ?? ''
  expect(location).toMatch(/^\/sign\/em_[A-Za-z0-9_-]{43}$/)
  return new SignerClient(server, location.slice('/sign/'.length), email)
}

const auditTrail = async (documentId: string) =>
  bodyOf<{ events: Json[]; chain_valid: boolean }>(await server.request(`/api/v1/documents/${documentId}/audit`, { key: org.apiKey }))
const audit = async (documentId: string) => (await auditTrail(documentId)).events

/** The words of an e-mailed link that does not work, and of an embedded one (signing/i18n/messages/en.json). */
const EMAILED_LINK_TEXT = 'This signing link is not valid. Check that you copied the whole link from your e-mail.'
const EMBEDDED_LINK_TEXT = 'This signing link has been used or has expired. Go back to the app that showed you the signing page and open it again from there.'

/** The "does not work" page of an embed URL or an embedded page: it sends the signer back to the app, and never to their e-mail. */
async function expectLinkDoesNotWork(response: Response): Promise<string> {
  expect(response.status).toBe(404)
  const html = await response.text()
  expect(html).toContain('<h1>This link does not work</h1>')
  expect(html).toContain(`<p>${EMBEDDED_LINK_TEXT}</p>`)
  expect(html).not.toMatch(/e-?mail/i)
  return html
}

describe('an embed URL', () => {
  it('opens the signer page once; the embedded page signs, and every event says embedded and which key vouched', async () => {
    const { documentId, signers } = await sendForSigning(server, org)
    const [signerId] = await signerIdsOf(documentId)
    const path = await embedPath(documentId, signerId!, { parent_origin: APP })
    const page = await openEmbedded(path, signers[0]!.email)

    const html = await (await page.page()).text()
    expect(html).toContain('Signature 0')
    expect(html).toContain(`"parentOrigin":"${APP}"`)
    // Opening the URL is not a view (a frame the browser refuses opens it too): the page's script, or finishing, records it.
    expect((await audit(documentId)).map((e) => e.event)).toEqual(['document.sent'])
    // Single use: the second GET, and a made-up token, show the page of a dead embedded link.
    await expectLinkDoesNotWork(await open(path))
    await expectLinkDoesNotWork(await open('/sign/embed/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA'))
    // The refused second open is in the trail (a made-up token names no document).
    expect((await audit(documentId)).map((e) => e.event)).toEqual(['document.sent', 'signer.embed_url_refused'])

    expect(await bodyOf(await page.finish(valuesFor(0)))).toEqual({ status: 'signed', document_status: 'completed' })
    const events = await audit(documentId)
    const keyName = org.apiKey.slice(0, 'sgn_live_'.length + 8)
    const embedded = { embedded: true, vouched_by: `api_key ${keyName}`, signer_authenticated_by_integrator: false }
    expect(events.filter((e) => e.event === 'document.viewed')).toEqual([
      expect.objectContaining({ auth_method: 'api_key', data: embedded, user_agent: 'SignetTest/1.0' }),
    ])
    expect(events.find((e) => e.event === 'document.signed')).toMatchObject({ auth_method: 'api_key', data: { ...embedded, fields: 4 } })
    // The e-mailed link is untouched: it shows the completed document as before.
    expect(await (await signers[0]!.page()).text()).toContain('Everyone has signed')
  })

  it('is refused for a signer who finished, a closed document, and auth_required without the integrator vouching', async () => {
    const two = await sendForSigning(server, org, { roles: [0, 1] })
    const [first, second] = await signerIdsOf(two.documentId)
    await two.signers[0]!.finish(valuesFor(0))
    await expectError(await embed(two.documentId, first!), 409, new RegExp(`${two.signers[0]!.email} has already signed`))
    await two.signers[1]!.decline('No')
    await expectError(await embed(two.documentId, second!), 409, /This document is declined/)

    const voided = await sendForSigning(server, org)
    const [voidedSigner] = await signerIdsOf(voided.documentId)
    expect((await server.request(`/api/v1/documents/${voided.documentId}/void`, { method: 'POST', key: org.apiKey, json: {} })).status).toBe(200)
    await expectError(await embed(voided.documentId, voidedSigner!), 409, /This document is voided/)

    const coded = await sendForSigning(server, org, { authRequired: [true] })
    const [codedSigner] = await signerIdsOf(coded.documentId)
    const refused = await embed(coded.documentId, codedSigner!)
    await expectError(refused.clone(), 403, /must prove their e-mail address with a code/)
    expect((await bodyOf(refused)).field).toBe('/signer_authenticated')
    await expectError(await embed(coded.documentId, codedSigner!, { signer_authenticated: false }), 403)

    // Vouched for: the page opens without the code step, and the trail says the integrator authenticated the signer.
    const page = await openEmbedded(await embedPath(coded.documentId, codedSigner!, { signer_authenticated: true }), coded.signers[0]!.email)
    expect(await (await page.page()).text()).toContain('Signature 0')
    expect((await page.call('/document.pdf')).headers.get('content-type')).toBe('application/pdf')
    expect(await bodyOf(await page.view())).toEqual({ ok: true })
    // No parent origin asked for: the page posts nothing.
    expect(await (await page.page()).text()).not.toContain('parentOrigin')
    expect((await audit(coded.documentId)).find((e) => e.event === 'document.viewed')?.data).toMatchObject({ signer_authenticated_by_integrator: true })
    // The e-mailed link of the same signer still needs the code.
    await expectError(await coded.signers[0]!.call('/document.pdf'), 403, /code/)
  })

  it('expires after five minutes, and an embedded page after its hours', async () => {
    const { documentId, signers } = await sendForSigning(server, org)
    const [signerId] = await signerIdsOf(documentId)
    const stale = await embedPath(documentId, signerId!)
    advance(5 * 60_000 + 1000)
    await expectLinkDoesNotWork(await open(stale))

    const page = await openEmbedded(await embedPath(documentId, signerId!), signers[0]!.email)
    advance(13 * 3_600_000)
    await expectLinkDoesNotWork(await page.page())
    await expectError(await page.view(), 404)
  })

  it("is 404 for another org's document or signer, and for ids that are not ids", async () => {
    const other = await setupOrg(server, { name: 'Other Org' })
    const theirs = await sendForSigning(server, other)
    const [theirSigner] = await signerIdsOf(theirs.documentId, other.apiKey)
    await expectError(await embed(theirs.documentId, theirSigner!), 404, 'Document not found.')
    const ours = await sendForSigning(server, org)
    await expectError(await embed(ours.documentId, theirSigner!), 404, 'Signer not found.')
    await expectError(await embed(ours.documentId, 'not-a-uuid'), 404, 'Signer not found.')
    await expectError(await embed('../../x', theirSigner!), 404)
  })

  it('takes only a registered parent origin and known fields', async () => {
    const { documentId } = await sendForSigning(server, org)
    const [signerId] = await signerIdsOf(documentId)
    const refused = await embed(documentId, signerId!, { parent_origin: 'https://evil.example' })
    await expectError(refused.clone(), 400, /"https:\/\/evil.example" is not one of this workspace's embed origins/)
    expect((await bodyOf(refused)).field).toBe('/parent_origin')
    await expectError(await embed(documentId, signerId!, { parent_origin: '*' }), 400)
    await expectError(await embed(documentId, signerId!, { signer_authenticated: 'yes' }), 400)
    await expectError(await embed(documentId, signerId!, { url: 'x' }), 400)
  })
})

describe('a used or expired embed URL opened again', () => {
  it('is recorded in the hash-chained audit trail with its reason, and the chain still verifies', async () => {
    const { documentId, signers } = await sendForSigning(server, org)
    const [signerId] = await signerIdsOf(documentId)
    const used = await embedPath(documentId, signerId!, { parent_origin: APP })
    await openEmbedded(used, signers[0]!.email)
    await expectLinkDoesNotWork(await open(used))
    const stale = await embedPath(documentId, signerId!)
    advance(5 * 60_000 + 1000)
    await expectLinkDoesNotWork(await open(stale))

    const { events, chain_valid } = await auditTrail(documentId)
    expect(chain_valid).toBe(true)
    expect(checkAuditChain(await readAuditTrail(server.services.db, documentId)).intact).toBe(true)
    const keyName = org.apiKey.slice(0, 'sgn_live_'.length + 8)
    const embedded = { embedded: true, vouched_by: `api_key ${keyName}`, signer_authenticated_by_integrator: false }
    const refused = {
      event: 'signer.embed_url_refused',
      actor: signers[0]!.email,
      signer_id: signerId,
      ip: '127.0.0.1',
      user_agent: 'EmbedTest/1.0',
      auth_method: 'api_key',
    }
    expect(events.map((e) => e.event)).toEqual(['document.sent', 'signer.embed_url_refused', 'signer.embed_url_refused'])
    expect(events.slice(1)).toEqual([
      expect.objectContaining({ ...refused, data: { ...embedded, reason: 'used' } }),
      expect.objectContaining({ ...refused, data: { ...embedded, reason: 'expired' } }),
    ])
    // Each event chains to the one before.
    expect(events.map((e) => e.seq)).toEqual([1, 2, 3])
  })

  it('is not a webhook event: endpoints get only the events of the contract', async () => {
    const { documentId, signers } = await sendForSigning(server, org)
    const [signerId] = await signerIdsOf(documentId)
    const path = await embedPath(documentId, signerId!)
    const page = await openEmbedded(path, signers[0]!.email)
    await expectLinkDoesNotWork(await open(path))
    expect(await bodyOf(await page.view())).toEqual({ ok: true })
    const refusal = (await audit(documentId)).find((e) => e.event === 'signer.embed_url_refused')
    expect(refusal).toBeDefined()

    const queued = await server.services.db.select({ event: webhookDeliveries.event }).from(webhookDeliveries).where(eq(webhookDeliveries.orgId, org.orgId))
    // The view of this document was queued for the endpoint; the refusal never is.
    expect(queued.map((d) => d.event)).toContain('document.viewed')
    expect(new Set(queued.map((d) => d.event))).not.toContain('signer.embed_url_refused')
  })

  it(`keeps at most ${MAX_RECORDED_REFUSALS} refusals per signer, however often the URL is reloaded`, async () => {
    const { documentId, signers } = await sendForSigning(server, org)
    const [signerId] = await signerIdsOf(documentId)
    const path = await embedPath(documentId, signerId!)
    await openEmbedded(path, signers[0]!.email)
    for (let i = 0; i < MAX_RECORDED_REFUSALS + 3; i++) expect((await open(path)).status).toBe(404)
    const { events, chain_valid } = await auditTrail(documentId)
    expect(events.filter((e) => e.event === 'signer.embed_url_refused')).toHaveLength(MAX_RECORDED_REFUSALS)
    expect(chain_valid).toBe(true)
  })
})

describe('the "This link does not work" page', () => {
  it('of an embedded page past its hours sends the signer back to the app, inside the frame, in their language', async () => {
    const { documentId, signers } = await sendForSigning(server, org)
    const [signerId] = await signerIdsOf(documentId)
    const page = await openEmbedded(await embedPath(documentId, signerId!), signers[0]!.email)
    advance(13 * 3_600_000)
    const expired = await page.page()
    expect(expired.headers.get('content-security-policy')).toContain(`frame-ancestors ${APP} http://localhost:5173`)
    await expectLinkDoesNotWork(expired)
    // The JSON calls of that page say the same.
    await expectError(await page.view(), 404, EMBEDDED_LINK_TEXT)

    const german = await server.request(`/sign/${page.token}`, { headers: { 'accept-language': 'de' } })
    expect(german.status).toBe(404)
    const html = await german.text()
    expect(html).toContain('<h1>Dieser Link funktioniert nicht</h1>')
    expect(html).toContain('Kehren Sie zu der App zurück, die Ihnen die Seite zum Unterschreiben gezeigt hat, und öffnen Sie sie dort erneut.')
    expect(html).not.toMatch(/e-?mail/i)
  })

  it('of an embed URL that is not one (malformed, or too long for the router) says the same', async () => {
    await expectLinkDoesNotWork(await open('/sign/embed/short'))
    await expectLinkDoesNotWork(await open(`/sign/embed/${'A'.repeat(120)}`))
    await expectLinkDoesNotWork(await open(`/sign/em_${'A'.repeat(43)}`))
  })

  it('of an e-mailed link keeps pointing to the e-mail', async () => {
    for (const path of [`/sign/${'A'.repeat(43)}`, '/sign/short', `/sign/${'A'.repeat(120)}`]) {
      const response = await server.request(path)
      expect(response.status, path).toBe(404)
      const html = await response.text()
      expect(html, path).toContain(`<p>${EMAILED_LINK_TEXT}</p>`)
      expect(html, path).not.toContain(EMBEDDED_LINK_TEXT)
    }
  })
})

describe('framing', () => {
  it("lets the workspace's embed origins frame the embedded page, and nothing frame the e-mailed one", async () => {
    const { documentId, signers } = await sendForSigning(server, org)
    const [signerId] = await signerIdsOf(documentId)
    const emailed = await signers[0]!.page()
    expect(emailed.headers.get('content-security-policy')).toContain("frame-ancestors 'none'")
    expect(emailed.headers.get('x-frame-options')).toBe('DENY')

    const page = await openEmbedded(await embedPath(documentId, signerId!), signers[0]!.email)
    const framed = await page.page()
    expect(framed.headers.get('content-security-policy')).toContain(`frame-ancestors ${APP} http://localhost:5173`)
    expect(framed.headers.get('content-security-policy')).not.toContain("frame-ancestors 'none'")
    expect(framed.headers.get('x-frame-options')).toBeNull()

    // Another workspace's list is its own; with none, its embedded pages frame nowhere.
    const other = await setupOrg(server, { name: 'No Origins' })
    const theirs = await sendForSigning(server, other)
    const [theirSigner] = await signerIdsOf(theirs.documentId, other.apiKey)
    const created = await bodyOf<{ url: string }>(await embed(theirs.documentId, theirSigner!, {}, other.apiKey))
    const theirPage = await openEmbedded(new URL(created.url).pathname, theirs.signers[0]!.email)
    const headers = (await theirPage.page()).headers
    expect(headers.get('content-security-policy')).toContain("frame-ancestors 'none'")
    expect(headers.get('x-frame-options')).toBe('DENY')
  })
})

describe('the embed origins setting', () => {
  const put = (body: unknown) => server.request('/api/v1/settings/embed', { method: 'PUT', key: org.apiKey, json: body })

  it('reads back what was saved, without duplicates', async () => {
    const other = await setupOrg(server)
    const before = await server.request('/api/v1/settings/embed', { key: other.apiKey })
    expect(await bodyOf(before)).toEqual({ origins: [] })
    const saved = await server.request('/api/v1/settings/embed', {
      method: 'PUT',
      key: other.apiKey,
      json: { origins: ['https://a.example', 'https://a.example', 'http://127.0.0.1:8080', 'http://[::1]:3000'] },
    })
    expect(await bodyOf(saved)).toEqual({ origins: ['https://a.example', 'http://127.0.0.1:8080', 'http://[::1]:3000'] })
    expect(await bodyOf(await server.request('/api/v1/settings/embed', { key: other.apiKey }))).toEqual({
      origins: ['https://a.example', 'http://127.0.0.1:8080', 'http://[::1]:3000'],
    })
  })

  it('refuses anything but an exact https (or loopback http) origin, with the field at fault', async () => {
    const hostile: [unknown, RegExp][] = [
      ['https://app.example.com/', /write it as https:\/\/app.example.com/],
      ['https://app.example.com/path', /write it as https:\/\/app.example.com/],
      ['https://APP.example.com', /write it as https:\/\/app.example.com/],
      ['https://app.example.com:443', /write it as https:\/\/app.example.com/],
      ['https://user:pw@app.example.com', /write it as https:\/\/app.example.com/],
      ['http://app.example.com', /plain http/],
      ['https://*.example.com', /not an origin/],
      ["'self'", /not an origin/],
      ['*', /not an origin/],
      ['javascript:alert(1)', /not an origin/],
      ['https://a.example; script-src *', /not an origin/],
      ['https://a.example https://b.example', /not an origin/],
      ['https://exämple.com', /write it as https:\/\/xn--/],
      ['data:text/html,x', /not an origin/],
      ['null', /not an origin/],
    ]
    for (const [origin, message] of hostile) {
      const response = await put({ origins: ['https://ok.example', origin] })
      const body = await bodyOf(response.clone())
      expect({ origin, status: response.status, field: body.field }).toEqual({ origin, status: 400, field: '/origins/1' })
      await expectError(response, 400, message)
    }
    for (const body of [
      {},
      { origins: 'https://a.example' },
      { origins: [1] },
      { origins: [''] },
      { origins: ['x'.repeat(201)] },
      { origins: [], extra: 1 },
      null,
    ]) {
      await expectError(await put(body), 400)
    }
    await expectError(await put({ origins: Array.from({ length: 21 }, (_, i) => `https://a${i}.example`) }), 400)
    expect((await put({ origins: Array.from({ length: 20 }, (_, i) => `https://a${i}.example`) })).status).toBe(200)
    // What was refused changed nothing; restore this suite's list.
    expect((await put({ origins: [APP, 'http://localhost:5173'] })).status).toBe(200)
  })
})

describe('the embed script', () => {
  it('is served for any origin to load', async () => {
    const response = await server.request('/embed/signet-signing.js')
    expect(response.status).toBe(200)
    expect(response.headers.get('content-type')).toBe('text/javascript; charset=utf-8')
    expect(response.headers.get('cross-origin-resource-policy')).toBe('cross-origin')
    expect(response.headers.get('access-control-allow-origin')).toBe('*')
    expect(await response.text()).toContain('signet-signing')
  })
})
