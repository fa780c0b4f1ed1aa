import type { BlobStore } from '../adapters/blob-store.ts'
import type { PageSize } from '../pdf-work/inspect.ts'
import type { PdfWork } from '../pdf-work/pdf-work.ts'

/**
 * Page sizes by the PDF's SHA-256: a blob never changes, so each template's PDF is read and
 * parsed once per process rather than on every view of every signing page or editor.
 */
const pageSizeCache = new Map<string, PageSize[]>()
const PAGE_SIZE_CACHE_LIMIT = 500

/** A stored template PDF's pages as displayed (visible box, after /Rotate): the space its fields are measured in. */
export async function pageSizesOf({ blobs, pdfWork }: { blobs: BlobStore; pdfWork: PdfWork }, sha256: string): Promise<PageSize[]> {
  const cached = pageSizeCache.get(sha256)
  if (cached) return cached
  const pdf = await blobs.get(sha256)
  if (!pdf) throw new Error(`template PDF ${sha256} is missing`)
  const { pages: sizes } = await pdfWork.inspect(pdf)
  rememberPageSizes(sha256, sizes)
  return sizes
}

/** Records sizes already known (a fresh upload was just inspected), so the first read does not parse again. */
export function rememberPageSizes(sha256: string, sizes: PageSize[]): void {
  if (pageSizeCache.size >= PAGE_SIZE_CACHE_LIMIT) pageSizeCache.clear()
  pageSizeCache.set(sha256, sizes)
}
