import { execFileSync, spawnSync } from 'node:child_process'
import { copyFileSync, mkdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { PDF, PdfDict, PdfStream, type PdfRef } from '@libpdf/core'
import { verifyPdf } from '@signet/verify'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { buildFontCoverage, FONT_COVERAGE_COMMAND, FONT_COVERAGE_FILE } from '../scripts/font-coverage.ts'
import type { TemplateField } from '../src/db/schema.ts'
import { renderSealCertificatePdf } from '../src/seal/seal-certificate.ts'
import type { SealCertificateFacts } from '../src/seal/seal-certificate-facts.ts'
import { renderSignedPdf, type CertificateDetails, type RenderedFieldValue } from '../src/signing/signed-pdf.ts'
import { bodyOf, expectError, setupOrg, type TestOrg } from './helpers/api.ts'
import { makePdf } from './helpers/pdf.ts'
import { scratchFiles } from './helpers/scratch-files.ts'
import { download, pdfsigReport } from './helpers/seals.ts'
import { pngDataUrl, sendForSigning } from './helpers/signing.ts'
import { startTestServer, type TestServer } from './helpers/test-server.ts'
import { haveTools } from '../../../test-support/tools.ts'

/*
 * What a signer types is what the signed PDF shows, in any script: text is shaped (HarfBuzz) in
 * an embedded subset of a font that has it, and text extraction gives back what was typed.
 * Oracles: poppler's pdftotext (plain and -raw, and -bbox for where words are), pdffonts and
 * pdftoppm, qpdf --check, and the seal checked by @signet/verify and pdfsig.
 */

/** What the signers type, one per script. */
const TYPED = {
  arabic: 'محمد عبد الله',
  hebrew: 'שלום עולם',
  japanese: '山田太郎',
  chinese: '王小明',
  hindi: 'अनुच्छेद',
  latin: 'Zoë Ångström-Łukasiewicz, Ñandú',
} as const
const SCRIPTS = Object.keys(TYPED) as (keyof typeof TYPED)[]
const RIGHT_TO_LEFT = new Set<keyof typeof TYPED>(['arabic', 'hebrew'])

const SCREENSHOTS = process.env.SIGNET_SCREENSHOTS === '1' ? new URL('../../../docs/screenshots/', import.meta.url).pathname : undefined

const scratch = scratchFiles('signed-pdf-scripts')

// ---- oracles ------------------------------------------------------------------------------------

/**
 * pdftotext's text with only what it adds itself taken out: the embedding marks it wraps
 * right-to-left runs in (U+202A–U+202E), and the form feed between pages.
 */
const normalise = (text: string) => text.replace(/[\u202A-\u202E\f]/g, '').normalize('NFC')

const pdftotext = (path: string, ...args: string[]) => normalise(execFileSync('pdftotext', ['-enc', 'UTF-8', ...args, path, '-'], { encoding: 'utf8' }))
const linesOf = (text: string) => text.split('\n').map((line) => line.trim())

interface Word {
  text: string
  xMin: number
  xMax: number
  yMin: number
  yMax: number
}

/** Every word pdftotext finds on `page`, with its box in points from the page's top-left (the fields' coordinates). */
function words(path: string, page: number): Word[] {
  const html = execFileSync('pdftotext', ['-bbox', '-enc', 'UTF-8', '-f', String(page), '-l', String(page), path, '-'], { encoding: 'utf8' })
  return [...html.matchAll(/<word xMin="([\d.]+)" yMin="([\d.]+)" xMax="([\d.]+)" yMax="([\d.]+)">([^<]*)<\/word>/g)].map((m) => ({
    xMin: Number(m[1]),
    yMin: Number(m[2]),
    xMax: Number(m[3]),
    yMax: Number(m[4]),
    text: normalise(m[5] as string),
  }))
}

/** Whether a word sits in a field's box (by its middle: glyph boxes reach past a line's height). */
const within = (word: Word, box: { y: number; height: number }) => (word.yMin + word.yMax) / 2 > box.y && (word.yMin + word.yMax) / 2 < box.y + box.height

interface FontRow {
  name: string
  type: string
  embedded: boolean
  subset: boolean
  unicode: boolean
}

function pdffonts(path: string): FontRow[] {
  const out = execFileSync('pdffonts', [path], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] })
  return out
    .split('\n')
    .slice(2)
    .filter((line) => line.trim() !== '')
    .map((line) => {
      const [name = '', ...rest] = line.trim().split(/\s+/)
      // name, type (one or two words), encoding, emb, sub, uni, object id (or [none])
      const flags = rest.slice(-5, -2)
      return { name, type: rest.slice(0, -6).join(' '), embedded: flags[0] === 'yes', subset: flags[1] === 'yes', unicode: flags[2] === 'yes' }
    })
}

