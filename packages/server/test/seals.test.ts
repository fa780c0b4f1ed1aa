import { createHash } from 'node:crypto'
import { verifyPdf } from '@signet/verify'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { bodyOf, expectError, setupOrg, type Json, type TestOrg } from './helpers/api.ts'
import { makePdf } from './helpers/pdf.ts'
import { download, pdfsigReport, postSeal, runOnPdf, verifyIdentity } from './helpers/seals.ts'
import { startTestServer, type TestServer } from './helpers/test-server.ts'
import { haveTools } from '../../../test-support/tools.ts'

/*
 * Self-sealing over REST with the default instance (generated PKI, built-in TSA): what
 * an org uploads comes back as a PAdES B-T sealed PDF that our verifier, poppler's
 * pdfsig and qpdf accept, with the badge, the certificate and the public page.
 */

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex')
const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])

let server: TestServer
let org: TestOrg
let original: Uint8Array
let rootPem: string

beforeAll(async () => {
  server = await startTestServer()
  org = await setupOrg(server, { name: 'Acme' })
  await verifyIdentity(server, org.orgId, 'Acme Widgets Ltd')
  original = await makePdf(3)
  rootPem = await (await server.request('/.well-known/signet-root.pem')).text()
})
afterAll(async () => {
  await server?.close()
})

async function seal(query: Record<string, string> = {}, pdf = original): Promise<Json> {
  const response = await postSeal(server, org.apiKey, pdf, { title: 'Annual report 2026', ...query })
  expect(response.status).toBe(201)
  return bodyOf(response)
}

