import { createCipheriv, randomBytes, randomUUID } from 'node:crypto'
import { eq, sql } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { SESSION_COOKIE } from '../src/accounts/sessions.ts'
import { documentCipherFor, instanceKeyFor } from '../src/adapters/document-cipher.ts'
import { executeAdminCommand } from '../src/admin/commands.ts'
import { identityChecks, identityDocumentKeys } from '../src/db/schema.ts'
import type { Logger } from '../src/lib/logger.ts'
import { bodyOf, expectError, type Json } from './helpers/api.ts'
import { attackFromOutside } from './helpers/health-watch.ts'
import { imageHeavyPdf } from './helpers/hostile-pdfs.ts'
import { makePdf } from './helpers/pdf.ts'
import { rgbaPng } from './helpers/png.ts'
import { createSignedInUser, type SignedInUser } from './helpers/session.ts'
import { startTestServer, type TestServer } from './helpers/test-server.ts'

/*
 * Identity documents (issue 18, findings 5, 8 and 14), on whichever database this run uses:
 *  - erased means erased: each document under a key of its own, the key a row of its own that the
 *    decision deletes (and rewrites out of the table's file), the ciphertext in the blob store and
 *    deleted with it, so that what a backup kept of the ciphertext opens no more;
 *  - a 10 MB document goes the PDFs' way (raw body, checked in a worker, staged to the blob store):
 *    /healthz, asked from another process, keeps answering while several arrive from a third;
 *  - a file is accepted only if it is, all of it, what its type says, and the operator's download
 *    is an attachment with a name of ours, its checked type, nosniff and a sandbox.
 */

const instanceKey = randomBytes(32)
const logger = { warn: () => undefined } as unknown as Logger
const cipher = documentCipherFor(instanceKeyFor({ identityDocumentKey: instanceKey, dataDir: '/nonexistent', databaseUrl: undefined }, logger))

let server: TestServer
let operator: SignedInUser

beforeAll(async () => {
  server = await startTestServer({ env: { IDENTITY_DOCUMENT_KEY: instanceKey.toString('base64') } })
  operator = await createSignedInUser(server.services, { name: 'Otto Operator', isOperator: true, baseUrl: server.url })
})
afterAll(async () => {
  await server?.close()
})

/** An RGBA PNG whose rows (`rows` of them, of `width` grey pixels) each start with filter type 0 (none). */
const greyPng = (width: number, height: number, rows = height) =>
  rgbaPng(width, height, Buffer.concat(Array.from({ length: rows }, () => Buffer.concat([Buffer.from([0]), Buffer.alloc(width * 4, 0x7f)]))))
const png = greyPng(2, 2)
/** A 51 × 66 baseline JPEG (a PDF page rendered by pdftoppm). */
const jpeg = Buffer.from(
  '/9j/4AAQSkZJRgABAQEABgAGAAD/2wBDAAgGBgcGBQgHBwcJCQgKDBQNDAsLDBkSEw8UHRofHh0aHBwgJC4nICIsIxwcKDcpLDAxNDQ0Hyc5PTgyPC4zNDL/2wBDAQkJCQwLDBgNDRgyIRwhMjIyMjIyMjIyMjIyMjIyMjIyMjIyMjIyMjIyMjIyMjIyMjIyMjIyMjIyMjIyMjIyMjL/wAARCABCADMDASIAAhEBAxEB/8QAHwAAAQUBAQEBAQEAAAAAAAAAAAECAwQFBgcICQoL/8QAtRAAAgEDAwIEAwUFBAQAAAF9AQIDAAQRBRIhMUEGE1FhByJxFDKBkaEII0KxwRVS0fAkM2JyggkKFhcYGRolJicoKSo0NTY3ODk6Q0RFRkdISUpTVFVWV1hZWmNkZWZnaGlqc3R1dnd4eXqDhIWGh4iJipKTlJWWl5iZmqKjpKWmp6ipqrKztLW2t7i5usLDxMXGx8jJytLT1NXW19jZ2uHi4+Tl5ufo6erx8vP09fb3+Pn6/8QAHwEAAwEBAQEBAQEBAQAAAAAAAAECAwQFBgcICQoL/8QAtREAAgECBAQDBAcFBAQAAQJ3AAECAxEEBSExBhJBUQdhcRMiMoEIFEKRobHBCSMzUvAVYnLRChYkNOEl8RcYGRomJygpKjU2Nzg5OkNERUZHSElKU1RVVldYWVpjZGVmZ2hpanN0dXZ3eHl6goOEhYaHiImKkpOUlZaXmJmaoqOkpaanqKmqsrO0tba3uLm6wsPExcbHyMnK0tPU1dbX2Nna4uPk5ebn6Onq8vP09fb3+Pn6/9oADAMBAAIRAxEAPwD313EaFiGIH91ST+QqD7dDnG2f/wAB5P8ACrNFAEMd1HLJsUSZ/wBqJlH5kY7VNRRQAUUUUAFFFFABRRRQAUUUUAFFFFABRRRQAUUUUAFFFFABRRRQAUUUUAFFFFABRRRQAUUUUAFFFFABRRRQAUUUUAFFFFABRRRQB//Z',
  'base64',
)
const HTML = Buffer.from('<html><body><script>alert(document.cookie)</script></body></html>\n')

