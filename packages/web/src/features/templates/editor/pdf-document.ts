import type { PDFDocumentProxy } from 'pdfjs-dist'
// The worker is its own file (never inlined), fetched only when a PDF is opened.
import workerUrl from 'pdfjs-dist/build/pdf.worker.min.mjs?url'

/**
 * Opens PDF bytes with pdf.js, imported on first use so it stays out of the dashboard's initial
 * JavaScript (only the editor needs it).
 */
export async function openPdf(data: ArrayBuffer): Promise<PDFDocumentProxy> {
  const pdfjs = await import('pdfjs-dist')
  pdfjs.GlobalWorkerOptions.workerSrc = workerUrl
  // No eval under the dashboard's CSP; pdf.js would otherwise try `new Function` for font outlines.
  return pdfjs.getDocument({ data, isEvalSupported: false }).promise
}
