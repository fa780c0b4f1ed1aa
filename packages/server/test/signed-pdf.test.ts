import { execFileSync, spawnSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { deflateSync } from 'node:zlib'
import { PDF, PdfArray, PdfDict, PdfName, PdfNumber, PdfString, type PdfRef } from '@libpdf/core'
import { beforeAll, describe, expect, test } from 'vitest'
import type { TemplateField } from '../src/db/schema.ts'
import { renderSignedPdf, type CertificateDetails, type RenderedFieldValue, type SignedPdfInput } from '../src/signing/signed-pdf.ts'
import { makePdf } from './helpers/pdf.ts'
import { haveTools } from '../../../test-support/tools.ts'
import { scratchFiles } from './helpers/scratch-files.ts'
import { PNG_SIGNATURE, pngChunk } from './helpers/png.ts'

// ---- inputs -------------------------------------------------------------------------------------

const paeth = (a: number, b: number, c: number) => {
  const p = a + b - c
  const [pa, pb, pc] = [Math.abs(p - a), Math.abs(p - b), Math.abs(p - c)]
  return pa <= pb && pa <= pc ? a : pb <= pc ? b : c
}

interface PngFormat {
  colorType: 0 | 2 | 3 | 4 | 6
  bitDepth: 1 | 2 | 4 | 8 | 16
  palette?: number[]
  trns?: Buffer
}

const RGBA8: PngFormat = { colorType: 6, bitDepth: 8 }
const RGB8: PngFormat = { colorType: 2, bitDepth: 8 }

/**
 * A real PNG: `pixel` gives each pixel's samples in the format's own terms (palette index, 16-bit
 * values…). Row y uses filter y % 5, so every PNG row filter is exercised.
 */
function encodePng(width: number, height: number, format: PngFormat, pixel: (x: number, y: number) => number[]): Buffer {
  const { colorType, bitDepth } = format
  const channels = { 0: 1, 2: 3, 3: 1, 4: 2, 6: 4 }[colorType]
  const stride = Math.ceil((width * channels * bitDepth) / 8)
  const step = Math.max(1, (channels * bitDepth) / 8)
  const raw = Buffer.alloc(stride * height)
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      pixel(x, y).forEach((value, k) => {
        const bit = (x * channels + k) * bitDepth
        const at = y * stride + (bit >> 3)
        if (bitDepth === 16) raw.writeUInt16BE(value, at)
        else raw[at] = (raw[at] as number) | (value << (8 - bitDepth - (bit & 7)))
      })
    }
  }
  const filtered = Buffer.alloc((stride + 1) * height)
  for (let y = 0; y < height; y++) {
    const filter = y % 5
    filtered[y * (stride + 1)] = filter
    for (let i = 0; i < stride; i++) {
      const at = (row: number, col: number) => (row >= 0 && col >= 0 ? (raw[row * stride + col] as number) : 0)
      const [x, a, b, c] = [at(y, i), at(y, i - step), at(y - 1, i), at(y - 1, i - step)]
      const predictor = [0, a, b, (a + b) >> 1, paeth(a, b, c)][filter] as number
      filtered[y * (stride + 1) + 1 + i] = (x - predictor) & 0xff
    }
  }
  const header = Buffer.alloc(13)
  header.writeUInt32BE(width, 0)
  header.writeUInt32BE(height, 4)
  header.set([bitDepth, colorType, 0, 0, 0], 8)
  return Buffer.concat([
    PNG_SIGNATURE,
    pngChunk('IHDR', header),
    ...(format.palette ? [pngChunk('PLTE', Buffer.from(format.palette))] : []),
    ...(format.trns ? [pngChunk('tRNS', format.trns)] : []),
    pngChunk('IDAT', deflateSync(filtered)),
    pngChunk('IEND', Buffer.alloc(0)),
  ])
}

/** Ink on the left half of a 120×40 image, `blank` on the right. */
const halfInk = (format: PngFormat, ink: number[], blank: number[]) => encodePng(120, 40, format, (x) => (x < 60 ? ink : blank))
const INK = [20, 30, 90]
/** The usual signature: ink on transparency (black, so that an ignored alpha channel would show). */
const inkPng = halfInk(RGBA8, [...INK, 255], [0, 0, 0, 0])

