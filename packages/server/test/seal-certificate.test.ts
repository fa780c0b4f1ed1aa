import { execFileSync, spawnSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { CryptoKeySigner, PDF, type PdfArray, type PdfNumber, type Rect } from '@libpdf/core'
import QRCode from 'qrcode'
import { beforeAll, describe, expect, test } from 'vitest'
import { appendSealCertificate, renderSealCertificatePdf } from '../src/seal/seal-certificate.ts'
import type { SealCertificateFacts } from '../src/seal/seal-certificate-facts.ts'
import { haveTools } from '../../../test-support/tools.ts'
import { scratchFiles } from './helpers/scratch-files.ts'
import { makePdf } from './helpers/pdf.ts'

const facts = (overrides: Partial<SealCertificateFacts> = {}): SealCertificateFacts => ({
  documentId: '7c9e6679-7425-40de-944b-e07fc1f90ae7',
  title: 'Mutual non-disclosure agreement — Project Falcon',
  filename: 'nda-falcon-final.pdf',
  orgLegalName: 'Acme Corporation Ltd.',
  identityVerifiedAt: new Date('2025-01-15T10:20:30Z'),
  originalSha256: 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
  originalPageCount: 2,
  requestedAt: new Date('2025-03-02T08:00:00.500Z'),
  verifyUrl: 'https://signet.example.com/verify/7c9e6679-7425-40de-944b-e07fc1f90ae7',
  certificateMode: 'both',
  sealSubject: 'Signet Document Seal',
  ...overrides,
})

const scratch = scratchFiles('seal-certificate')
const save = (pdf: Uint8Array) => scratch.save(pdf)
let renders = 0

const pdftotext = (path: string, page?: number) =>
  execFileSync('pdftotext', ['-enc', 'UTF-8', ...(page ? ['-f', String(page), '-l', String(page)] : []), path, '-'], { encoding: 'utf8' })
const pageCount = (path: string) => Number(execFileSync('qpdf', ['--show-npages', path], { encoding: 'utf8' }).trim())

function qpdfCheck(path: string): void {
  const run = spawnSync('qpdf', ['--check', path], { encoding: 'utf8' })
  expect(run.stdout + run.stderr).toContain('No syntax or stream encoding errors')
  expect(run.status).toBe(0)
}

const startsWith = (bytes: Uint8Array, prefix: Uint8Array) => Buffer.from(bytes.subarray(0, prefix.length)).equals(prefix)

/** Width × height of each page's MediaBox. */
async function pageSizes(bytes: Uint8Array): Promise<string[]> {
  const pdf = await PDF.load(bytes)
  return pdf.getPages().map((page) => {
    const box = page.dict.getArray('MediaBox') as PdfArray
    const [x1, y1, x2, y2] = box.toArray().map((n) => (n as PdfNumber).value)
    return `${Math.round(x2! - x1!)}×${Math.round(y2! - y1!)}`
  })
}

/** The link annotations on the last page: where they are and where they lead. */
async function links(bytes: Uint8Array): Promise<{ uri: string | undefined; rect: Rect }[]> {
  const pdf = await PDF.load(bytes)
  const page = pdf.getPage(pdf.getPageCount() - 1)!
  return page.getAnnotations().map((annotation) => ({ uri: annotation.dict.getDict('A')?.getString('URI')?.asString(), rect: annotation.rect }))
}

/** Grey levels (0 black … 255 white) of the last page rendered by poppler, sampled at points from the page's bottom-left. */
function renderLastPage(path: string, dpi: number): (x: number, y: number) => number {
  const out = scratch.path(`page-${++renders}`)
  const last = String(pageCount(path))
  execFileSync('pdftoppm', ['-gray', '-r', String(dpi), '-f', last, '-l', last, '-singlefile', path, out])
  const pgm = readFileSync(`${out}.pgm`)
  const header = /^P5\s+(\d+)\s+(\d+)\s+255\s/.exec(pgm.toString('latin1', 0, 50))!
  const [width, height] = [Number(header[1]), Number(header[2])]
  const pixels = pgm.subarray(header[0].length)
  return (x, y) => pixels[Math.floor(height - (y * dpi) / 72) * width + Math.floor((x * dpi) / 72)]!
}

describe.runIf(haveTools('qpdf', 'pdftotext'))('renderSealCertificatePdf', () => {
  let bytes: Uint8Array
  let path: string
  beforeAll(async () => {
    bytes = await renderSealCertificatePdf(facts())
    path = save(bytes)
  })

  test('qpdf finds no structural errors', () => {
    qpdfCheck(path)
  })

  test('says what was sealed, by whom, when it was requested, and how to check it', () => {
    const text = pdftotext(path)
    for (const expected of [
      'Certificate of Seal',
      facts().title,
      'nda-falcon-final.pdf',
      facts().originalSha256,
      facts().documentId,
      'Acme Corporation Ltd.',
      '2025-01-15T10:20:30Z',
      '2025-03-02T08:00:00Z',
      'PAdES digital signature by Signet Document Seal',
      'RFC 3161',
      facts().verifyUrl,
      'signet-verify',
      'Both: appended to the sealed file',
      'Certificate page 1 of 1',
    ]) {
      expect(text).toContain(expected)
    }
    expect(text).toMatch(/Pages\s+2/)
  })

  test('one US Letter page; the printed URL and the QR code link to the verification page', async () => {
    expect(await pageSizes(bytes)).toEqual(['612×792'])
    expect((await links(bytes)).map((link) => link.uri)).toEqual([facts().verifyUrl, facts().verifyUrl])
  })

  test.runIf(haveTools('pdftoppm'))('the QR code is the verification URL at level M, with its quiet zone', async () => {
    // The QR code's link covers exactly the code: sample each module's centre there.
    const { rect } = (await links(bytes)).find((link) => link.rect.width === link.rect.height)!
    const expected = QRCode.create(facts().verifyUrl, { errorCorrectionLevel: 'M' }).modules
    const module = rect.width / expected.size
    const grey = renderLastPage(path, 300)
    const wrong: string[] = []
    for (let row = -4; row < expected.size + 4; row++) {
      for (let col = -4; col < expected.size + 4; col++) {
        const inCode = row >= 0 && col >= 0 && row < expected.size && col < expected.size
        const dark = inCode && expected.get(row, col) === 1
        const level = grey(rect.x + (col + 0.5) * module, rect.y + rect.height - (row + 0.5) * module)
        if (dark ? level > 64 : level < 192) wrong.push(`${row},${col}: ${level}`)
      }
    }
    expect(wrong).toEqual([])
  })

  test.each([
    ['appended', 'Appended: this certificate is part of the sealed file'],
    ['separate', 'Separate: the sealed file is the original PDF, unchanged'],
  ] as const)('certificate mode %s is described', async (certificateMode, expected) => {
    expect(pdftotext(save(await renderSealCertificatePdf(facts({ certificateMode }))))).toContain(expected)
  })

  test('any text renders: long values wrap, glyphs the font lacks print as ?, no file name prints —', async () => {
    const long = facts({
      title: `${'Master services agreement between Acme and Globex '.repeat(12)}賃貸借契約書 😀`,
      filename: null,
      orgLegalName: 'Zoë Ødegård Holdings AS',
      verifyUrl: `https://signet.example.com/verify/7c9e6679-7425-40de-944b-e07fc1f90ae7?${'x=1&'.repeat(40)}`,
    })
    const longPath = save(await renderSealCertificatePdf(long))
    qpdfCheck(longPath)
    const text = pdftotext(longPath)
    expect(text).toContain('Zoë Ødegård Holdings AS')
    expect(text).toMatch(/File name\s+—/)
    expect(text).toContain('…')
  })
})

describe.runIf(haveTools('qpdf', 'pdftotext'))('appendSealCertificate', () => {
  test('the original bytes stay a prefix; the certificate follows the original pages', async () => {
    const original = await makePdf(2)
    const sealed = await appendSealCertificate(original, facts({ certificateMode: 'appended' }))
    expect(startsWith(sealed, original)).toBe(true)
    const path = save(sealed)
    qpdfCheck(path)
    expect(pageCount(path)).toBe(3)
    expect((await PDF.load(sealed)).getPageCount()).toBe(3)
    expect(pdftotext(path, 1)).toContain('Test agreement, page 1')
    const certificate = pdftotext(path, 3)
    expect(certificate).toContain('Certificate of Seal')
    expect(certificate).toContain(facts().originalSha256)
    expect(certificate).toContain('Appended: this certificate is part of the sealed file')
  })

  test('the certificate page takes the paper of the first page, upright', async () => {
    const a4 = PDF.create()
    a4.addPage({ size: 'a4' })
    expect((await pageSizes(await appendSealCertificate(await a4.save(), facts()))).at(-1)).toBe('595×842')

    const landscape = PDF.create()
    landscape.addPage({ size: 'a4', orientation: 'landscape' })
    expect((await pageSizes(await appendSealCertificate(await landscape.save(), facts()))).at(-1)).toBe('595×842')

    const receipt = PDF.create()
    receipt.addPage({ width: 226, height: 600 })
    expect((await pageSizes(await appendSealCertificate(await receipt.save(), facts()))).at(-1)).toBe('612×792')
  })

  test('a PDF that could only be extended by rewriting it is refused, never silently rewritten', async () => {
    // A wrong startxref: @libpdf/core rebuilds the cross-reference table and could then only save a full rewrite.
    const damaged = Buffer.from(
      Buffer.from(await makePdf(1))
        .toString('latin1')
        .replace(/startxref\s+\d+/, 'startxref\n99999'),
      'latin1',
    )
    await expect(appendSealCertificate(damaged, facts())).rejects.toThrow(/without rewriting the PDF \(brute-force-recovery\)/)
  })

  test('an original that is not a PDF is refused', async () => {
    await expect(appendSealCertificate(new TextEncoder().encode('not a pdf'), facts())).rejects.toThrow()
  })
})

describe.runIf(haveTools('qpdf', 'openssl', 'pdfsig'))('appendSealCertificate on a signed PDF', () => {
  /** A PDF signed (PAdES B-B) with a throwaway self-signed certificate. */
  async function signedPdf(): Promise<Uint8Array> {
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:prime256v1',
        '-nodes',
        '-subj',
        '/CN=Earlier Signer',
        '-days',
        '2',
        '-keyout',
        'key.pem',
        '-out',
        'cert.pem',
      ],
      { cwd: scratch.path('.'), stdio: 'ignore' },
    )
    const der = (file: string) => Buffer.from(readFileSync(scratch.path(file), 'latin1').replace(/-----[^-]+-----|\s/g, ''), 'base64')
    const key = await crypto.subtle.importKey('pkcs8', der('key.pem'), { name: 'ECDSA', namedCurve: 'P-256' }, false, ['sign'])
    const pdf = await PDF.load(await makePdf(1))
    const { bytes } = await pdf.sign({ signer: new CryptoKeySigner(key, der('cert.pem'), 'EC', 'ECDSA'), reason: 'Approved' })
    return bytes
  }

  const signatureReport = (path: string) => {
    const run = spawnSync('pdfsig', ['-nocert', path], { encoding: 'utf8' })
    return run.stdout + run.stderr
  }

  test('the earlier signature covers the same bytes and stays valid', async () => {
    const original = await signedPdf()
    const before = signatureReport(save(original))
    expect(before).toContain('Signature is Valid')
    const sealed = await appendSealCertificate(original, facts({ originalPageCount: 1 }))
    expect(startsWith(sealed, original)).toBe(true)
    const path = save(sealed)
    qpdfCheck(path)
    expect(pageCount(path)).toBe(2)
    const after = signatureReport(path)
    expect(after).toContain('Signature is Valid')
    const ranges = (report: string) => /Signed Ranges: (.*)/.exec(report)?.[1]
    expect(ranges(after)).toBe(ranges(before))
    // The signature covers its own revision; the certificate came after it.
    expect(after).toContain('Not total document signed')
  })
})
