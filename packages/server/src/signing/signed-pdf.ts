import { createHash } from 'node:crypto'
import { PDF, PdfArray, PdfDict, rgb, type PDFImage, type PDFPage, type PdfRef, type Rotation } from '@libpdf/core'
import type { TemplateField, TextualFieldType } from '../db/schema.ts'
import { pageFrame, type PageFrame, type PageSize } from '../pdf-geometry/page-frame.ts'
import { appendCertificate, type CertificateDetails } from './signed-pdf-certificate.ts'
import { embedPng } from './signed-pdf-png.ts'
import { embedFonts, truncate, type PdfFont } from './signed-pdf-text.ts'

export type { CertificateDetails, CertificateSigner } from './signed-pdf-certificate.ts'

export type RenderedFieldValue =
  | { type: 'signature' | 'initials'; png: Uint8Array }
  | { type: TextualFieldType; text: string }
  | { type: 'number'; number: number }
  | { type: 'checkbox'; checked: boolean }

export interface SignedPdfInput {
  originalPdf: Uint8Array
  /** All of the template's fields; values[i] is the entry for fields[i], undefined when an optional field was left empty. */
  fields: TemplateField[]
  values: (RenderedFieldValue | undefined)[]
  certificate: CertificateDetails
}

/**
 * The final signed document: the template with every entry drawn into its page content, all
 * interactive content flattened, and signing-certificate pages appended. Throws only on
 * inconsistent input (a value for another field type, a field off the document's pages) or a PDF
 * or PNG that cannot be read; any text renders, in any script (a character no bundled font has
 * prints as U+FFFD, see signed-pdf-text.ts).
 */
export async function renderSignedPdf(input: SignedPdfInput): Promise<Uint8Array> {
  const { fields, values, certificate } = input
  if (values.length !== fields.length) throw new Error(`${values.length} values for ${fields.length} fields`)
  const pdf = await PDF.load(input.originalPdf)
  flattenInteractiveContent(pdf)
  const pages = pdf.getPages()
  const fonts = await embedFonts(pdf)
  // A signer's one signature image usually fills several fields (each read as its own copy): embed it once.
  const images = new Map<string, PDFImage>()
  const embed = (png: Uint8Array) => {
    const key = createHash('sha256').update(png).digest('base64')
    let image = images.get(key)
    if (!image) images.set(key, (image = embedPng(pdf, png)))
    return image
  }
  const frames = new Map<number, PageFrame>()
  fields.forEach((field, i) => {
    const value = values[i]
    if (value === undefined) return
    if (value.type !== field.type) throw new Error(`field ${i} is a ${field.type} field but its value is a ${value.type}`)
    const page = Number.isInteger(field.page) ? pages[field.page - 1] : undefined
    if (!page) throw new RangeError(`field ${i} is on page ${field.page} of a ${pages.length}-page document`)
    let frame = frames.get(field.page)
    if (!frame) frames.set(field.page, (frame = pageFrame(pdf, page)))
    const box = { x: field.x, y: frame.height - field.y - field.height, width: field.width, height: field.height }
    drawValue(page, frame, box, field, value, fonts.regular, embed)
  })

  appendCertificate(pdf, fonts, certificate, certificatePageSize(pdf))
  fonts.finish()
  pdf.setTitle(certificate.title, { showInWindowTitleBar: true })
  pdf.setProducer('Signet')
  pdf.setModificationDate(certificate.completedAt)
  return pdf.save({ subsetFonts: true })
}

interface Box {
  x: number
  y: number
  width: number
  height: number
}

const INK = rgb(0.1, 0.1, 0.12)
const CHECKBOX_BORDER = rgb(0.45, 0.47, 0.5)
/** Text entries are no larger than this, however tall their box. */
const MAX_TEXT_SIZE = 14
const MIN_TEXT_SIZE = 6
/** Liberation Sans cap height, in em: used to centre a line's capitals (and other scripts' letters, near enough) in its box. */
const CAP_HEIGHT = 0.72
const TEXT_PADDING = 2

/**
 * Where to draw a thing anchored at display point (x, y): its user-space position, turned with the
 * page. (One q/cm for all of a page's fields would be simpler, but @libpdf/core writes each drawing
 * as its own content stream and, on a page without content, later wraps the first one in q/Q,
 * which would undo such a transform before the drawings it was meant for.)
 */
function at(frame: PageFrame, x: number, y: number): { x: number; y: number; rotate?: Rotation } {
  const point = frame.toUser(x, y)
  return frame.rotation === 0 ? point : { ...point, rotate: { angle: frame.rotation, origin: point } }
}

