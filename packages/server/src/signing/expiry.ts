import { and, asc, eq, inArray, isNotNull, lte } from 'drizzle-orm'
import type { Clock } from '../adapters/clock.ts'
import { appendAuditEvents } from '../audit/audit-trail.ts'
import type { Db } from '../db/client.ts'
import { documents } from '../db/schema.ts'
import { queueExpiredNotice } from '../documents/expiry-notices.ts'

const BATCH_SIZE = 50

/**
 * When expires_at passes, a document still out for signature becomes `voided` (the
 * spec's status set has no `expired`) and its trail records document.expired. Signing
 * links refuse to act from the expiry instant on, before this sweep has run.
 * Whoever sent it is told (documents/expiry-notices.ts). Returns how many documents expired.
 */
export async function expireDueDocuments(db: Db, clock: Clock, publicUrl: string): Promise<number> {
  let expired = 0
  for (;;) {
    const now = clock.now()
    const batch = await db.transaction(async (tx) => {
      const due = await tx
        .select({ id: documents.id, orgId: documents.orgId, expiresAt: documents.expiresAt, title: documents.title, sentByUserId: documents.sentByUserId })
        .from(documents)
        .where(and(eq(documents.status, 'sent'), isNotNull(documents.expiresAt), lte(documents.expiresAt, now)))
        .orderBy(asc(documents.expiresAt))
        .limit(BATCH_SIZE)
        .for('update', { skipLocked: true })
      if (due.length === 0) return 0
      await tx
        .update(documents)
        .set({ status: 'voided', voidedReason: 'expired', updatedAt: now })
        .where(
          inArray(
            documents.id,
            due.map((d) => d.id),
          ),
        )
      for (const document of due) {
        await appendAuditEvents(tx, document, [
          { type: 'document.expired', occurredAt: now, authMethod: 'system', data: { expires_at: document.expiresAt?.toISOString() ?? null } },
        ])
        await queueExpiredNotice(tx, document, publicUrl)
      }
      return due.length
    })
    expired += batch
    if (batch < BATCH_SIZE) return expired
  }
}