/** Deterministic noise, 0–255. */
const noise = (x: number, y: number) => Math.imul(x * 73 + y * 151, 2654435761) >>> 24

const field = (f: Partial<TemplateField> & Pick<TemplateField, 'type' | 'x' | 'y' | 'width' | 'height'>): TemplateField => ({
  role: 1,
  page: 1,
  required: true,
  ...f,
})

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex')

function certificate(overrides: Partial<CertificateDetails> = {}): CertificateDetails {
  return {
    documentId: '7c9e6679-7425-40de-944b-e07fc1f90ae7',
    title: 'Mutual non-disclosure agreement',
    orgName: 'Acme Corp',
    sentBy: 'Acme Corp · API key',
    copiesTo: [],
    originalSha256: sha256(Buffer.from('original')),
    completedAt: new Date('2025-03-02T08:00:01.250Z'),
    signers: [
      {
        name: 'Zoë Ødegård',
        email: 'zoe@example.com',
        role: 0,
        authMethod: 'E-mail link',
        ip: '203.0.113.5',
        userAgent: `Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) ${'VeryLongToken/1.0 '.repeat(20)}`,
        viewedAt: new Date('2025-03-01T10:00:00Z'),
        signedAt: new Date('2025-03-01T10:05:12Z'),
      },
      {
        name: 'Иван Петров 李雷 😀',
        email: 'ivan@example.com',
        role: 1,
        authMethod: 'E-mail link + one-time e-mail code',
        ip: '2001:db8::7334',
        userAgent: null,
        viewedAt: null,
        signedAt: new Date('2025-03-02T08:00:00Z'),
      },
    ],
    auditTrail: [
      { seq: 1, type: 'document.sent', occurredAt: new Date('2025-03-01T09:00:00Z'), actor: null, ip: null },
      { seq: 2, type: 'signer.invitation_resent', occurredAt: new Date('2025-03-01T09:00:01Z'), actor: null, ip: null },
      { seq: 3, type: 'document.signed', occurredAt: new Date('2025-03-01T10:05:12Z'), actor: 'zoe@example.com', ip: '203.0.113.5' },
      { seq: 4, type: 'document.signed', occurredAt: new Date('2025-03-02T08:00:00Z'), actor: 'ivan@example.com', ip: '2001:db8::7334' },
    ],
    auditHeadHash: sha256(Buffer.from('head')),
    ...overrides,
  }
}

// ---- oracles ------------------------------------------------------------------------------------

const scratch = scratchFiles('signed-pdf')
const save = (pdf: Uint8Array) => scratch.save(pdf)
let renders = 0

const pdftotext = (path: string) => execFileSync('pdftotext', ['-enc', 'UTF-8', path, '-'], { encoding: 'utf8' })
const pageCount = (path: string) => Number(execFileSync('qpdf', ['--show-npages', path], { encoding: 'utf8' }).trim())

function qpdfCheck(path: string): void {
  const run = spawnSync('qpdf', ['--check', path], { encoding: 'utf8' })
  expect(run.stdout + run.stderr).toContain('No syntax or stream encoding errors')
  expect(run.status).toBe(0)
}

interface Gray {
  width: number
  height: number
  /** The grey levels (0 black … 255 white) of a box given in PDF points from the page's top-left. */
  levels(x: number, y: number, width: number, height: number): number[]
  /** Their mean. */
  mean(x: number, y: number, width: number, height: number): number
}

const DPI = 50

