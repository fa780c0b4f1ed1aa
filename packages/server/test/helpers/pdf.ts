import { PDF, rgb } from '@libpdf/core'

/** A real PDF of `pages` US-letter pages with a line of text on each. */
export async function makePdf(pages = 1): Promise<Uint8Array> {
  const pdf = PDF.create()
  for (let i = 1; i <= pages; i++) {
    pdf.addPage({ size: 'letter' }).drawText(`Test agreement, page ${i}`, { x: 72, y: 700, size: 18, color: rgb(0, 0, 0) })
  }
  return pdf.save()
}
