/**
 * How much one PDF may ask of the server (PDF_MAX_* settings). Checked before the heavy work —
 * the size as the body arrives, the rest while the worker opens the file — so an upload over
 * a limit costs little and is told which limit it broke.
 */
export interface PdfLimits {
  /** Largest upload (templates and seals), bytes. */
  maxBytes: number
  maxPages: number
  /** Indirect objects in the file (its cross-reference size). */
  maxObjects: number
  /** Pixels of the largest image (width × height). */
  maxImagePixels: number
  /** All streams the work decompresses, together, bytes. */
  maxDecompressedBytes: number
}

/** The pool's size and bounds (PDF_WORKERS, PDF_QUEUE, PDF_TASK_TIMEOUT_MS, PDF_WORKER_MEMORY_MB); pdf-work.ts explains each. */
export interface PdfWorkOptions {
  workers: number
  queue: number
  taskTimeoutMs: number
  workerMemoryMb: number
}

/** The environment variable that sets each limit, named in the error a client gets. */
export const LIMIT_SETTINGS: Record<keyof PdfLimits, string> = {
  maxBytes: 'PDF_MAX_MB',
  maxPages: 'PDF_MAX_PAGES',
  maxObjects: 'PDF_MAX_OBJECTS',
  maxImagePixels: 'PDF_MAX_IMAGE_MEGAPIXELS',
  maxDecompressedBytes: 'PDF_MAX_DECOMPRESSED_MB',
}

const MB = 1024 * 1024

export const formatMegabytes = (bytes: number): string => `${Math.round((bytes / MB) * 10) / 10} MB`

/** What a worker answers instead of a result when the input is at fault (a 400 or 413 for the client). */
export interface PdfRejection {
  rejected: true
  status: 400 | 413
  message: string
}

export const rejection = (status: 400 | 413, message: string): PdfRejection => ({ rejected: true, status, message })

export function isRejection(value: unknown): value is PdfRejection {
  return typeof value === 'object' && value !== null && (value as { rejected?: unknown }).rejected === true
}

/** Thrown inside a worker when a limit is crossed part-way through; the task answers with its rejection. */
export class PdfLimitExceeded extends Error {
  constructor(readonly rejection: PdfRejection) {
    super(rejection.message)
    this.name = 'PdfLimitExceeded'
  }
}

export function limitMessage(limit: keyof PdfLimits, found: string, allowed: string): string {
  const what: Record<keyof PdfLimits, string> = {
    maxBytes: 'is larger than',
    maxPages: 'has more pages than',
    maxObjects: 'has more objects than',
    maxImagePixels: 'has an image larger than',
    maxDecompressedBytes: 'decompresses to more than',
  }
  return `The PDF ${what[limit]} this server accepts (${found}; the limit is ${allowed}, ${LIMIT_SETTINGS[limit]}).`
}
