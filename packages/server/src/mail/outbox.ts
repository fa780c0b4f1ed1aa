import { and, asc, eq, inArray, lte, sql } from 'drizzle-orm'
import type { Clock } from '../adapters/clock.ts'
import type { MailMessage, Mailer } from '../adapters/mailer.ts'
import type { Db } from '../db/client.ts'
import { outboundEmails } from '../db/schema.ts'
import type { Logger } from '../lib/logger.ts'

export interface OutboxMessage extends MailMessage {
  orgId?: string
  documentId?: string
}

/** Writes messages inside the caller's transaction: they exist exactly when the change that caused them commits. */
export async function enqueueMail(tx: Db, messages: OutboxMessage[]): Promise<void> {
  if (messages.length === 0) return
  await tx.insert(outboundEmails).values(
    messages.map((m) => ({
      orgId: m.orgId,
      documentId: m.documentId,
      toAddress: m.to,
      subject: m.subject,
      textBody: m.text,
      htmlBody: m.html,
    })),
  )
}

const BATCH_SIZE = 20
/** An attempt in flight holds its row this long; a crash mid-send makes the row due again afterwards. */
const LEASE_MS = 2 * 60_000
const MAX_ATTEMPTS = 8
const retryDelayMs = (attempts: number): number => Math.min(30_000 * 2 ** (attempts - 1), 3_600_000)

/** Signing links are secrets: once a message has left through SMTP its stored copy loses them. */
const redactSigningLinks = (body: string): string => body.replace(/\/sign\/[A-Za-z0-9_-]+/g, '/sign/[redacted]')

export interface MailDispatcher {
  /** Delivers every due message now (also called after each commit that enqueued mail). */
  kick(): void
  /** Resolves when the current run, if any, has finished. */
  drain(): Promise<void>
  stop(): Promise<void>
}

/**
 * Delivers due outbox rows through the mailer, at least once: rows are claimed with
 * a lease (FOR UPDATE SKIP LOCKED, so several server processes share the work),
 * retried with exponential back-off, and given up after MAX_ATTEMPTS.
 */
export function startMailDispatcher(deps: {
  db: Db
  mailer: Mailer
  clock: Clock
  logger: Logger
  pollMs: number
}): MailDispatcher {
  const { db, mailer, clock, logger } = deps
  let running: Promise<void> | undefined
  let again = false
  let stopped = false

  const claimDue = async () => {
    const now = clock.now()
    const due = db
      .select({ id: outboundEmails.id })
      .from(outboundEmails)
      .where(and(eq(outboundEmails.status, 'pending'), lte(outboundEmails.nextAttemptAt, now)))
      .orderBy(asc(outboundEmails.nextAttemptAt))
      .limit(BATCH_SIZE)
      .for('update', { skipLocked: true })
    return db
      .update(outboundEmails)
      .set({ attempts: sql`${outboundEmails.attempts} + 1`, nextAttemptAt: new Date(now.getTime() + LEASE_MS) })
      .where(inArray(outboundEmails.id, due))
      .returning()
  }

  const deliver = async (row: typeof outboundEmails.$inferSelect) => {
    try {
      await mailer.send({ to: row.toAddress, subject: row.subject, text: row.textBody, html: row.htmlBody })
      const keepBody = mailer.transport === 'log'
      await db
        .update(outboundEmails)
        .set({
          status: 'sent',
          sentAt: clock.now(),
          transport: mailer.transport,
          lastError: null,
          textBody: keepBody ? row.textBody : redactSigningLinks(row.textBody),
          htmlBody: keepBody ? row.htmlBody : redactSigningLinks(row.htmlBody),
        })
        .where(eq(outboundEmails.id, row.id))
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error)
      const failed = row.attempts >= MAX_ATTEMPTS
      logger.warn({ mailId: row.id, attempts: row.attempts, err: message }, failed ? 'mail delivery failed for good' : 'mail delivery failed; will retry')
      await db
        .update(outboundEmails)
        .set({
          status: failed ? 'failed' : 'pending',
          lastError: message.slice(0, 1000),
          nextAttemptAt: new Date(clock.now().getTime() + retryDelayMs(row.attempts)),
        })
        .where(eq(outboundEmails.id, row.id))
    }
  }

  const runOnce = async () => {
    for (;;) {
      const rows = await claimDue()
      await Promise.all(rows.map(deliver))
      if (rows.length < BATCH_SIZE || stopped) return
    }
  }

  const kick = () => {
    if (stopped) return
    if (running) {
      again = true
      return
    }
    running = runOnce()
      .catch((error: unknown) => logger.error({ err: error }, 'mail dispatcher run failed'))
      .finally(() => {
        running = undefined
        if (again) {
          again = false
          kick()
        }
      })
  }

  const timer = setInterval(kick, deps.pollMs)
  timer.unref()
  kick()

  return {
    kick,
    drain: async () => {
      while (running) await running
    },
    stop: async () => {
      stopped = true
      clearInterval(timer)
      while (running) await running
      mailer.close()
    },
  }
}