async function newOwner(): Promise<SignedInUser> {
  const owner = await createSignedInUser(server.services, { name: 'Olive Owner', baseUrl: server.url })
  await executeAdminCommand(server.services, { name: 'org.set-plan', orgId: owner.orgId, plan: 'business' })
  return owner
}

const submit = (owner: SignedInUser, bytes: Uint8Array, type: string) =>
  owner.fetch('/api/v1/identity-check?legal_name=Acme%20Widgets%20Ltd', { method: 'POST', headers: { 'content-type': type }, body: new Uint8Array(bytes) })

async function pendingCheckId(orgId: string): Promise<string> {
  const queue = await bodyOf<{ checks: Json[] }>(await operator.fetch('/api/v1/operator/identity-checks?limit=200'))
  const check = queue.checks.find((c) => c.org_id === orgId)
  if (!check) throw new Error('no pending check for the org')
  return check.id as string
}

const documentPath = (checkId: string) => `/api/v1/operator/identity-checks/${checkId}/document`
const decide = (checkId: string, approve = true) =>
  operator.fetch(`/api/v1/operator/identity-checks/${checkId}/decision`, { method: 'POST', json: approve ? { approve } : { approve, reason: 'Unreadable.' } })

/** Whether the table's file on disk (after a checkpoint has written every page) holds `bytes`: what a copy of the data directory would hold. */
async function tableFileHolds(table: 'identity_document_keys' | 'identity_checks', bytes: Uint8Array): Promise<boolean> {
  const { db } = server.services
  await db.execute(sql`CHECKPOINT`)
  const result: unknown = await db.execute(sql`select pg_read_binary_file(pg_relation_filepath(${table}::regclass)) as file`)
  // Both drivers answer { rows }.
  const { rows } = result as { rows: { file: Uint8Array }[] }
  return Buffer.from(rows[0]?.file ?? []).includes(Buffer.from(bytes))
}

