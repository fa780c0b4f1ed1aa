import { PDF } from '@libpdf/core'
import { invalid } from '../errors.ts'

export interface PageSize {
  width: number
  height: number
}

const PDF_MAGIC = '%PDF-'
const PDF_END = '%%EOF'
/** Writers may append a little after the last %%EOF (whitespace, a newline); a cut-off file has none near its end. */
const END_SEARCH_BYTES = 2048

/** Opens a PDF and returns its page sizes (as displayed, i.e. after /Rotate); rejects anything else. */
export async function readPageSizes(bytes: Uint8Array): Promise<PageSize[]> {
  return (await openPdf(bytes)).pages
}

/** Opens an uploaded PDF, with a clear 400 for anything that is not a complete, readable, unencrypted one. */
export async function openPdf(bytes: Uint8Array): Promise<{ pdf: PDF; pages: PageSize[] }> {
  // The loader is lenient (it recovers damaged files), so require the header ourselves.
  const head = new TextDecoder('latin1').decode(bytes.subarray(0, 1024))
  if (!head.includes(PDF_MAGIC)) throw invalid('The file is not a PDF (no %PDF- header).')
  // The loader silently rebuilds damaged files, so a truncated upload would lose pages unnoticed.
  const tail = new TextDecoder('latin1').decode(bytes.subarray(Math.max(0, bytes.byteLength - END_SEARCH_BYTES)))
  if (!tail.includes(PDF_END)) throw invalid('The PDF is incomplete (no %%EOF at its end): was the file truncated?')
  let pdf: PDF
  try {
    pdf = await PDF.load(bytes)
  } catch (error) {
    throw invalid(`The file is not a valid PDF: ${error instanceof Error ? error.message : String(error)}`)
  }
  // Seals and signed copies are incremental updates of the original: its encryption would have to be kept and opened.
  if (pdf.isEncrypted) throw invalid('The PDF is encrypted (password-protected). Save it without a password and upload it again.')
  const pages = pdf.getPages()
  if (pages.length === 0) throw invalid('The PDF has no readable pages (is it truncated or damaged?).')
  return {
    pdf,
    pages: pages.map((page) =>
      page.rotation === 90 || page.rotation === 270 ? { width: page.height, height: page.width } : { width: page.width, height: page.height },
    ),
  }
}