function qpdfCheck(path: string): void {
  const run = spawnSync('qpdf', ['--check', path], { encoding: 'utf8' })
  expect(run.stdout + run.stderr).toContain('No syntax or stream encoding errors')
  expect(run.status).toBe(0)
}

/** Per font (by BaseFont), its ToUnicode entries: glyph → text. */
async function toUnicode(bytes: Uint8Array): Promise<Map<string, Map<number, string>>> {
  const pdf = await PDF.load(bytes)
  const resolve = (ref: PdfRef) => pdf.getObject(ref)
  const maps = new Map<string, Map<number, string>>()
  for (const page of pdf.getPages()) {
    const fonts = page.getResources().getDict('Font', resolve)
    for (const [, value] of fonts ?? []) {
      const font = value instanceof PdfDict ? value : resolve(value as PdfRef)
      if (!(font instanceof PdfDict)) continue
      const cmap = font.get('ToUnicode', resolve)
      const name = font.getName('BaseFont', resolve)?.value ?? '?'
      if (!(cmap instanceof PdfStream) || maps.has(name)) continue
      const text = new TextDecoder().decode(cmap.getDecodedData())
      const entries = [...text.matchAll(/<([0-9A-F]{4})> <([0-9A-F]+)>/gi)].map(
        ([, glyph, hex]) =>
          [
            parseInt(glyph as string, 16),
            Buffer.from(hex as string, 'hex')
              .swap16()
              .toString('utf16le'),
          ] as const,
      )
      maps.set(name, new Map(entries))
    }
  }
  return maps
}

/** The ActualText strings in the file's content streams (uncompressed by qpdf). */
function actualTexts(path: string): string[] {
  const plain = scratch.path(`plain-${Date.now()}.pdf`)
  execFileSync('qpdf', ['--qdf', '--object-streams=disable', path, plain])
  return [...readFileSync(plain, 'latin1').matchAll(/\/ActualText <feff([0-9a-f]*)>/gi)].map(([, hex]) =>
    Buffer.from(hex as string, 'hex')
      .swap16()
      .toString('utf16le'),
  )
}

// ---- inputs -------------------------------------------------------------------------------------

const field = (f: Partial<TemplateField> & Pick<TemplateField, 'type' | 'x' | 'y' | 'width' | 'height'>): TemplateField => ({
  role: 1,
  page: 1,
  required: true,
  ...f,
})

function certificate(overrides: Partial<CertificateDetails> = {}): CertificateDetails {
  return {
    documentId: '7c9e6679-7425-40de-944b-e07fc1f90ae7',
    title: 'Mutual non-disclosure agreement',
    orgName: 'Acme Corp',
    sentBy: 'Acme Corp · API key',
    copiesTo: [],
    originalSha256: 'ab'.repeat(32),
    completedAt: new Date('2025-03-02T08:00:01Z'),
    signers: SCRIPTS.map((script, i) => ({
      name: TYPED[script],
      email: `${script}@example.com`,
      role: i + 1,
      authMethod: 'E-mail link',
      ip: '203.0.113.5',
      userAgent: 'Mozilla/5.0',
      viewedAt: new Date('2025-03-01T10:00:00Z'),
      signedAt: new Date('2025-03-01T10:05:12Z'),
    })),
    auditTrail: [{ seq: 1, type: 'document.sent', occurredAt: new Date('2025-03-01T09:00:00Z'), actor: null, ip: null }],
    auditHeadHash: 'cd'.repeat(32),
    ...overrides,
  }
}

/** One 300×24 text field per script, down the page, each holding what its signer typed. */
const scriptFields = SCRIPTS.map((_, i) => field({ type: 'text', x: 72, y: 150 + i * 50, width: 300, height: 24 }))
const scriptValues: RenderedFieldValue[] = SCRIPTS.map((script) => ({ type: 'text', text: TYPED[script] }))