describe('5. erased means erased: a key per document, destroyed at the decision', () => {
  test('the ciphertext is in the blob store and its key in a row of its own; after the decision, what a backup kept opens no more', async () => {
    const owner = await newOwner()
    expect((await submit(owner, png, 'image/png')).status).toBe(201)
    const checkId = await pendingCheckId(owner.orgId)

    // Before the decision: what a copy of the database (and of the blob store) holds.
    const [row] = await server.services.db.select().from(identityChecks).where(eq(identityChecks.id, checkId))
    if (!row) throw new Error('no row')
    const [keyRow] = await server.services.db.select().from(identityDocumentKeys).where(eq(identityDocumentKeys.checkId, checkId))
    const blob = row.documentBlobSha256 ? await server.services.blobs.get(row.documentBlobSha256) : undefined
    expect(row.documentCiphertext).toBeNull()
    expect(blob?.byteLength).toBe(png.length + 12 + 16)
    expect(Buffer.from(blob ?? []).includes(png.subarray(8, 24))).toBe(false)
    expect(keyRow?.wrappedKey).toHaveLength(12 + 32 + 16)
    // That whole copy, with the instance key, is the document (backups taken while a check is pending hold it).
    expect((await cipher.open({ ciphertext: blob ?? new Uint8Array(), wrappedKey: keyRow?.wrappedKey ?? new Uint8Array() }, checkId)).equals(png)).toBe(true)
    expect(await tableFileHolds('identity_document_keys', keyRow?.wrappedKey ?? new Uint8Array())).toBe(true)

    expect((await decide(checkId)).status).toBe(200)

    // After: no key row, no blob, and the key's bytes are not in the table's file either (no dead row version).
    expect(await server.services.db.select().from(identityDocumentKeys).where(eq(identityDocumentKeys.checkId, checkId))).toEqual([])
    expect(await server.services.blobs.get(row.documentBlobSha256 ?? '')).toBeUndefined()
    expect(await tableFileHolds('identity_document_keys', keyRow?.wrappedKey ?? new Uint8Array())).toBe(false)
    const [decided] = await server.services.db.select().from(identityChecks).where(eq(identityChecks.id, checkId))
    expect(decided).toMatchObject({ status: 'approved', documentBlobSha256: null, documentCiphertext: null, documentContentType: 'image/png' })
    // Whatever ciphertext a backup kept from before the decision: the instance key alone opens none of it.
    const kept = [row.documentCiphertext, blob].filter((bytes): bytes is Uint8Array => bytes !== null && bytes !== undefined)
    expect(kept.length).toBeGreaterThan(0)
    for (const ciphertext of kept) await expect(cipher.openLegacy(ciphertext, checkId)).rejects.toMatchObject({ code: 'precondition_failed' })
    await expectError(await operator.fetch(documentPath(checkId)), 410, 'The document was erased when the check was decided.')
  })

  test('a rejection erases the same way; a decision deletes only its own ciphertext: the same PDF as a template stays', async () => {
    const owner = await newOwner()
    const pdf = await makePdf(1)
    const template = await bodyOf(
      await owner.fetch('/api/v1/templates?name=Register', { method: 'POST', headers: { 'content-type': 'application/pdf' }, body: new Uint8Array(pdf) }),
    )
    expect((await submit(owner, pdf, 'application/pdf')).status).toBe(201)
    const checkId = await pendingCheckId(owner.orgId)
    const [row] = await server.services.db.select().from(identityChecks).where(eq(identityChecks.id, checkId))
    expect((await decide(checkId, false)).status).toBe(200)
    expect(await server.services.blobs.get(row?.documentBlobSha256 ?? '')).toBeUndefined()
    expect(await server.services.db.select().from(identityDocumentKeys).where(eq(identityDocumentKeys.checkId, checkId))).toEqual([])
    const kept = await owner.fetch(`/api/v1/templates/${template.id as string}/pdf`)
    expect(kept.status).toBe(200)
    expect(Buffer.from(await kept.arrayBuffer()).equals(Buffer.from(pdf))).toBe(true)
  })

  test('a document stored before per-document keys (in its row, under the instance key) is still shown, then erased from the table file', async () => {
    const owner = await newOwner()
    const checkId = randomUUID()
    const iv = randomBytes(12)
    const old = createCipheriv('aes-256-gcm', instanceKey, iv).setAAD(Buffer.from(checkId))
    const ciphertext = Buffer.concat([iv, old.update(png), old.final(), old.getAuthTag()])
    await server.services.db.insert(identityChecks).values({
      id: checkId,
      orgId: owner.orgId,
      legalName: 'Acme Widgets Ltd',
      status: 'pending',
      submittedByUserId: owner.userId,
      verifier: 'manual',
      documentFilename: 'poly<b>.html',
      documentContentType: 'image/png',
      documentCiphertext: ciphertext,
    })
    const queue = await bodyOf<{ checks: Json[] }>(await operator.fetch('/api/v1/operator/identity-checks?limit=200'))
    expect(queue.checks.find((c) => c.id === checkId)?.document).toEqual({ filename: `identity-document-${checkId}.png`, content_type: 'image/png' })
    const download = await operator.fetch(documentPath(checkId))
    expect(download.headers.get('content-disposition')).toBe(`attachment; filename="identity-document-${checkId}.png"`)
    expect(Buffer.from(await download.arrayBuffer()).equals(png)).toBe(true)
    expect(await tableFileHolds('identity_checks', ciphertext)).toBe(true)

    expect((await decide(checkId)).status).toBe(200)
    const [decided] = await server.services.db.select().from(identityChecks).where(eq(identityChecks.id, checkId))
    expect(decided).toMatchObject({ documentCiphertext: null, documentFilename: null })
    expect(await tableFileHolds('identity_checks', ciphertext)).toBe(false)
  })
})