/** Page `page` (1-based) rendered by poppler in greyscale, as viewers show it (its CropBox). */
function render(path: string, page: number, dpi = DPI): Gray {
  const out = scratch.path(`page-${++renders}`)
  execFileSync('pdftoppm', ['-gray', '-cropbox', '-r', String(dpi), '-f', String(page), '-l', String(page), '-singlefile', path, out])
  const pgm = readFileSync(`${out}.pgm`)
  // Binary PGM: "P5", width, height, maxval, each followed by one whitespace byte, then the pixels.
  const header = /^P5\s+(\d+)\s+(\d+)\s+(\d+)\s/.exec(pgm.toString('latin1', 0, 50))
  if (!header) throw new Error('not a binary PGM')
  const [width, height] = [Number(header[1]), Number(header[2])]
  const pixels = pgm.subarray(header[0].length)
  const px = (pt: number) => Math.round((pt * dpi) / 72)
  const levels = (x: number, y: number, w: number, h: number) => {
    const out: number[] = []
    for (let row = px(y); row < Math.min(height, px(y + h)); row++) {
      for (let col = px(x); col < Math.min(width, px(x + w)); col++) out.push(pixels[row * width + col] as number)
    }
    return out
  }
  return {
    width,
    height,
    levels,
    mean: (x, y, w, h) => {
      const box = levels(x, y, w, h)
      return box.length === 0 ? NaN : box.reduce((sum, level) => sum + level, 0) / box.length
    },
  }
}

/** Every annotation subtype on every page of `bytes`, reloaded with @libpdf/core. */
async function annotationSubtypes(bytes: Uint8Array): Promise<string[]> {
  const pdf = await PDF.load(bytes)
  const resolve = (ref: PdfRef) => pdf.getObject(ref)
  return pdf.getPages().flatMap((page) =>
    (page.dict.getArray('Annots', resolve)?.toArray() ?? []).map((annot) => {
      const dict = annot instanceof PdfDict ? annot : resolve(annot as PdfRef)
      return dict instanceof PdfDict ? (dict.getName('Subtype', resolve)?.value ?? '?') : '?'
    }),
  )
}

// ---- tests --------------------------------------------------------------------------------------

describe('renderSignedPdf input checks', () => {
  const base = async (): Promise<SignedPdfInput> => ({
    originalPdf: await makePdf(1),
    fields: [field({ type: 'text', x: 72, y: 72, width: 100, height: 20 })],
    values: [{ type: 'text', text: 'x' }],
    certificate: certificate(),
  })

  test('a value of another type than its field is rejected', async () => {
    await expect(renderSignedPdf({ ...(await base()), values: [{ type: 'checkbox', checked: true }] })).rejects.toThrow(/text field/)
  })

  test('a field off the document is rejected', async () => {
    const input = await base()
    await expect(renderSignedPdf({ ...input, fields: [{ ...input.fields[0]!, page: 2 }] })).rejects.toThrow(/page 2 of a 1-page/)
  })

  test('values must line up with fields', async () => {
    await expect(renderSignedPdf({ ...(await base()), values: [] })).rejects.toThrow(/0 values for 1 fields/)
  })
})