// ---- the renderer -------------------------------------------------------------------------------

describe.runIf(haveTools('qpdf', 'pdftotext', 'pdffonts'))('renderSignedPdf, text in six scripts', () => {
  let path: string
  let output: Uint8Array
  beforeAll(async () => {
    output = await renderSignedPdf({ originalPdf: await makePdf(1), fields: scriptFields, values: scriptValues, certificate: certificate() })
    path = scratch.save(output)
  })

  test('qpdf finds no structural errors', () => {
    qpdfCheck(path)
  })

  test('pdftotext gives back each value exactly as typed, on its own line', () => {
    const lines = linesOf(pdftotext(path, '-f', '1', '-l', '1'))
    for (const script of SCRIPTS) expect({ script, found: lines.includes(TYPED[script]) }).toEqual({ script, found: true })
  })

  test('pdftotext -raw (content order) gives back every word as typed; right-to-left lines come word by word from the left', () => {
    const lines = linesOf(pdftotext(path, '-raw', '-f', '1', '-l', '1'))
    for (const script of SCRIPTS) {
      const typedWords = TYPED[script].split(' ')
      // Glyphs are drawn left to right as they are seen, so raw order puts the leftmost (last) word first.
      const expected = (RIGHT_TO_LEFT.has(script) ? [...typedWords].reverse() : typedWords).join(' ')
      expect({ script, found: lines.includes(expected) }).toEqual({ script, found: true })
    }
  })

  test("the certificate prints every signer's name as it was written", () => {
    const lines = linesOf(pdftotext(path, '-f', '2'))
    for (const script of SCRIPTS) expect({ script, found: lines.includes(TYPED[script]) }).toEqual({ script, found: true })
  })

  test('each script is drawn with an embedded subset font that maps back to Unicode', () => {
    const fonts = pdffonts(path)
    const embedded = fonts.filter((font) => font.type === 'CID TrueType')
    expect(embedded.every((font) => font.embedded && font.subset && font.unicode && /^[A-Z]{6}\+/.test(font.name))).toBe(true)
    const families = new Set(embedded.map((font) => font.name.slice(7)))
    for (const name of [
      'NotoSansArabic-Regular',
      'NotoSansArabic-Bold',
      'NotoSansHebrew-Regular',
      'NotoSans-Regular',
      'NotoSansSC-Regular',
      'LiberationSans',
      'LiberationSans-Bold',
    ]) {
      expect({ name, embedded: families.has(name) }).toEqual({ name, embedded: true })
    }
    // Nothing the renderer drew is left to a viewer's substitute font (the template's own Helvetica and the Courier of ids are standard fonts).
    expect(fonts.filter((font) => !font.embedded && !['Helvetica', 'Courier'].includes(font.name))).toEqual([])
  })

  test('Arabic is shaped: each letter takes the form its neighbours call for', async () => {
    const greeting = 'السلام عليكم'
    const box = field({ type: 'text', x: 72, y: 150, width: 300, height: 24 })
    const bytes = await renderSignedPdf({
      originalPdf: await makePdf(1),
      fields: [box],
      values: [{ type: 'text', text: greeting }],
      certificate: certificate(),
    })
    expect(linesOf(pdftotext(scratch.save(bytes), '-f', '1', '-l', '1'))).toContain(greeting)
    const arabic = [...(await toUnicode(bytes))].find(([name]) => name.endsWith('+NotoSansArabic-Regular'))?.[1] ?? new Map<number, string>()
    const forms = (letter: string) => [...arabic.values()].filter((text) => text === letter).length
    // Lam begins, continues and ends letters' joins here; alef stands alone and ends a join: one letter, several glyphs.
    expect({ lam: forms('ل') >= 3, alef: forms('ا') >= 2 }).toEqual({ lam: true, alef: true })
  })

  test('Devanagari is shaped: a conjunct with its vowel sign is one glyph, extracted as its four characters', async () => {
    const devanagari = [...(await toUnicode(output))].find(([name]) => name.endsWith('+NotoSans-Regular'))?.[1] ?? new Map<number, string>()
    expect([...devanagari.values(), ...actualTexts(path)]).toContain('च्छे')
  })

  test('right-to-left values are aligned to the right of their box, left-to-right ones to the left', () => {
    const page = words(path, 1)
    scriptFields.forEach((box, i) => {
      const script = SCRIPTS[i] as keyof typeof TYPED
      const inBox = page.filter((w) => within(w, box))
      expect({ script, words: inBox.length }).toEqual({ script, words: TYPED[script].split(' ').length })
      const left = Math.min(...inBox.map((w) => w.xMin))
      const right = Math.max(...inBox.map((w) => w.xMax))
      expect({ script, left: left >= box.x, right: right <= box.x + box.width }).toEqual({ script, left: true, right: true })
      // The text starts at the padding on the side its script starts from.
      const gap = RIGHT_TO_LEFT.has(script) ? box.x + box.width - right : left - box.x
      expect({ script, gap: gap < 6 }).toEqual({ script, gap: true })
    })
  })

  test('widths come from the shaped glyphs: a long value is cut to its box with an ellipsis, in every script', async () => {
    const long = { arabic: 'محمد عبد الله '.repeat(6), japanese: '山田太郎'.repeat(12), hindi: 'अनुच्छेद '.repeat(16) }
    const boxes = Object.keys(long).map((_, i) => field({ type: 'text', x: 72, y: 150 + i * 50, width: 160, height: 20 }))
    const out = scratch.save(
      await renderSignedPdf({
        originalPdf: await makePdf(1),
        fields: boxes,
        values: Object.values(long).map((text) => ({ type: 'text', text })),
        certificate: certificate(),
      }),
    )
    const lines = linesOf(pdftotext(out, '-f', '1', '-l', '1'))
    for (const [script, text] of Object.entries(long)) {
      // What fits of the text, then '…' at its end (its left end in Arabic, which pdftotext puts first).
      const shown = lines
        .find((line) => line.includes('…') && text.startsWith(line.replace('…', '').trim().slice(0, 4)))
        ?.replace('…', '')
        .trim()
      expect({ script, shown: shown !== undefined && shown.length > 8 && text.startsWith(shown) }).toEqual({ script, shown: true })
    }
    const page = words(out, 1)
    for (const box of boxes) {
      const inBox = page.filter((w) => within(w, box))
      expect(inBox.length).toBeGreaterThan(0)
      expect(Math.min(...inBox.map((w) => w.xMin))).toBeGreaterThanOrEqual(box.x)
      expect(Math.max(...inBox.map((w) => w.xMax))).toBeLessThanOrEqual(box.x + box.width)
    }
  })

  test('a long title without spaces wraps inside the certificate, and a character no font has stays in the text layer', async () => {
    const title = '秘密保持契約書'.repeat(12)
    const out = scratch.save(
      await renderSignedPdf({
        originalPdf: await makePdf(1),
        fields: [],
        values: [],
        certificate: certificate({ title, signers: [{ ...certificate().signers[0]!, name: 'Zoë 😀 Ødegård' }] }),
      }),
    )
    qpdfCheck(out)
    const page = words(out, 2)
    const titleWords = page.filter((w) => /^[秘密保持契約書]+$/.test(w.text))
    expect(titleWords.length).toBeGreaterThanOrEqual(2)
    // Inside the value column: right margin 54 pt on a 612 pt page.
    expect(Math.max(...titleWords.map((w) => w.xMax))).toBeLessThanOrEqual(612 - 54 + 0.5)
    expect(titleWords.map((w) => w.text).join('')).toBe(title)
    // Printed as U+FFFD; copied or searched, it is the emoji the sender wrote.
    expect(linesOf(pdftotext(out, '-f', '2', '-l', '2'))).toContain('Zoë 😀 Ødegård')
  })

  test('the seal certificate prints names and titles in any script', async () => {
    const facts: SealCertificateFacts = {
      documentId: '2b1c4f5e-8d9a-4b7c-a1e2-3f4d5c6b7a89',
      title: 'שלום עולם',
      filename: '契約書.pdf',
      orgLegalName: 'شركة محمد عبد الله',
      identityVerifiedAt: new Date('2025-03-01T09:00:00Z'),
      originalSha256: 'ef'.repeat(32),
      originalPageCount: 1,
      requestedAt: new Date('2025-03-02T08:00:00Z'),
      verifyUrl: 'https://signet.example/verify/2b1c4f5e-8d9a-4b7c-a1e2-3f4d5c6b7a89',
      certificateMode: 'separate',
      sealSubject: 'Signet Document Seal',
    }
    const out = scratch.save(await renderSealCertificatePdf(facts))
    qpdfCheck(out)
    const lines = linesOf(pdftotext(out))
    for (const expected of ['שלום עולם', '契約書.pdf', 'شركة محمد عبد الله']) expect(lines).toContain(expected)
  })
})

