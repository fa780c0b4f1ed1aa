import { and, asc, eq, inArray, lte, sql, type AnyColumn, type SQL } from 'drizzle-orm'
import type { Clock } from '../adapters/clock.ts'
import type { BlobStore } from '../adapters/blob-store.ts'
import type { MailAttachment, MailMessage, Mailer } from '../adapters/mailer.ts'
import { insertMany } from '../db/bulk-insert.ts'
import type { Db } from '../db/client.ts'
import { outboundEmails } from '../db/schema.ts'
import { startBackgroundLoop, type BackgroundLoop } from '../lib/background-loop.ts'
import type { Logger } from '../lib/logger.ts'
import { retryWrite } from '../lib/retry-write.ts'

export interface OutboxMessage extends Omit<MailMessage, 'attachments'> {
  orgId?: string
  documentId?: string
  /** The message carries a secret (an e-mail code): it is erased wholly once delivered or given up. */
  sensitive?: boolean
  /** A stored file to attach, e.g. the signed PDF. */
  attachment?: { sha256: string; filename: string }
}

/** Writes messages inside the caller's transaction: they exist exactly when the change that caused them commits. */
export async function enqueueMail(tx: Db, messages: OutboxMessage[]): Promise<void> {
  await insertMany(
    tx,
    outboundEmails,
    messages.map((m) => ({
      orgId: m.orgId,
      documentId: m.documentId,
      toAddress: m.to,
      subject: m.subject,
      textBody: m.text,
      htmlBody: m.html,
      sensitive: m.sensitive ?? false,
      attachmentSha256: m.attachment?.sha256,
      attachmentName: m.attachment?.filename,
    })),
  )
}

const BATCH_SIZE = 50
/** An attempt in flight holds its row this long; a crash mid-send makes the row due again afterwards. */
const LEASE_MS = 2 * 60_000
const MAX_ATTEMPTS = 8
const retryDelayMs = (attempts: number): number => Math.min(30_000 * 2 ** (attempts - 1), 3_600_000)

/** Signing links are secrets: once a message has left through SMTP its stored copy loses them. */
const SIGNING_LINK_PATTERN = '/sign/[A-Za-z0-9_-]+'
const ERASED = '[erased after delivery: it contained a one-time code]'
const ERASED_MESSAGE = { subject: ERASED, textBody: ERASED, htmlBody: ERASED }

async function loadAttachments(blobs: BlobStore, row: typeof outboundEmails.$inferSelect): Promise<MailAttachment[]> {
  if (!row.attachmentSha256) return []
  const content = await blobs.get(row.attachmentSha256)
  if (!content) throw new Error(`attachment ${row.attachmentSha256} is missing`)
  return [{ filename: row.attachmentName ?? 'attachment.pdf', content, contentType: 'application/pdf' }]
}

/** Delivers the outbox: `kick()` after a commit that enqueued mail sends it right away. */
export type MailDispatcher = BackgroundLoop

/**
 * Delivers due outbox rows through the mailer, at least once: rows are claimed with
 * a lease (FOR UPDATE SKIP LOCKED, so several server processes share the work),
 * retried with exponential back-off, and given up after MAX_ATTEMPTS.
 */
export function startMailDispatcher(deps: {
  db: Db
  blobs: BlobStore
  mailer: Mailer
  clock: Clock
  logger: Logger
  pollMs: number
  /** The right-hand side of each message's Message-ID (PUBLIC_URL's host). */
  messageIdDomain: string
}): MailDispatcher {
  const { db, mailer, clock, logger } = deps

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

  /** Sends one message; a failure is recorded on its row (retry later, or give up). Returns whether it went. */
  const deliver = async (row: typeof outboundEmails.$inferSelect): Promise<boolean> => {
    try {
      await mailer.send({
        to: row.toAddress,
        subject: row.subject,
        text: row.textBody,
        html: row.htmlBody,
        attachments: await loadAttachments(deps.blobs, row),
        messageId: `<${row.id}@${deps.messageIdDomain}>`,
      })
      return true
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error)
      const failed = row.attempts >= MAX_ATTEMPTS
      logger.warn({ mailId: row.id, attempts: row.attempts, err: message }, failed ? 'mail delivery failed for good' : 'mail delivery failed; will retry')
      await db
        .update(outboundEmails)
        .set({
          status: failed ? 'failed' : 'pending',
          lastError: message.slice(0, 1000),
          ...(failed && row.sensitive ? ERASED_MESSAGE : {}),
          nextAttemptAt: new Date(clock.now().getTime() + retryDelayMs(row.attempts)),
        })
        .where(eq(outboundEmails.id, row.id))
      return false
    }
  }

  /*
   * One UPDATE for every message of a batch that went. Code mails are erased, subject
   * included; signing links are redacted — except by the log transport, whose outbox is
   * the only copy an operator has (it keeps links, never codes).
   */
  const erasedIfSensitive = (kept: SQL | AnyColumn) => sql`case when ${outboundEmails.sensitive} then ${ERASED} else ${kept} end`
  const storedBody = (column: typeof outboundEmails.textBody | typeof outboundEmails.htmlBody) =>
    erasedIfSensitive(mailer.transport === 'log' ? column : sql`regexp_replace(${column}, ${SIGNING_LINK_PATTERN}, '/sign/[redacted]', 'g')`)
  const markSentOnce = async (ids: string[]) => {
    await db
      .update(outboundEmails)
      .set({
        status: 'sent',
        sentAt: clock.now(),
        transport: mailer.transport,
        lastError: null,
        subject: erasedIfSensitive(outboundEmails.subject),
        textBody: storedBody(outboundEmails.textBody),
        htmlBody: storedBody(outboundEmails.htmlBody),
      })
      .where(inArray(outboundEmails.id, ids))
  }
  /*
   * The messages have gone: failing to record it would send them again once their lease ends.
   * A database that restarts or fails over is back within seconds, so the record is retried
   * for a while first (a crash right here still sends again: at least once, with the same
   * Message-ID, so a receiver can tell).
   */
  const markSent = async (ids: string[]) => {
    if (ids.length === 0) return
    await retryWrite(
      () => markSentOnce(ids),
      (error) => logger.warn({ err: error, mails: ids.length }, 'recording sent mail failed; retrying'),
    )
  }

  const runOnce = async (stopping: () => boolean) => {
    for (;;) {
      const rows = await claimDue()
      const went = await Promise.all(rows.map(deliver))
      await markSent(rows.filter((_, i) => went[i]).map((row) => row.id))
      if (rows.length < BATCH_SIZE || stopping()) return
    }
  }

  const loop = startBackgroundLoop({ name: 'mail dispatcher', pollMs: deps.pollMs, logger, work: runOnce })
  return {
    ...loop,
    stop: async () => {
      await loop.stop()
      mailer.close()
    },
  }
}
