import { and, asc, eq, inArray, isNull, lte, sql } from 'drizzle-orm'
import type { Db } from '../db/client.ts'
import { AppError, notFound } from '../errors.ts'
import { PdfWorkFailed } from '../pdf-work/pdf-work.ts'
import { documents } from '../db/schema.ts'
import { startBackgroundLoop, type BackgroundLoop } from '../lib/background-loop.ts'
import { retryWrite } from '../lib/retry-write.ts'
import type { FinalPdfDeps } from './final-pdf.ts'
import { produceSelfSealedPdf } from '../seal/produce-self-seal.ts'
import { TimestampUnavailableError } from '../seal/tsa-chain.ts'
import { produceSignedPdf } from '../signing/produce-signed-pdf.ts'

/** A render in flight holds its document this long; a crash mid-render makes it due again afterwards. */
export const FINAL_PDF_LEASE_MS = 2 * 60_000
const retryDelayMs = (attempts: number): number => Math.min(10_000 * 2 ** (attempts - 1), 3_600_000)
/** Attempts after which a failure that is not a time-stamp outage is taken to be permanent (10 s … about 21 minutes in all). */
export const MAX_RENDER_ATTEMPTS = 8
const BATCH_SIZE = 4

/*
 * Every completed document ends as one sealed PDF: a signed document's flattened
 * signed PDF, or a self-sealed upload. Producing it (render, then seal with a
 * timestamp) happens here, in the background; the work is "completed documents
 * without a final PDF", claimed with a lease, so several processes share it, a crash
 * only delays it, and a seal whose every TSA failed is simply tried again later.
 * A failure that cannot pass by itself is not retried forever: it is recorded, shown on
 * the document, and alerted in the log, until an operator asks for another attempt.
 */

/**
 * A document whose final PDF is due. `upload`: a self-sealed document's uploaded bytes, when
 * the caller still holds them (the inline seal), so they are not read back from the blob store.
 */
export interface DueDocument {
  id: string
  isVerifiedBadge: boolean
  upload?: Uint8Array
}

/** Produces one document's final PDF, whichever kind it is. */
export async function produceFinalPdf(deps: FinalPdfDeps, document: DueDocument): Promise<void> {
  if (document.isVerifiedBadge) await produceSelfSealedPdf(deps, document.id, document.upload)
  else await produceSignedPdf(deps, document.id)
}

/** Whether trying again can help: a TSA outage passes; a document over the server's limits, or one that kept failing, does not. */
function isPermanent(error: unknown, attempts: number): boolean {
  if (error instanceof TimestampUnavailableError) return false
  // A 503 (the worker pool is full) passes; a 4xx (over a limit, not readable) does not.
  if ((error instanceof AppError && error.status < 500) || (error instanceof PdfWorkFailed && error.permanent)) return true
  return attempts >= MAX_RENDER_ATTEMPTS
}

/** The worker pool refused the task (every worker busy, queue full): the document waits for its retry, it is not the client's to repeat. */
const isBusyRefusal = (error: unknown): boolean => error instanceof AppError && error.code === 'service_unavailable'
const BUSY_REASON = 'every PDF worker of this server was busy; it is retried in a few seconds'

/** Runs produceFinalPdf for a claimed document; a failure is recorded (visible on the document and its seal) and retried later, or given up. */
export async function produceOrReschedule(deps: FinalPdfDeps, document: DueDocument, attempts: number): Promise<boolean> {
  try {
    await produceFinalPdf(deps, document)
    return true
  } catch (error) {
    const now = deps.clock.now()
    // TSA outages and the server's own limits are the org's to know; other failures are ours, and stay in the log.
    const known = error instanceof TimestampUnavailableError || error instanceof AppError || error instanceof PdfWorkFailed
    if (isPermanent(error, attempts)) {
      deps.metrics.finalPdfFailed('given_up')
      const reason = known ? (error as Error).message : 'it could not be produced'
      deps.logger.error(
        { err: error, documentId: document.id, attempts, alert: 'final-pdf-failed' },
        `giving up on the sealed PDF of document ${document.id} after ${attempts} attempt(s); fix the cause, then run: npm run admin -- document rerender --id ${document.id}`,
      )
      await recordOutcome(deps, document.id, { nextRenderAt: null, renderFailedAt: now, sealError: reason.slice(0, 1000) })
      return false
    }
    deps.metrics.finalPdfFailed('retry')
    const reason = isBusyRefusal(error) ? BUSY_REASON : known ? (error as Error).message : 'it could not be produced yet and will be retried'
    deps.logger.error({ err: error, documentId: document.id, attempts }, 'producing the sealed PDF failed; will retry')
    await recordOutcome(deps, document.id, { nextRenderAt: new Date(now.getTime() + retryDelayMs(attempts)), sealError: reason.slice(0, 1000) })
    return false
  }
}

/**
 * Records a failed attempt on the document, retried through a database restart: the failure was
 * often the restart itself, and an unrecorded one leaves the document to its lease (2 minutes).
 */
async function recordOutcome(deps: FinalPdfDeps, documentId: string, outcome: Partial<typeof documents.$inferInsert>): Promise<void> {
  await retryWrite(
    () => deps.db.update(documents).set(outcome).where(eq(documents.id, documentId)),
    (error) => deps.logger.warn({ err: error, documentId }, 'recording the sealed PDF attempt failed; retrying'),
  )
}

/** An operator's "try again" for a document whose final PDF failed for good (admin `document rerender`). */
export async function rerenderFinalPdf(db: Db, documentId: string, now: Date): Promise<{ document_id: string; scheduled: true }> {
  const [row] = await db
    .update(documents)
    .set({ renderFailedAt: null, renderAttempts: 0, nextRenderAt: now })
    .where(and(eq(documents.id, documentId), eq(documents.status, 'completed'), isNull(documents.signedPdfSha256)))
    .returning({ id: documents.id })
  if (!row) throw notFound('No completed document without its final PDF has this id.')
  return { document_id: row.id, scheduled: true }
}

export function startFinalPdfJob(deps: FinalPdfDeps & { pollMs: number }): BackgroundLoop {
  const { db, clock } = deps
  const claimDue = async () => {
    const now = clock.now()
    const due = db
      .select({ id: documents.id })
      .from(documents)
      .where(and(eq(documents.status, 'completed'), isNull(documents.signedPdfSha256), lte(documents.nextRenderAt, now)))
      .orderBy(asc(documents.nextRenderAt))
      .limit(BATCH_SIZE)
      .for('update', { skipLocked: true })
    return db
      .update(documents)
      .set({ renderAttempts: sql`${documents.renderAttempts} + 1`, nextRenderAt: new Date(now.getTime() + FINAL_PDF_LEASE_MS) })
      .where(inArray(documents.id, due))
      .returning({ id: documents.id, isVerifiedBadge: documents.isVerifiedBadge, attempts: documents.renderAttempts })
  }

  const work = async (stopping: () => boolean) => {
    for (;;) {
      const claimed = await claimDue()
      for (const document of claimed) await produceOrReschedule(deps, document, document.attempts)
      if (claimed.length < BATCH_SIZE || stopping()) return
    }
  }
  return startBackgroundLoop({ name: 'sealed PDF producer', pollMs: deps.pollMs, logger: deps.logger, work })
}