describe.runIf(haveTools('qpdf', 'pdftotext', 'pdftoppm'))('renderSignedPdf, checked with qpdf and poppler', () => {
  const signature = field({ type: 'signature', x: 72, y: 300, width: 180, height: 60 })
  const initials = field({ type: 'initials', x: 300, y: 300, width: 60, height: 30 })
  const checked = field({ type: 'checkbox', x: 72, y: 460, width: 18, height: 18, required: false })
  const unchecked = field({ type: 'checkbox', x: 120, y: 460, width: 18, height: 18, required: false })
  const fields: TemplateField[] = [
    signature,
    initials,
    field({ type: 'date', x: 72, y: 380, width: 120, height: 20 }),
    field({ type: 'text', x: 72, y: 420, width: 240, height: 20 }),
    checked,
    unchecked,
    field({ type: 'text', x: 400, y: 600, width: 100, height: 20, required: false }),
    field({ role: 2, type: 'text', page: 2, x: 72, y: 100, width: 240, height: 24 }),
    field({ role: 2, type: 'signature', page: 2, x: 72, y: 200, width: 180, height: 60 }),
  ]
  const png = inkPng
  const values: (RenderedFieldValue | undefined)[] = [
    { type: 'signature', png },
    { type: 'initials', png },
    { type: 'date', text: '2025-03-01' },
    { type: 'text', text: 'Acme Corp, Director of Operations' },
    { type: 'checkbox', checked: true },
    { type: 'checkbox', checked: false },
    undefined,
    { type: 'text', text: 'Иван Петров 李雷\nline two' },
    { type: 'signature', png },
  ]

  let path: string
  let output: Uint8Array
  beforeAll(async () => {
    output = await renderSignedPdf({ originalPdf: await makePdf(2), fields, values, certificate: certificate() })
    path = save(output)
  })

  test('qpdf finds no structural errors', () => {
    qpdfCheck(path)
  })

  test('the text layer has the entries and the certificate', () => {
    const text = pdftotext(path)
    const details = certificate()
    for (const expected of [
      'Test agreement, page 1',
      'Signing certificate',
      details.title,
      details.documentId,
      details.orgName,
      details.originalSha256,
      details.auditHeadHash,
      '2025-03-02T08:00:01Z',
      'Zoë Ødegård',
      'zoe@example.com',
      'ivan@example.com',
      'Party 1',
      'Party 2',
      'E-mail link + one-time e-mail code',
      '2001:db8::7334',
      'Invitation sent again',
      '2025-03-01',
      'Acme Corp, Director of Operations',
    ]) {
      expect(text).toContain(expected)
    }
    // Every script prints in a font that has it; the emoji no bundled font has prints as U+FFFD and stays in the text layer.
    expect(text).toContain('Иван Петров 李雷 😀')
    expect(text).toContain('Иван Петров 李雷 line two')
    expect(text).toMatch(/VeryLongToken\/1\.0.*…/)
  })

  test('the page count is the template plus one certificate page', () => {
    expect(pageCount(path)).toBe(3)
    expect(pdftotext(path)).toContain('Certificate page 1 of 1')
  })

  test('the signature image is drawn inside its box, scaled and centred', () => {
    const page = render(path, 1)
    // The 3:1 image fills the 180×60 box: ink on the left half, transparent on the right.
    expect(page.mean(signature.x + 10, signature.y + 10, 70, 40)).toBeLessThan(120)
    expect(page.mean(signature.x + 100, signature.y + 5, 70, 50)).toBeGreaterThan(250)
    // The 60×30 initials box is wider than 3:1 would need vertically: the image is 60×20, centred.
    expect(page.mean(initials.x + 5, initials.y + 8, 20, 14)).toBeLessThan(150)
    expect(page.mean(initials.x, initials.y, initials.width, 4)).toBeGreaterThan(250)
    expect(render(path, 2).mean(72 + 10, 200 + 10, 70, 40)).toBeLessThan(120)
  })

  test('a checked checkbox is darker than an unchecked one', () => {
    const page = render(path, 1)
    const ticked = page.mean(checked.x, checked.y, checked.width, checked.height)
    const empty = page.mean(unchecked.x, unchecked.y, unchecked.width, unchecked.height)
    expect(ticked).toBeLessThan(empty - 30)
    // The unchecked box still shows its outline.
    expect(empty).toBeLessThan(250)
  })

  test('metadata: title, producer', async () => {
    const pdf = await PDF.load(output)
    expect(pdf.getTitle()).toBe(certificate().title)
    expect(pdf.getProducer()).toBe('Signet')
  })

  test('an AcroForm is flattened: values stay visible, no fields or widgets remain', async () => {
    const template = PDF.create()
    template.addPage({ size: 'letter' }).drawText('Order form', { x: 72, y: 700, size: 18 })
    const form = template.getOrCreateForm()
    const company = form.createTextField('company', {})
    template.getPage(0)?.drawField(company, { x: 72, y: 600, width: 200, height: 20 })
    company.setValue('Prefilled Company Ltd')
    const agree = form.createCheckbox('agree', {})
    template.getPage(0)?.drawField(agree, { x: 72, y: 560, width: 14, height: 14 })
    // A widget that belongs to no field: form flattening does not see it.
    const orphan = template.createDict({
      Type: PdfName.of('Annot'),
      Subtype: PdfName.of('Widget'),
      FT: PdfName.of('Tx'),
      T: PdfString.fromString('orphan'),
      Rect: new PdfArray([72, 500, 272, 520].map((n) => PdfNumber.of(n))),
    })
    template.getPage(0)?.dict.getArray('Annots')?.push(orphan)
    const original = await template.save()
    expect(await annotationSubtypes(original)).toEqual(['Widget', 'Widget', 'Widget'])

    const out = await renderSignedPdf({
      originalPdf: original,
      fields: [field({ type: 'text', x: 72, y: 300, width: 200, height: 20 })],
      values: [{ type: 'text', text: 'Signed value' }],
      certificate: certificate(),
    })
    const outPath = save(out)
    qpdfCheck(outPath)
    const acroform = (
      JSON.parse(execFileSync('qpdf', ['--json', '--json-key=acroform', outPath], { encoding: 'utf8' })) as {
        acroform: { hasacroform: boolean; fields: unknown[] }
      }
    ).acroform
    expect(acroform).toMatchObject({ hasacroform: false, fields: [] })
    expect(await annotationSubtypes(out)).toEqual([])
    expect((await PDF.load(out)).getForm()).toBeNull()
    const text = pdftotext(outPath)
    expect(text).toContain('Prefilled Company Ltd')
    expect(text).toContain('Signed value')
  })

  test.each([0, 90, 180, 270] as const)('fields land where a viewer shows them: /Rotate %i, offset boxes, blank page', async (rotation) => {
    const template = PDF.create()
    const page = template.addPage({ size: 'letter' })
    const box = (values: number[]) => new PdfArray(values.map((n) => PdfNumber.of(n)))
    page.dict.set('MediaBox', box([100, 50, 712, 842]))
    page.dict.set('CropBox', box([110, 60, 702, 832]))
    page.setRotation(rotation)
    const signatureBox = { x: 20, y: 20, width: 180, height: 60 }
    const out = await renderSignedPdf({
      originalPdf: await template.save(),
      fields: [field({ type: 'signature', ...signatureBox }), field({ type: 'text', x: 300, y: 20, width: 200, height: 20 })],
      values: [
        { type: 'signature', png },
        { type: 'text', text: 'Upright text' },
      ],
      certificate: certificate(),
    })
    const outPath = save(out)
    qpdfCheck(outPath)
    const shown = render(outPath, 1)
    const [width, height] = rotation % 180 === 0 ? [592, 772] : [772, 592]
    expect(shown.width).toBeCloseTo((width * DPI) / 72, -0.5)
    expect(shown.height).toBeCloseTo((height * DPI) / 72, -0.5)
    expect(shown.mean(signatureBox.x + 10, signatureBox.y + 10, 70, 40)).toBeLessThan(120)
    expect(shown.mean(signatureBox.x + 100, signatureBox.y + 5, 70, 50)).toBeGreaterThan(250)
    expect(shown.mean(0, 120, width, height - 120)).toBeGreaterThan(254)
    // pdftotext reads a plain line only if the text was drawn upright on the displayed page.
    expect(pdftotext(outPath)).toContain('Upright text')
  })

  test.each<[string, PngFormat, number[], number[]]>([
    ['RGBA, 8-bit', RGBA8, [...INK, 255], [0, 0, 0, 0]],
    ['RGBA, 16-bit', { colorType: 6, bitDepth: 16 }, [...INK.map((v) => v * 257), 65535], [0, 0, 0, 0]],
    ['grey + alpha, 8-bit', { colorType: 4, bitDepth: 8 }, [30, 255], [0, 0]],
    ['RGB, 8-bit', RGB8, INK, [255, 255, 255]],
    ['grey, 16-bit, tRNS colour key', { colorType: 0, bitDepth: 16, trns: Buffer.from([0x80, 0x00]) }, [0x1000], [0x8000]],
    ['RGB, 8-bit, tRNS colour key', { ...RGB8, trns: Buffer.from([0, 0, 0, 0, 0, 0]) }, INK, [0, 0, 0]],
    ['grey, 4-bit, tRNS colour key', { colorType: 0, bitDepth: 4, trns: Buffer.from([0, 8]) }, [1], [8]],
    ['palette, 1-bit', { colorType: 3, bitDepth: 1, palette: [255, 255, 255, ...INK] }, [1], [0]],
    ['palette, 2-bit, tRNS alpha', { colorType: 3, bitDepth: 2, palette: [0, 0, 0, ...INK], trns: Buffer.from([0]) }, [1], [0]],
  ])('a signature PNG in %s is drawn with its transparency', async (_, format, ink, blank) => {
    const box = { x: 72, y: 100, width: 120, height: 40 }
    const out = await renderSignedPdf({
      originalPdf: await makePdf(1),
      fields: [field({ type: 'signature', ...box })],
      values: [{ type: 'signature', png: halfInk(format, ink, blank) }],
      certificate: certificate(),
    })
    const outPath = save(out)
    qpdfCheck(outPath)
    const page = render(outPath, 1)
    expect(page.mean(box.x + 4, box.y + 4, 52, 32)).toBeLessThan(90)
    expect(page.mean(box.x + 64, box.y + 4, 52, 32)).toBeGreaterThan(250)
  })

  test('PNGs decoded here draw the same pixels as poppler decoding a PNG stream itself', async () => {
    // Reference: an opaque RGB PNG, embedded as is, so poppler undoes the row filters. The others,
    // composited over the white page, must come out the same.
    const alphaOf = (grey: number) => (grey * 7) & 255
    const over = (grey: number) => Math.round((grey * alphaOf(grey) + 255 * (255 - alphaOf(grey))) / 255)
    const ramp = Array.from({ length: 256 }, (_, i) => i)
    const cases: [string, PngFormat, (grey: number) => number[]][] = [
      ['reference', RGB8, (g) => [over(g), over(g), over(g)]],
      ['RGBA 8', RGBA8, (g) => [g, g, g, alphaOf(g)]],
      ['RGBA 16', { colorType: 6, bitDepth: 16 }, (g) => [g, g, g, alphaOf(g)].map((v) => v * 257)],
      ['grey + alpha 8', { colorType: 4, bitDepth: 8 }, (g) => [g, alphaOf(g)]],
      ['palette 8 + tRNS', { colorType: 3, bitDepth: 8, palette: ramp.flatMap((i) => [i, i, i]), trns: Buffer.from(ramp.map(alphaOf)) }, (g) => [g]],
    ]
    const boxes = cases.map((_, i) => ({ x: 40 + (i % 3) * 180, y: 80 + Math.floor(i / 3) * 160, width: 160, height: 120 }))
    const out = await renderSignedPdf({
      originalPdf: await makePdf(1),
      fields: boxes.map((box) => field({ type: 'signature', ...box })),
      values: cases.map(([, format, samples]) => ({ type: 'signature', png: encodePng(80, 60, format, (x, y) => samples(noise(x, y))) })),
      certificate: certificate(),
    })
    const page = render(save(out), 1, 144)
    const [reference, ...others] = boxes.map((box) => page.levels(box.x + 2, box.y + 2, box.width - 4, box.height - 4))
    expect(reference?.length).toBeGreaterThan(10_000)
    expect(new Set(reference).size).toBeGreaterThan(50)
    const differences = others.map((levels) => levels.reduce((sum, level, i) => sum + Math.abs(level - reference![i]!), 0) / levels.length)
    expect(differences.map((d, i) => [cases[i + 1]![0], d < 2])).toEqual(cases.slice(1).map(([name]) => [name, true]))
  })

  test('a long audit trail continues on further certificate pages', async () => {
    const auditTrail = Array.from({ length: 150 }, (_, i) => ({
      seq: i + 1,
      type: i % 2 ? ('document.viewed' as const) : ('signer.invitation_resent' as const),
      occurredAt: new Date(Date.UTC(2025, 2, 1, 9, i)),
      actor: i % 2 ? 'zoe@example.com' : null,
      ip: null,
    }))
    const out = await renderSignedPdf({ originalPdf: await makePdf(1), fields: [], values: [], certificate: certificate({ auditTrail }) })
    const outPath = save(out)
    qpdfCheck(outPath)
    const text = pdftotext(outPath)
    const pages = Number(/Certificate page 1 of (\d+)/.exec(text)?.[1])
    expect(pages).toBeGreaterThanOrEqual(3)
    expect(pageCount(outPath)).toBe(1 + pages)
    expect(text).toContain('Audit trail (continued)')
    expect(text).toContain('2025-03-01T11:29:00Z')
    expect(text).toContain(certificate().auditHeadHash)
  })
})
