import { getDocument, type PDFPageProxy } from 'pdfjs-dist/legacy/build/pdf.mjs'
import { describe, expect, it } from 'vitest'
import { fieldToUserSpace, pixelsToPointDistance, pixelsToPoints, pointsToPixels, type PageViewports, type PointRect } from './geometry.ts'

type Box = [number, number, number, number]
interface PageSpec {
  media: Box
  crop?: Box
  rotate?: number
}

/** A PDF whose pages have these boxes and /Rotate values (no content: only geometry matters). */
function makePdf(pages: PageSpec[]): Uint8Array {
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    `<< /Type /Pages /Kids [${pages.map((_, i) => `${3 + i} 0 R`).join(' ')}] /Count ${pages.length} >>`,
    ...pages.map(
      (p) =>
        `<< /Type /Page /Parent 2 0 R /MediaBox [${p.media.join(' ')}]` +
        `${p.crop ? ` /CropBox [${p.crop.join(' ')}]` : ''}${p.rotate !== undefined ? ` /Rotate ${p.rotate}` : ''} >>`,
    ),
  ]
  let out = '%PDF-1.7\n'
  const offsets: number[] = []
  objects.forEach((object, i) => {
    offsets.push(out.length)
    out += `${i + 1} 0 obj\n${object}\nendobj\n`
  })
  const xref = out.length
  out += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n${offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`).join('')}`
  out += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`
  return new TextEncoder().encode(out)
}

async function openPage(spec: PageSpec): Promise<PDFPageProxy> {
  const pdf = await getDocument({ data: makePdf([spec]), isEvalSupported: false }).promise
  return pdf.getPage(1)
}

/**
 * The server's reading of a field (signing/signed-pdf.ts pageFrame + the box it draws into): the
 * visible box is CropBox ∩ MediaBox, display space is it turned by /Rotate, fields measured from the
 * displayed top-left. Written out again here as the oracle the pdf.js-based conversion must match.
 */
function serverUserBox(spec: PageSpec, field: PointRect): Box {
  const [m0, m1, m2, m3] = spec.media
  const [c0, c1, c2, c3] = spec.crop ?? spec.media
  const [x0, y0, x1, y1] = [Math.max(m0, c0), Math.max(m1, c1), Math.min(m2, c2), Math.min(m3, c3)]
  const rotation = (((spec.rotate ?? 0) % 360) + 360) % 360
  const displayHeight = rotation === 90 || rotation === 270 ? x1 - x0 : y1 - y0
  const toUser = (x: number, y: number): [number, number] => {
    switch (rotation) {
      case 90:
        return [x1 - y, y0 + x]
      case 180:
        return [x1 - x, y1 - y]
      case 270:
        return [x0 + y, y1 - x]
      default:
        return [x0 + x, y0 + y]
    }
  }
  // The renderer's box: bottom-left origin in display space.
  const bottom = displayHeight - field.y - field.height
  const [ax, ay] = toUser(field.x, bottom)
  const [bx, by] = toUser(field.x + field.width, bottom + field.height)
  return [Math.min(ax, bx), Math.min(ay, by), Math.max(ax, bx), Math.max(ay, by)]
}

const LETTER: Box = [0, 0, 612, 792]
const OFFSET_MEDIA: Box = [-30, 40, 582, 832]
const CROPPED = { media: OFFSET_MEDIA, crop: [20, 100, 520, 760] as Box }

const cases: { name: string; spec: PageSpec; displayed: [number, number] }[] = [
  { name: 'upright Letter', spec: { media: LETTER }, displayed: [612, 792] },
  { name: '/Rotate 90', spec: { media: LETTER, rotate: 90 }, displayed: [792, 612] },
  { name: '/Rotate 180', spec: { media: LETTER, rotate: 180 }, displayed: [612, 792] },
  { name: '/Rotate 270', spec: { media: LETTER, rotate: 270 }, displayed: [792, 612] },
  { name: '/Rotate -90 (same as 270)', spec: { media: LETTER, rotate: -90 }, displayed: [792, 612] },
  { name: 'CropBox inside an offset MediaBox', spec: CROPPED, displayed: [500, 660] },
  { name: 'CropBox + /Rotate 90', spec: { ...CROPPED, rotate: 90 }, displayed: [660, 500] },
  { name: 'CropBox + /Rotate 180', spec: { ...CROPPED, rotate: 180 }, displayed: [500, 660] },
  { name: 'CropBox + /Rotate 270', spec: { ...CROPPED, rotate: 270 }, displayed: [660, 500] },
  { name: 'CropBox reaching past the MediaBox', spec: { media: LETTER, crop: [-50, -50, 400, 500], rotate: 90 }, displayed: [500, 400] },
]

const FIELD: PointRect = { x: 72, y: 30.5, width: 180, height: 40 }

describe('field geometry through pdf.js viewports', () => {
  it.each(cases)('$name: the displayed size is the field space the server measures in', async ({ spec, displayed }) => {
    const unit = (await openPage(spec)).getViewport({ scale: 1 })
    expect([unit.width, unit.height]).toEqual(displayed)
  })

  it.each(cases)('$name: a field lands in PDF user space where the signed-PDF renderer draws it', async ({ spec }) => {
    const unit = (await openPage(spec)).getViewport({ scale: 1 })
    const user = fieldToUserSpace(unit, FIELD)
    serverUserBox(spec, FIELD).forEach((value, i) => expect(user[i]).toBeCloseTo(value, 6))
  })

  it.each(cases)('$name: points → pixels → points round-trips, at several scales', async ({ spec }) => {
    const page = await openPage(spec)
    const unit = page.getViewport({ scale: 1 })
    for (const scale of [0.5, 1, 1.37, 2]) {
      const viewports: PageViewports = { unit, screen: page.getViewport({ scale }) }
      const pixels = pointsToPixels(viewports, FIELD)
      // Field space is the displayed page scaled: the box on screen is the field times the scale.
      expect(pixels.left).toBeCloseTo(FIELD.x * scale, 6)
      expect(pixels.top).toBeCloseTo(FIELD.y * scale, 6)
      expect(pixels.width).toBeCloseTo(FIELD.width * scale, 6)
      expect(pixels.height).toBeCloseTo(FIELD.height * scale, 6)
      const back = pixelsToPoints(viewports, pixels)
      for (const key of ['x', 'y', 'width', 'height'] as const) expect(back[key]).toBeCloseTo(FIELD[key], 6)
      expect(pixelsToPointDistance(viewports, 10 * scale)).toBeCloseTo(10, 6)
    }
  })

  it('a box drawn at the top-left of a /Rotate 90 page is the user-space bottom-left of the unrotated page', async () => {
    const page = await openPage({ media: LETTER, rotate: 90 })
    const viewports = { unit: page.getViewport({ scale: 1 }), screen: page.getViewport({ scale: 2 }) }
    const field = pixelsToPoints(viewports, { left: 0, top: 0, width: 20, height: 10 })
    expect(field).toEqual({ x: 0, y: 0, width: 10, height: 5 })
    // Turned clockwise for display, the page's left edge is on top: the box hugs user space's origin.
    expect(fieldToUserSpace(viewports.unit, field)).toEqual([0, 0, 5, 10])
  })
})
