import { and, count, eq, lte, min } from 'drizzle-orm'
import type { Db } from '../db/client.ts'
import { outboundEmails, webhookDeliveries } from '../db/schema.ts'

/** Work waiting for its dispatcher: how many items are due, and how long the one waiting longest has been due. */
export interface Backlog {
  due: number
  /** Seconds since the longest-waiting due item became due (0 when none is): a healthy queue stays near 0. */
  oldestDueSeconds: number
}

/*
 * Instance-wide on purpose: these are the operator's numbers (is a dispatcher stuck?), never
 * shown to an org. Each is one statement on the dispatcher's own partial index (status
 * 'pending', by next_attempt_at), the rows it would claim now: a row leased by an attempt in
 * flight has its next_attempt_at in the future, so it is not counted as waiting.
 */

type QueueTable = typeof outboundEmails | typeof webhookDeliveries

async function backlogOf(db: Db, table: QueueTable, now: Date): Promise<Backlog> {
  const [row] = await db
    .select({ due: count(), oldest: min(table.nextAttemptAt) })
    .from(table)
    .where(and(eq(table.status, 'pending'), lte(table.nextAttemptAt, now)))
  const oldest = row?.oldest
  return {
    due: row?.due ?? 0,
    oldestDueSeconds: oldest ? Math.max(0, (now.getTime() - new Date(oldest).getTime()) / 1000) : 0,
  }
}

/** The mail outbox (mail/outbox.ts): messages due to be sent or retried. */
export const mailBacklog = (db: Db, now: Date): Promise<Backlog> => backlogOf(db, outboundEmails, now)

/** Webhook deliveries (webhooks/dispatcher.ts) due to be sent or retried. */
export const webhookBacklog = (db: Db, now: Date): Promise<Backlog> => backlogOf(db, webhookDeliveries, now)
