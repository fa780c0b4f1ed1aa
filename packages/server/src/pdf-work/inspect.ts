import { createHash } from 'node:crypto'
import { PDF, PdfDict, PdfName, PdfNumber, PdfRef, PdfStream } from '@libpdf/core'
import { pageFrame, type PageSize } from '../pdf-geometry/page-frame.ts'
import { formatMegabytes, limitMessage, PdfLimitExceeded, rejection, type PdfLimits, type PdfRejection } from './limits.ts'

/*
 * Opening an upload (a template or a PDF to seal) inside a worker: everything that makes it
 * unusable (not a PDF, truncated, encrypted, no pages) is a 400; everything over a limit is a
 * 413 naming the limit. The limits are checked from the cheapest evidence first: the bytes,
 * then the objects the file declares, then the page tree's own count, and last what the
 * streams decompress to (under the task's decode budget, see decode-budget.ts).
 */

export type { PageSize }

export interface PdfInspection {
  /** Page sizes as displayed (after /Rotate). */
  pages: PageSize[]
  /** SHA-256 of the file (hex), computed here so the server's thread need not. */
  sha256: string
  /** Why the file cannot be extended by an incremental update (what a seal needs), or null. */
  incrementalBlocker: string | null
}

const PDF_MAGIC = '%PDF-'
const PDF_END = '%%EOF'
/** Writers may append a little after the last %%EOF (whitespace, a newline); a cut-off file has none near its end. */
const END_SEARCH_BYTES = 2048

const latin1 = (bytes: Uint8Array): string => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1')

/**
 * The objects the file holds: every `n g obj` in its bytes, and the objects each object
 * stream says it holds (its /N). A count for a limit, read from the bytes so it costs no
 * parsing; text inside streams may add a few, which only errs on the safe side.
 */
export function objectNumbers(text: string): { numbers: { num: number; gen: number }[]; compressed: number } {
  const seen = new Set<string>()
  const numbers: { num: number; gen: number }[] = []
  for (const match of text.matchAll(/(?:^|[\s>\]])(\d{1,10})\s+(\d{1,5})\s+obj\b/g)) {
    const key = `${match[1]} ${match[2]}`
    if (seen.has(key)) continue
    seen.add(key)
    numbers.push({ num: Number(match[1]), gen: Number(match[2]) })
  }
  let compressed = 0
  for (let at = text.indexOf('/ObjStm'); at !== -1; at = text.indexOf('/ObjStm', at + 7)) {
    const start = Math.max(text.lastIndexOf('<<', at), at - 1000)
    const streamAt = text.indexOf('stream', at)
    const dictionary = text.slice(start, streamAt === -1 ? at + 1000 : Math.min(streamAt, at + 1000))
    compressed += Number(/\/N\s+(\d{1,9})/.exec(dictionary)?.[1] ?? 0)
  }
  return { numbers, compressed }
}

/** The page as a viewer displays it (visible CropBox, after /Rotate): the space template fields are measured in. */
function displayedSize(pdf: PDF, page: ReturnType<PDF['getPages']>[number]): PageSize {
  const { width, height } = pageFrame(pdf, page)
  return { width, height }
}

const numberIn = (dict: PdfDict, key: string): number => {
  const value = dict.get(key)
  return value instanceof PdfNumber ? value.value : 0
}

/** Images must fit the pixel limit (a browser draws them on the signing page); every other stream is decoded once, under the budget. */
function checkStreams(pdf: PDF, numbers: { num: number; gen: number }[], limits: PdfLimits): void {
  for (const { num, gen } of numbers) {
    const object = pdf.getObject(PdfRef.of(num, gen))
    if (!(object instanceof PdfStream)) continue
    const subtype = object.get('Subtype')
    if (subtype instanceof PdfName && subtype.value === 'Image') {
      const pixels = numberIn(object, 'Width') * numberIn(object, 'Height')
      if (pixels > limits.maxImagePixels) {
        const megapixels = (count: number) => `${Math.round(count / 1e5) / 10} megapixels`
        throw new PdfLimitExceeded(rejection(413, limitMessage('maxImagePixels', megapixels(pixels), megapixels(limits.maxImagePixels))))
      }
      continue
    }
    try {
      object.getDecodedData()
    } catch {
      // A stream @libpdf/core cannot decode is not ours to judge here; the budget is (withDecodeBudget checks it).
    }
  }
}

/** Opens an uploaded PDF: its page sizes, or the rejection that says what is wrong with it. */
export async function inspectPdf(bytes: Uint8Array, limits: PdfLimits): Promise<PdfInspection | PdfRejection> {
  if (bytes.byteLength > limits.maxBytes) return rejection(413, limitMessage('maxBytes', formatMegabytes(bytes.byteLength), formatMegabytes(limits.maxBytes)))
  // The loader is lenient (it recovers damaged files), so require the header ourselves.
  if (!latin1(bytes.subarray(0, 1024)).includes(PDF_MAGIC)) return rejection(400, 'The file is not a PDF (no %PDF- header).')
  // The loader silently rebuilds damaged files, so a truncated upload would lose pages unnoticed.
  if (!latin1(bytes.subarray(Math.max(0, bytes.byteLength - END_SEARCH_BYTES))).includes(PDF_END)) {
    return rejection(400, 'The PDF is incomplete (no %%EOF at its end): was the file truncated?')
  }
  const { numbers, compressed } = objectNumbers(latin1(bytes))
  const objects = numbers.length + compressed
  if (objects > limits.maxObjects) return rejection(413, limitMessage('maxObjects', String(objects), String(limits.maxObjects)))

  let pdf: PDF
  try {
    pdf = await PDF.load(bytes)
  } catch (error) {
    return rejection(400, `The file is not a valid PDF: ${error instanceof Error ? error.message : String(error)}`)
  }
  // Seals and signed copies are incremental updates of the original: its encryption would have to be kept and opened.
  if (pdf.isEncrypted) return rejection(400, 'The PDF is encrypted (password-protected). Save it without a password and upload it again.')
  const tree = pdf.getCatalog().get('Pages')
  const declared = tree instanceof PdfRef ? pdf.getObject(tree) : tree
  const declaredCount = declared instanceof PdfDict ? numberIn(declared, 'Count') : 0
  if (declaredCount > limits.maxPages) return rejection(413, limitMessage('maxPages', String(declaredCount), String(limits.maxPages)))
  const pages = pdf.getPages()
  if (pages.length > limits.maxPages) return rejection(413, limitMessage('maxPages', String(pages.length), String(limits.maxPages)))
  if (pages.length === 0) return rejection(400, 'The PDF has no readable pages (is it truncated or damaged?).')
  checkStreams(pdf, numbers, limits)
  return {
    pages: pages.map((page) => displayedSize(pdf, page)),
    sha256: createHash('sha256').update(bytes).digest('hex'),
    incrementalBlocker: pdf.canSaveIncrementally(),
  }
}