describe('font-coverage.json', () => {
  test('is what the installed fonts have', async () => {
    const committed = readFileSync(FONT_COVERAGE_FILE, 'utf8')
    if (committed !== (await buildFontCoverage()))
      expect.fail(`${FONT_COVERAGE_FILE} differs from the installed fonts. Run \`${FONT_COVERAGE_COMMAND}\` and commit the result.`)
  })
})

// ---- through the signing flow -------------------------------------------------------------------

describe.runIf(haveTools('qpdf', 'pdftotext', 'pdftoppm', 'pdfsig'))('six signers sign in six scripts', () => {
  let server: TestServer
  let org: TestOrg
  beforeAll(async () => {
    server = await startTestServer({ env: { JOB_POLL_MS: '100' } })
    org = await setupOrg(server, { name: 'Acme Legal' })
  })
  afterAll(() => server?.close())

  /** Per role: a signature on the left and a "Full name" text field on the right. */
  const fields = SCRIPTS.flatMap((_, role) => [
    { role, type: 'signature', page: 1, x: 72, y: 150 + role * 80, width: 160, height: 40, label: `Signature ${role}` },
    { role, type: 'text', page: 1, x: 260, y: 158 + role * 80, width: 280, height: 24, label: 'Full name' },
  ])

  test('a value with a character no font has is refused, naming the field', async () => {
    const template = await server.createTemplate(org.orgId, { fields: fields.slice(0, 2) })
    const [signer] = (await sendForSigning(server, org, { roles: [0], templateId: template.id })).signers
    await signer!.view()
    await expectError(
      await signer!.finish({ '0': pngDataUrl(), '1': 'Zoë 😀' }),
      400,
      'Field 1 (Full name, page 1) contains 😀 (U+1F600), which the signed PDF cannot show. Please remove it or write the text another way.',
    )
  })

  test('the sealed PDF shows every name and value as typed, and the seal verifies', async () => {
    const template = await server.createTemplate(org.orgId, { fields })
    const names = SCRIPTS.map((script) => TYPED[script])
    const { documentId, signers } = await sendForSigning(server, org, { roles: SCRIPTS.map((_, role) => role), templateId: template.id, names })
    for (const [role, signer] of signers.entries()) {
      await signer.view()
      const finished = await signer.finish({ [String(role * 2)]: pngDataUrl(), [String(role * 2 + 1)]: names[role] as string })
      expect(finished.status).toBe(200)
    }
    server.services.finalPdfs.kick()
    await server.services.finalPdfs.drain()
    const file = await download(server, org.apiKey, `/api/v1/documents/${documentId}/signed-file`)
    const path = scratch.save(file)

    qpdfCheck(path)
    const root = await (await server.request('/.well-known/signet-root.pem')).text()
    expect((await verifyPdf(file, { trustAnchors: [root] })).verdict).toBe('verified')
    expect(pdfsigReport(file)).toContain('Signature is Valid.')
    const values = linesOf(pdftotext(path, '-f', '1', '-l', '1'))
    const certificate = linesOf(pdftotext(path, '-f', '2'))
    for (const name of names)
      expect({ name, value: values.includes(name), certificate: certificate.includes(name) }).toEqual({ name, value: true, certificate: true })
    const document = await bodyOf(await server.request(`/api/v1/documents/${documentId}`, { key: org.apiKey }))
    expect(document.status).toBe('completed')

    // The page as a viewer shows it (a person looked at it: joined Arabic, Devanagari conjuncts, right-aligned Hebrew).
    const png = scratch.path('values')
    execFileSync('pdftoppm', ['-png', '-r', '150', '-f', '1', '-l', '1', '-x', '120', '-y', '260', '-W', '1050', '-H', '1040', '-singlefile', path, png])
    expect(readFileSync(`${png}.png`).subarray(1, 4).toString()).toBe('PNG')
    if (SCREENSHOTS) {
      mkdirSync(SCREENSHOTS, { recursive: true })
      copyFileSync(`${png}.png`, join(SCREENSHOTS, 'signed-pdf-scripts.png'))
    }
  })
})
