import { createHash } from 'node:crypto'
import type { MessagePort } from 'node:worker_threads'
import { move, transferableSymbol, valueSymbol } from 'piscina'
import { renderBadgePng, type BadgeFacts } from '../seal/badge.ts'
import { appendSealCertificate, renderSealCertificatePdf } from '../seal/seal-certificate.ts'
import type { SealCertificateFacts } from '../seal/seal-certificate-facts.ts'
import { signPdf } from '../seal/sign-pdf.ts'
import { renderSignedPdf, type SignedPdfInput } from '../signing/signed-pdf.ts'
import { pngProblem } from '../signing/signed-pdf-png.ts'
import { loadTextEngines } from '../signing/text/engines.ts'
import { installDecodeBudget, withDecodeBudget } from './decode-budget.ts'
import { checkImage, type CheckedImage, type ImageType } from './image-check.ts'
import { inspectPdf, type PdfInspection } from './inspect.ts'
import { isRejection, PdfLimitExceeded, type PdfLimits, type PdfRejection } from './limits.ts'
import { workerSealBridge, type SignerIdentity } from './seal-bridge.ts'

/*
 * The PDF worker (run by piscina, see pdf-work.ts): every parse, render and seal of a PDF,
 * and every badge drawing, happens here, off the server's event loop, under the task's
 * decode budget, its time limit and the worker's heap limit. Byte results are moved (not
 * copied) back to the main thread.
 */

export type PdfTask =
  | { kind: 'inspect'; pdf: Uint8Array; limits: PdfLimits }
  | { kind: 'render-signed-pdf'; input: SignedPdfInput; limits: PdfLimits }
  | { kind: 'append-seal-certificate'; pdf: Uint8Array; facts: SealCertificateFacts; limits: PdfLimits }
  | { kind: 'render-seal-certificate'; facts: SealCertificateFacts }
  | { kind: 'render-badge'; facts: BadgeFacts }
  | { kind: 'png-problem'; png: Uint8Array; maxDecodedBytes: number }
  | { kind: 'check-image'; image: Uint8Array; type: ImageType; maxPixels: number }
  | { kind: 'seal'; pdf: Uint8Array; reason: string; signingTime: Date; signer: SignerIdentity; port: MessagePort; limits: PdfLimits }

/** What the pool sends: the task, and a port to say when work on it starts (the time limit counts from then). */
export interface PdfTaskEnvelope {
  task: PdfTask
  started: MessagePort
}

/** What each task answers (besides a PdfRejection when the input is at fault). */
export interface PdfTaskResults {
  /** The inspected bytes come back with the answer (they were handed over, not copied). */
  inspect: PdfInspection & { pdf: Uint8Array }
  'render-signed-pdf': Uint8Array
  'append-seal-certificate': Uint8Array
  'render-seal-certificate': Uint8Array
  'render-badge': Uint8Array
  'png-problem': string | null
  /** The checked bytes come back with the answer (they were handed over, not copied). */
  'check-image': CheckedImage & { image: Uint8Array }
  seal: Uint8Array
}

installDecodeBudget()
// The text engines (HarfBuzz, hb-subset, the WOFF2 decoder) start with the worker rather than with
// its first PDF; a failure shows when a task awaits them.
loadTextEngines().catch(() => undefined)

/**
 * A byte result, transferred to the main thread. @libpdf/core returns a view into a larger
 * buffer; trimmed here (a copy on this thread), so the main thread gets a buffer of its own
 * that it can hand over again without copying (pdf-work.ts handOver).
 */
function moved(bytes: Uint8Array): Uint8Array {
  const whole = bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength
  return move(whole ? bytes : bytes.slice()) as Uint8Array
}

/** A result whose `buffers` are transferred to the main thread rather than cloned. */
function movedWith<T>(value: T, buffers: ArrayBufferLike[]): T {
  return move({ [transferableSymbol]: buffers, [valueSymbol]: value } as unknown as Parameters<typeof move>[0]) as T
}

async function perform(task: PdfTask): Promise<PdfTaskResults[PdfTask['kind']] | PdfRejection> {
  switch (task.kind) {
    case 'inspect': {
      const inspection = await withDecodeBudget(task.limits.maxDecompressedBytes, () => inspectPdf(task.pdf, task.limits))
      return isRejection(inspection) ? inspection : movedWith({ ...inspection, pdf: task.pdf }, [task.pdf.buffer])
    }
    case 'render-signed-pdf':
      return moved(await withDecodeBudget(task.limits.maxDecompressedBytes, () => renderSignedPdf(task.input)))
    case 'append-seal-certificate':
      return moved(await withDecodeBudget(task.limits.maxDecompressedBytes, () => appendSealCertificate(task.pdf, task.facts)))
    case 'render-seal-certificate':
      return moved(await renderSealCertificatePdf(task.facts))
    case 'render-badge':
      return moved(await renderBadgePng(task.facts))
    case 'png-problem':
      return pngProblem(task.png, task.maxDecodedBytes)
    case 'check-image': {
      const checked = await checkImage(task.image, task.type, task.maxPixels)
      return isRejection(checked) ? checked : movedWith({ ...checked, image: task.image }, [task.image.buffer])
    }
    case 'seal': {
      const bridge = workerSealBridge(task.port, task.signer)
      try {
        const sealed = await withDecodeBudget(task.limits.maxDecompressedBytes, () =>
          signPdf(task.pdf, { signer: bridge.signer, timestampAuthority: bridge.authority, reason: task.reason, signingTime: task.signingTime }),
        )
        bridge.report({ sealedAt: sealed.sealedAt, tsaName: sealed.tsaName, sha256: createHash('sha256').update(sealed.bytes).digest('hex') })
        return moved(sealed.bytes)
      } finally {
        task.port.close()
      }
    }
  }
}

export default async function run({ task, started }: PdfTaskEnvelope): Promise<PdfTaskResults[PdfTask['kind']] | PdfRejection> {
  started.postMessage(null)
  started.close()
  try {
    return await perform(task)
  } catch (error) {
    if (error instanceof PdfLimitExceeded) return error.rejection
    throw error
  }
}