describe('8. a 10 MB document does not hold the server', () => {
  test(
    'four documents of about 10 MB at once (PNG and PDF): /healthz, asked from another process, answers within a second throughout',
    { timeout: 180_000 },
    async () => {
      const owners = await Promise.all(Array.from({ length: 4 }, () => newOwner()))
      // An incompressible 1,800 × 1,400 RGBA image (9.6 MB) and an image-heavy PDF of 9.5 MB.
      const width = 1800
      const rows = randomBytes(1400 * (1 + width * 4))
      for (let y = 0; y < 1400; y++) rows[y * (1 + width * 4)] = 0
      const bigPng = rgbaPng(width, 1400, rows)
      const bigPdf = imageHeavyPdf(9.5)
      expect(Math.min(bigPng.length, bigPdf.length)).toBeGreaterThan(9 * 1024 * 1024)

      // The server is this process; the uploads and the health checks come from two others, as they would.
      const { result, slowestMs, answered } = await attackFromOutside(
        server.url,
        owners.map((owner, i) => ({
          url: `${server.url}/api/v1/identity-check?legal_name=Acme`,
          headers: { 'content-type': i % 2 === 0 ? 'image/png' : 'application/pdf', cookie: `${SESSION_COOKIE}=${owner.cookie}`, origin: server.url },
          body: i % 2 === 0 ? bigPng : bigPdf,
        })),
      )
      console.info(
        `/healthz while 4 identity documents of ~10 MB arrived (${server.services.config.databaseUrl ? 'PostgreSQL' : 'PGlite'}): slowest ${slowestMs} ms of ${answered}`,
      )
      expect(result.map((answer) => answer.status)).toEqual([201, 201, 201, 201])
      expect(answered).toBeGreaterThanOrEqual(5)
      expect(slowestMs).toBeLessThan(1000)

      // Stored whole: the operator gets each back as it was sent.
      const download = await operator.fetch(documentPath(await pendingCheckId(owners[1]!.orgId)))
      expect(Buffer.from(await download.arrayBuffer()).equals(bigPdf)).toBe(true)
    },
  )
})