describe('POST /api/v1/seals', () => {
  test('seals the upload: 201 with the seal and its links; the sealed file verifies against the published root', async () => {
    const sealed = await seal({ filename: 'report.pdf' })
    expect(sealed).toMatchObject({
      title: 'Annual report 2026',
      status: 'completed',
      is_verified_badge: true,
      certificate_mode: 'both',
      seal_status: 'sealed',
      original_sha256: sha256(original),
      last_error: null,
      verify_url: `http://signet.test/verify/${sealed.id as string}`,
      sealed_file_url: `http://signet.test/api/v1/documents/${sealed.id as string}/signed-file`,
      certificate_file_url: `http://signet.test/api/v1/documents/${sealed.id as string}/certificate`,
      badge_image_url: `http://signet.test/api/v1/documents/${sealed.id as string}/badge`,
    })
    expect(sealed.timestamp_authority).toBe('Signet (signet.test) Time-Stamp Authority')
    expect(Math.abs(Date.parse(sealed.sealed_at as string) - Date.now())).toBeLessThan(60_000)

    const file = await download(server, org.apiKey, `/api/v1/documents/${sealed.id as string}/signed-file`)
    expect(sha256(file)).toBe(sealed.sha256)
    const trusted = await verifyPdf(file, { trustAnchors: [rootPem] })
    expect(trusted.verdict).toBe('verified')
    expect(trusted.signatures).toHaveLength(1)
    expect(trusted.signatures[0]).toMatchObject({ subFilter: 'ETSI.CAdES.detached', coversWholeFile: true, digestMatches: true, signatureValid: true })
    expect(trusted.signatures[0]?.timestamp?.time).toBe(sealed.sealed_at)
    expect((await verifyPdf(file)).verdict).toBe('verified-untrusted-root')

    const flipped = file.slice()
    const at = Math.floor(flipped.length / 4)
    flipped[at] = (flipped[at] as number) ^ 0x01
    expect((await verifyPdf(flipped, { trustAnchors: [rootPem] })).verdict).toBe('mismatch')
  })

  test.runIf(haveTools('pdfsig', 'qpdf', 'pdftotext'))('the sealed file and the certificate open in real tools: pdfsig and qpdf accept them', async () => {
    const sealed = await seal()
    const file = await download(server, org.apiKey, `/api/v1/documents/${sealed.id as string}/signed-file`)
    const certificate = await download(server, org.apiKey, `/api/v1/documents/${sealed.id as string}/certificate`)
    for (const pdf of [file, certificate]) {
      const report = pdfsigReport(pdf)
      expect(report).toContain('Signature is Valid.')
      expect(report).toContain('Total document signed')
      expect(runOnPdf(pdf, 'qpdf', (path) => ['--check', path])).toContain('No syntax or stream encoding errors')
      expect((await verifyPdf(pdf, { trustAnchors: [rootPem] })).verdict).toBe('verified')
    }
    // Mode both: the certificate page is appended inside the sealed file and also stands alone.
    expect(runOnPdf(file, 'qpdf', (path) => ['--show-npages', path]).trim()).toBe(String(4))
    const text = runOnPdf(certificate, 'pdftotext', (path) => [path, '-'])
    expect(text).toContain('Acme Widgets Ltd')
    expect(text).toContain(sha256(original))
    expect(text).toContain(sealed.verify_url)
  })

  test('certificate modes: separate keeps the original untouched, appended has no standalone certificate', async () => {
    const separate = await seal({ certificate_mode: 'separate' })
    const separateFile = await download(server, org.apiKey, `/api/v1/documents/${separate.id as string}/signed-file`)
    // The seal is an incremental update: the upload is a byte-for-byte prefix of the sealed file.
    expect(Buffer.from(separateFile.subarray(0, original.byteLength)).equals(Buffer.from(original))).toBe(true)
    expect((await verifyPdf(separateFile, { trustAnchors: [rootPem] })).verdict).toBe('verified')
    const certificate = await server.request(`/api/v1/documents/${separate.id as string}/certificate`, { key: org.apiKey })
    expect(certificate.status).toBe(200)
    expect(certificate.headers.get('content-type')).toBe('application/pdf')

    const appended = await seal({ certificate_mode: 'appended' })
    expect(appended.certificate_file_url).toBeNull()
    await expectError(
      await server.request(`/api/v1/documents/${appended.id as string}/certificate`, { key: org.apiKey }),
      404,
      'No standalone certificate for this document.',
    )
  })

  test('the Verified Badge: a 640×820 PNG, byte-identical on every call', async () => {
    const sealed = await seal()
    const first = await download(server, org.apiKey, `/api/v1/documents/${sealed.id as string}/badge`)
    const second = await download(server, org.apiKey, `/api/v1/documents/${sealed.id as string}/badge`)
    expect(Buffer.from(first.subarray(0, 8)).equals(PNG_SIGNATURE)).toBe(true)
    const header = Buffer.from(first.subarray(16, 24))
    expect([header.readUInt32BE(0), header.readUInt32BE(4)]).toEqual([640, 820])
    expect(Buffer.from(first).equals(Buffer.from(second))).toBe(true)
    const other = await seal({ title: 'Another title' })
    const otherBadge = await download(server, org.apiKey, `/api/v1/documents/${other.id as string}/badge`)
    expect(Buffer.from(otherBadge).equals(Buffer.from(first))).toBe(false)
  })

  test('self-sealed documents are listed with status=completed only when include_self_sealed=true', async () => {
    const sealed = await seal()
    const ids = async (query: string) =>
      (await bodyOf<{ documents: Json[] }>(await server.request(`/api/v1/documents?${query}`, { key: org.apiKey }))).documents.map((d) => d.id)
    expect(await ids('status=completed&limit=100')).not.toContain(sealed.id)
    expect(await ids('status=completed&include_self_sealed=true&limit=100')).toContain(sealed.id)
    const listed = (await bodyOf<{ documents: Json[] }>(await server.request('/api/v1/documents?limit=100', { key: org.apiKey }))).documents
    expect(listed.find((d) => d.id === sealed.id)).toMatchObject({ status: 'completed', is_verified_badge: true })
    // The seal's own view, and another org sees nothing.
    const view = await server.request(`/api/v1/seals/${sealed.id as string}`, { key: org.apiKey })
    expect(await bodyOf(view)).toEqual(sealed)
    const stranger = await setupOrg(server)
    await expectError(await server.request(`/api/v1/seals/${sealed.id as string}`, { key: stranger.apiKey }), 404, 'Document not found.')
    await expectError(await server.request(`/api/v1/documents/${sealed.id as string}/badge`, { key: stranger.apiKey }), 404, 'Document not found.')
  })

  test('bad requests get a clear 4xx', async () => {
    const needsIdentity = await setupOrg(server)
    await expectError(await postSeal(server, needsIdentity.apiKey, original, { title: 'x' }), 412, /identity check/)
    await expectError(await postSeal(server, org.apiKey, new TextEncoder().encode('hello'), { title: 'x' }), 400, /not a PDF/)
    await expectError(await postSeal(server, org.apiKey, new Uint8Array(), { title: 'x' }), 400, 'Send the PDF as the request body.')
    await expectError(await postSeal(server, org.apiKey, original, { title: 'x', certificate_mode: 'stapled' }), 400, /certificate_mode/)
    await expectError(await postSeal(server, org.apiKey, original, { title: 'x', colour: 'red' }), 400, /colour/)
    await expectError(await postSeal(server, org.apiKey, original), 400, /title/)
    const json = await server.request('/api/v1/seals?title=x', { method: 'POST', key: org.apiKey, json: { file_base64: 'JVBERi0=' } })
    await expectError(json, 415, 'Unsupported Content-Type: send the body as application/pdf.')
    const huge = new Uint8Array(25 * 1024 * 1024 + 1)
    await expectError(await postSeal(server, org.apiKey, huge, { title: 'x' }), 413, /larger than/)
    await expectError(await postSeal(server, 'sgn_live_nope', original, { title: 'x' }), 401)
  })

  test('the title defaults to the filename; seals are metered like sends (Free: 3 a month, shared)', async () => {
    const free = await setupOrg(server, { plan: 'free' })
    await verifyIdentity(server, free.orgId)
    const first = await postSeal(server, free.apiKey, original, { filename: 'C:\\Users\\me\\Q3 Board Minutes.PDF' })
    expect(first.status).toBe(201)
    expect(await bodyOf(first)).toMatchObject({ title: 'Q3 Board Minutes' })
    // One pool: a send and a seal take the other two units of the month…
    const send = await server.request('/api/v1/documents', {
      method: 'POST',
      key: free.apiKey,
      json: { template_id: free.templateId, signer: { email: 'ann@example.com' } },
    })
    expect(send.status).toBe(201)
    expect((await postSeal(server, free.apiKey, original, { title: 'Second seal' })).status).toBe(201)
    // …so both the next seal and the next send are refused.
    const refused = await postSeal(server, free.apiKey, original, { title: 'one too many' })
    expect(refused.status).toBe(402)
    expect(await bodyOf(refused)).toMatchObject({ error: expect.stringContaining('Free plan') as unknown, upgrade_url: expect.any(String) as unknown })
    const refusedSend = await server.request('/api/v1/documents', {
      method: 'POST',
      key: free.apiKey,
      json: { template_id: free.templateId, signer: { email: 'bo@example.com' } },
    })
    expect(refusedSend.status).toBe(402)
    expect(await bodyOf(await server.request('/api/v1/usage', { key: free.apiKey }))).toMatchObject({ included_used: 3, included_remaining: 0 })
  })
})

