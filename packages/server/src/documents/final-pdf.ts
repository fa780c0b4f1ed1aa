import { and, eq, isNull } from 'drizzle-orm'
import type { BlobStore, StagedBlob } from '../adapters/blob-store.ts'
import type { Clock } from '../adapters/clock.ts'
import type { Config } from '../config.ts'
import type { Db } from '../db/client.ts'
import { documents } from '../db/schema.ts'
import type { Logger } from '../lib/logger.ts'
import type { MetricsRecorder } from '../metrics/metrics.ts'
import type { PdfWork } from '../pdf-work/pdf-work.ts'
import type { SealedPdf, Sealer } from '../seal/sealer.ts'

/** What producing a completed document's final PDF needs (final-pdf-job.ts runs it). */
export interface FinalPdfDeps {
  db: Db
  blobs: BlobStore
  clock: Clock
  logger: Logger
  sealer: Sealer
  /** Renders the final PDFs (and certificates) off the event loop. */
  pdfWork: PdfWork
  /** publicUrl: the base of the public verification pages printed on certificates */
  config: Pick<Config, 'publicUrl'>
  /** Kicked after a signed PDF is stored, so the completion mails leave at once. */
  mail: { kick(): void }
  /** Counts the failures (signet_final_pdf_failures_total). */
  metrics: Pick<MetricsRecorder, 'finalPdfFailed'>
}

/** A sealed final PDF whose bytes are staged in the blob store (before the transaction that stores it). */
export interface StagedSeal extends Pick<SealedPdf, 'sealedAt' | 'tsaName'> {
  blob: StagedBlob
}

/** Stages a sealed PDF's bytes; call before opening the transaction that stores it. */
export async function stageSeal(blobs: BlobStore, sealed: SealedPdf): Promise<StagedSeal> {
  return { blob: await blobs.stage(sealed.bytes, sealed.sha256), sealedAt: sealed.sealedAt, tsaName: sealed.tsaName }
}

/**
 * Stores a document's sealed final PDF, inside the caller's transaction, unless another process
 * already stored one. Returns the file's SHA-256, or null when this attempt lost that race.
 */
export async function storeFinalPdf(tx: Db, blobs: BlobStore, documentId: string, sealed: StagedSeal): Promise<string | null> {
  const sha256 = await blobs.put(tx, sealed.blob)
  const [stored] = await tx
    .update(documents)
    .set({ signedPdfSha256: sha256, nextRenderAt: null, sealedAt: sealed.sealedAt, sealTsa: sealed.tsaName, sealError: null })
    .where(and(eq(documents.id, documentId), isNull(documents.signedPdfSha256)))
    .returning({ id: documents.id })
  return stored ? sha256 : null
}