describe('14. the file is what its type says; the download is an attachment of ours', () => {
  test('a %PDF- + HTML polyglot is refused', async () => {
    const owner = await newOwner()
    await expectError(
      await submit(owner, Buffer.concat([Buffer.from('%PDF-1.7\n'), HTML]), 'application/pdf'),
      400,
      'The PDF is incomplete (no %%EOF at its end): was the file truncated?',
    )
    await expectError(
      await submit(owner, Buffer.concat([Buffer.from('%PDF-1.7\n'), HTML, Buffer.from('%%EOF\n')]), 'application/pdf'),
      400,
      /^The file is not a valid PDF|^The PDF has no readable pages/,
    )
    await expectError(
      await submit(owner, Buffer.concat([Buffer.from([0xff, 0xd8, 0xff]), HTML]), 'image/jpeg'),
      400,
      /^The file is sent as image\/jpeg but is not a readable JPEG image/,
    )
    await expectError(await submit(owner, HTML, 'application/pdf'), 400, 'The file is not a PDF (no %PDF- header).')
    expect(await bodyOf(await owner.fetch('/api/v1/identity-check'))).toMatchObject({ status: 'none' })
  })

  test('an image with HTML after its end is kept without it; the download: our name, the checked type, attachment, nosniff, sandbox', async () => {
    const owner = await newOwner()
    expect((await submit(owner, Buffer.concat([png, HTML]), 'image/png')).status).toBe(201)
    const checkId = await pendingCheckId(owner.orgId)
    const download = await operator.fetch(documentPath(checkId))
    expect(download.status).toBe(200)
    expect({
      type: download.headers.get('content-type'),
      disposition: download.headers.get('content-disposition'),
      nosniff: download.headers.get('x-content-type-options'),
      csp: download.headers.get('content-security-policy'),
      cache: download.headers.get('cache-control'),
    }).toEqual({
      type: 'image/png',
      disposition: `attachment; filename="identity-document-${checkId}.png"`,
      nosniff: 'nosniff',
      csp: "default-src 'none'; sandbox",
      cache: 'no-store',
    })
    expect(Buffer.from(await download.arrayBuffer()).equals(png)).toBe(true)
  })

  test('a JPEG is decoded and kept up to its end marker; a PDF that carries HTML in it is still a PDF, downloaded as one', async () => {
    const jpegOwner = await newOwner()
    expect((await submit(jpegOwner, Buffer.concat([jpeg, HTML]), 'image/jpeg')).status).toBe(201)
    const jpegCheck = await pendingCheckId(jpegOwner.orgId)
    const jpegDownload = await operator.fetch(documentPath(jpegCheck))
    expect(jpegDownload.headers.get('content-type')).toBe('image/jpeg')
    expect(jpegDownload.headers.get('content-disposition')).toBe(`attachment; filename="identity-document-${jpegCheck}.jpg"`)
    expect(Buffer.from(await jpegDownload.arrayBuffer()).equals(jpeg)).toBe(true)

    const pdfOwner = await newOwner()
    const pdf = Buffer.from(await makePdf(1))
    // A comment line in the header is part of a valid PDF; a browser that sniffed it would see HTML.
    const withHtml = Buffer.concat([pdf.subarray(0, 9), Buffer.from('%'), HTML, pdf.subarray(9)])
    expect((await submit(pdfOwner, withHtml, 'application/pdf')).status).toBe(201)
    const pdfCheck = await pendingCheckId(pdfOwner.orgId)
    const pdfDownload = await operator.fetch(documentPath(pdfCheck))
    expect(pdfDownload.headers.get('content-type')).toBe('application/pdf')
    expect(pdfDownload.headers.get('content-disposition')).toBe(`attachment; filename="identity-document-${pdfCheck}.pdf"`)
    expect(pdfDownload.headers.get('content-security-policy')).toBe("default-src 'none'; sandbox")
    expect(Buffer.from(await pdfDownload.arrayBuffer()).equals(withHtml)).toBe(true)
  })

  test('images that do not decode are refused: a damaged chunk, pixel data cut short, a header promising too many pixels', async () => {
    const owner = await newOwner()
    const damaged = Buffer.from(png)
    damaged.writeUInt8(damaged.readUInt8(damaged.length - 20) ^ 0xff, damaged.length - 20)
    await expectError(
      await submit(owner, damaged, 'image/png'),
      400,
      /^The file is sent as image\/png but is not a readable PNG image: its IDAT chunk is damaged \(checksum mismatch\)\./,
    )
    const short = greyPng(2, 4, 3)
    await expectError(await submit(owner, short, 'image/png'), 400, /its image data is incomplete \(shorter than its width and height say\)/)
    const huge = rgbaPng(20_000, 20_000, Buffer.alloc(10))
    await expectError(await submit(owner, huge, 'image/png'), 413, 'The image is larger than this server accepts (400 megapixels; the limit is 50 megapixels).')
    expect(await bodyOf(await owner.fetch('/api/v1/identity-check'))).toMatchObject({ status: 'none' })
  })
})
