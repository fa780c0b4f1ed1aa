import { and, asc, eq, inArray, isNull, lte, sql } from 'drizzle-orm'
import { documents } from '../db/schema.ts'
import { startBackgroundLoop, type BackgroundLoop } from '../lib/background-loop.ts'
import type { FinalPdfDeps } from './final-pdf.ts'
import { produceSelfSealedPdf } from '../seal/produce-self-seal.ts'
import { TimestampUnavailableError } from '../seal/tsa-chain.ts'
import { produceSignedPdf } from '../signing/produce-signed-pdf.ts'

/** A render in flight holds its document this long; a crash mid-render makes it due again afterwards. */
export const FINAL_PDF_LEASE_MS = 2 * 60_000
const retryDelayMs = (attempts: number): number => Math.min(10_000 * 2 ** (attempts - 1), 3_600_000)
const BATCH_SIZE = 4

/*
 * Every completed document ends as one sealed PDF: a signed document's flattened
 * signed PDF, or a self-sealed upload. Producing it (render, then seal with a
 * timestamp) happens here, in the background; the work is "completed documents
 * without a final PDF", claimed with a lease, so several processes share it, a crash
 * only delays it, and a seal whose every TSA failed is simply tried again later.
 */

/** Produces one document's final PDF, whichever kind it is. */
export async function produceFinalPdf(deps: FinalPdfDeps, document: { id: string; isVerifiedBadge: boolean }): Promise<void> {
  if (document.isVerifiedBadge) await produceSelfSealedPdf(deps, document.id)
  else await produceSignedPdf(deps, document.id)
}

/** Runs produceFinalPdf for a claimed document; a failure is recorded (visible as the seal's error) and retried later. */
export async function produceOrReschedule(deps: FinalPdfDeps, document: { id: string; isVerifiedBadge: boolean }, attempts: number): Promise<boolean> {
  try {
    await produceFinalPdf(deps, document)
    return true
  } catch (error) {
    // TSA outages are the org's business (the seal waits for them); other failures are ours, and stay in the log.
    const reason = error instanceof TimestampUnavailableError ? error.message : 'it could not be produced yet and will be retried'
    deps.logger.error({ err: error, documentId: document.id, attempts }, 'producing the sealed PDF failed; will retry')
    await deps.db
      .update(documents)
      .set({ nextRenderAt: new Date(deps.clock.now().getTime() + retryDelayMs(attempts)), sealError: reason.slice(0, 1000) })
      .where(eq(documents.id, document.id))
    return false
  }
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