function drawValue(
  page: PDFPage,
  frame: PageFrame,
  box: Box,
  field: TemplateField,
  value: RenderedFieldValue,
  font: PdfFont,
  embed: (png: Uint8Array) => PDFImage,
): void {
  switch (value.type) {
    case 'signature':
    case 'initials': {
      const image = embed(value.png)
      const scale = Math.min(box.width / image.width, box.height / image.height)
      const width = image.width * scale
      const height = image.height * scale
      page.drawImage(image, { ...at(frame, box.x + (box.width - width) / 2, box.y + (box.height - height) / 2), width, height })
      return
    }
    case 'date':
    case 'text':
    case 'email':
    case 'name':
    case 'dropdown':
      drawLine(page, frame, box, value.text, font)
      return
    case 'number':
      drawLine(page, frame, box, String(value.number), font)
      return
    case 'radio':
      drawRadioGroup(page, frame, box, field.options ?? [value.text], value.text, font)
      return
    case 'checkbox': {
      const side = Math.min(box.width, box.height)
      const x = box.x + (box.width - side) / 2
      const y = box.y + (box.height - side) / 2
      const border = Math.max(0.5, side / 24)
      page.drawRectangle({ ...at(frame, x, y), width: side, height: side, borderColor: CHECKBOX_BORDER, borderWidth: border })
      if (!value.checked) return
      const [start, corner, end] = [
        frame.toUser(x + side * 0.22, y + side * 0.52),
        frame.toUser(x + side * 0.42, y + side * 0.3),
        frame.toUser(x + side * 0.78, y + side * 0.74),
      ]
      page
        .drawPath()
        .moveTo(start.x, start.y)
        .lineTo(corner.x, corner.y)
        .lineTo(end.x, end.y)
        .stroke({ borderColor: INK, borderWidth: side * 0.12, lineCap: 'round', lineJoin: 'round' })
      return
    }
  }
}

/** One line of text in a box: as large as fits (up to MAX_TEXT_SIZE), centred vertically, cut with an ellipsis when too long. */
function drawLine(page: PDFPage, frame: PageFrame, box: Box, text: string, font: PdfFont): void {
  const room = Math.max(0, box.width - 2 * TEXT_PADDING)
  const clean = font.clean(text).trim()
  // Glyphs span about 1.15 em from descender to accented capital: fit that in the box height, then the width.
  let size = Math.min(MAX_TEXT_SIZE, (box.height - TEXT_PADDING) / 1.15)
  const width = font.widthOf(clean, size)
  if (width > room) size = (size * room) / width
  size = Math.max(MIN_TEXT_SIZE, size)
  const baseline = box.y + (box.height - CAP_HEIGHT * size) / 2
  const line = truncate(font, clean, size, room)
  // Right-to-left text starts at the box's right edge, as it reads.
  const left = font.isRightToLeft(line) ? box.x + box.width - TEXT_PADDING - font.widthOf(line, size) : box.x + TEXT_PADDING
  const { x, y } = frame.toUser(left, baseline)
  font.draw(page, line, { x, y, size, color: INK, rotate: frame.rotation })
}

/**
 * A radio group: every option on its own row of the box, each after a circle, the chosen one's
 * filled, so the page shows what was offered as well as what was picked.
 */
function drawRadioGroup(page: PDFPage, frame: PageFrame, box: Box, options: string[], chosen: string, font: PdfFont): void {
  const rowHeight = box.height / Math.max(1, options.length)
  const diameter = Math.min(rowHeight * 0.7, MAX_TEXT_SIZE, box.width)
  const border = Math.max(0.5, diameter / 12)
  options.forEach((option, row) => {
    const top = box.y + box.height - (row + 1) * rowHeight
    const centre = frame.toUser(box.x + TEXT_PADDING + diameter / 2, top + rowHeight / 2)
    page.drawCircle({ ...centre, radius: diameter / 2 - border / 2, borderColor: CHECKBOX_BORDER, borderWidth: border })
    if (option === chosen) page.drawCircle({ ...centre, radius: diameter / 4, color: INK })
    const textLeft = box.x + 2 * TEXT_PADDING + diameter
    drawLine(page, frame, { x: textLeft, y: top, width: Math.max(0, box.x + box.width - textLeft), height: rowHeight }, option, font)
  })
}

/**
 * Makes the document static: form fields are baked into the page content and the AcroForm removed,
 * annotations (other than links) are baked in, optional-content layers are merged, so what prints
 * is what the signers saw and nothing is left to fill in or toggle.
 */
function flattenInteractiveContent(pdf: PDF): void {
  pdf.flattenAll({ annotations: { removeLinks: false } })
  // Widgets that belong to no field survive the form flattening (and the annotation flattener skips
  // widgets): viewers would still render them and might let them be edited, so drop them.
  const resolve = (ref: PdfRef) => pdf.getObject(ref)
  for (const page of pdf.getPages()) {
    const annots = page.dict.getArray('Annots', resolve)
    if (!annots) continue
    const kept = annots.toArray().filter((annot) => {
      const dict = annot instanceof PdfDict ? annot : resolve(annot as PdfRef)
      return !(dict instanceof PdfDict && dict.getName('Subtype', resolve)?.value === 'Widget')
    })
    if (kept.length !== annots.length) page.dict.set('Annots', new PdfArray(kept))
  }
}

export const LETTER: PageSize = { width: 612, height: 792 }

/**
 * The paper certificate pages are printed on: the first page's as displayed when it is an ordinary
 * sheet (Letter, A4, Legal…; a landscape one turned upright, since a certificate reads top to
 * bottom), else US Letter.
 */
export function certificatePageSize(pdf: PDF): PageSize {
  const first = pdf.getPage(0)
  if (!first) return LETTER
  const { width, height } = pageFrame(pdf, first)
  const upright = width > height ? { width: height, height: width } : { width, height }
  return upright.width >= 500 && upright.width <= 700 && upright.height >= 700 && upright.height <= 1100 ? upright : LETTER
}