describe('public verification', () => {
  test('the root certificate is published as PEM', async () => {
    const response = await server.request('/.well-known/signet-root.pem')
    expect(response.status).toBe(200)
    expect(response.headers.get('content-type')).toBe('application/x-pem-file')
    expect(rootPem).toMatch(/^-----BEGIN CERTIFICATE-----\n[\s\S]+-----END CERTIFICATE-----\n$/)
  })

  test('/verify/<id> shows what was sealed, by whom, when, and the hash; its JSON says the same', async () => {
    const sealed = await seal({ title: 'Deed <of> sale' })
    const page = await server.request(`/verify/${sealed.id as string}`)
    expect(page.status).toBe(200)
    expect(page.headers.get('content-security-policy')).toContain("script-src 'self'")
    const htmlText = await page.text()
    expect(htmlText).toContain('Deed &lt;of&gt; sale')
    expect(htmlText).toContain('Acme Widgets Ltd')
    expect(htmlText).toContain(sealed.sha256)
    expect(htmlText).toContain("this service's own time-stamp authority, not a third party")

    const facts = await bodyOf(await server.request(`/verify/${sealed.id as string}.json`))
    expect(facts).toMatchObject({
      document_id: sealed.id,
      kind: 'self-sealed',
      title: 'Deed <of> sale',
      sealed_by: 'Acme Widgets Ltd',
      sealed_file_sha256: sealed.sha256,
      original_sha256: sha256(original),
      sealed_at: sealed.sealed_at,
      built_in_timestamp_authority: true,
      certificate_mode: 'both',
    })

    const script = await server.request(htmlText.match(/src="([^"]+verify\.js[^"]*)"/)?.[1] ?? '/missing')
    expect(script.status).toBe(200)
    expect(script.headers.get('content-type')).toContain('javascript')

    expect((await server.request('/verify/00000000-0000-4000-8000-000000000000')).status).toBe(404)
    await expectError(await server.request('/verify/not-a-uuid.json'), 404)
  })
})
