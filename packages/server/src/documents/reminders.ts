import { and, asc, eq, lte, sql } from 'drizzle-orm'
import { Type, type Static } from 'typebox'
import { requireManager } from '../accounts/roles.ts'
import type { Actor } from '../actors/actor.ts'
import type { Clock } from '../adapters/clock.ts'
import { appendAuditEvents } from '../audit/audit-trail.ts'
import type { Db } from '../db/client.ts'
import { documents, orgs, signers, type ReminderSchedule } from '../db/schema.ts'
import { enqueueMail } from '../mail/outbox.ts'
import { isPastExpiry } from '../signing/signing-rules.ts'
import { mailLanguage } from '../signing/i18n/languages.ts'
import { issueSigningLink, reinvitationMessage } from './invitations.ts'

/*
 * Reminders (extension): a signer who was invited and has not finished is e-mailed a new link
 * (as a re-send: the earlier link stops working) first after N days, then every M days, at most K
 * times, while the document is out for signature. The schedule comes from the create request or
 * the workspace's default; each signer's next due time is a column with a partial index, so the
 * sweep reads only what is due.
 */

export const MAX_REMINDER_DAYS = 60
export const MAX_REMINDERS = 10
const DAY_MS = 86_400_000

export const ReminderScheduleInput = Type.Object(
  {
    first_after_days: Type.Integer({ minimum: 1, maximum: MAX_REMINDER_DAYS, description: 'days after the invitation before the first reminder' }),
    every_days: Type.Integer({ minimum: 1, maximum: MAX_REMINDER_DAYS, description: 'days between later reminders' }),
    max: Type.Integer({ minimum: 1, maximum: MAX_REMINDERS, description: 'reminders at most, per signer' }),
  },
  { additionalProperties: false },
)

export const Reminders = Type.Union([ReminderScheduleInput, Type.Null()], {
  description:
    "extension: when each signer who has not finished is reminded (a new invitation, the earlier link stops working); null for none. Left out: the workspace's default (GET /api/v1/settings/reminders)",
})

export const WorkspaceReminders = Type.Object(
  { reminders: Type.Union([ReminderScheduleInput, Type.Null()], { description: 'the default schedule of documents sent from this workspace; null for none' }) },
  { additionalProperties: false },
)
export type WorkspaceReminders = Static<typeof WorkspaceReminders>

/** When a signer invited at `invitedAt` is first reminded, or null without a schedule. */
export const firstReminderAt = (schedule: ReminderSchedule | null, invitedAt: Date): Date | null =>
  schedule ? new Date(invitedAt.getTime() + schedule.first_after_days * DAY_MS) : null

/** The schedule a new document gets: the request's (null: none), else the workspace's default. */
export async function scheduleForSend(tx: Db, orgId: string, requested: ReminderSchedule | null | undefined): Promise<ReminderSchedule | null> {
  if (requested !== undefined) return requested
  const [org] = await tx.select({ reminders: orgs.reminders }).from(orgs).where(eq(orgs.id, orgId))
  return org?.reminders ?? null
}

export async function workspaceReminders(db: Db, actor: Actor): Promise<WorkspaceReminders> {
  const [org] = await db.select({ reminders: orgs.reminders }).from(orgs).where(eq(orgs.id, actor.orgId))
  return { reminders: org?.reminders ?? null }
}

/** Sets the workspace's default (owners, admins and API keys); documents already sent keep theirs. */
export async function setWorkspaceReminders(db: Db, actor: Actor, input: WorkspaceReminders): Promise<WorkspaceReminders> {
  requireManager(actor, 'reminder settings')
  await db.update(orgs).set({ reminders: input.reminders }).where(eq(orgs.id, actor.orgId))
  return { reminders: input.reminders }
}

const BATCH_SIZE = 200

/**
 * Sends every reminder due at the clock's now; returns how many. Each document is handled in a
 * transaction of its own that takes its row lock with SKIP LOCKED: a document being signed at
 * that moment is left for the next sweep instead of waited for, and two processes sweeping at
 * once never remind twice (the second finds the signer's next due time moved on).
 */
export async function sendDueReminders(services: { db: Db; clock: Clock; config: { publicUrl: string } }): Promise<number> {
  const { db, clock } = services
  const now = clock.now()
  let sent = 0
  const skipped = new Set<string>()
  for (;;) {
    const due = await db
      .select({ signerId: signers.id, documentId: signers.documentId })
      .from(signers)
      .where(lte(signers.nextReminderAt, now))
      .orderBy(asc(signers.nextReminderAt))
      .limit(BATCH_SIZE + skipped.size)
    const todo = due.filter((row) => !skipped.has(row.signerId))
    for (const row of todo) {
      const outcome = await remindOne(db, row, now, services.config.publicUrl)
      if (outcome === 'busy') skipped.add(row.signerId)
      if (outcome === 'sent') sent++
    }
    if (due.length < BATCH_SIZE + skipped.size || todo.every((row) => skipped.has(row.signerId))) return sent
  }
}

async function remindOne(db: Db, due: { signerId: string; documentId: string }, now: Date, publicUrl: string): Promise<'sent' | 'busy' | 'none'> {
  return db.transaction(async (tx) => {
    // Without waiting for the disk: a crash may lose the whole transaction (the reminder and its
    // queued mail together, never one without the other), and the next sweep sends it then.
    await tx.execute(sql`set local synchronous_commit = off`)
    const [document] = await tx
      .select({
        id: documents.id,
        orgId: documents.orgId,
        status: documents.status,
        title: documents.title,
        expiresAt: documents.expiresAt,
        reminders: documents.reminders,
        inviteSubject: documents.inviteSubject,
        inviteMessage: documents.inviteMessage,
        orgName: orgs.name,
        documentLanguage: documents.language,
        workspaceLanguage: orgs.signerLanguage,
      })
      .from(documents)
      .innerJoin(orgs, eq(orgs.id, documents.orgId))
      .where(eq(documents.id, due.documentId))
      .for('update', { of: documents, skipLocked: true })
    if (!document) return 'busy'
    // Re-read under the lock: another process may have sent this one, or the signer finished.
    const [signer] = await tx
      .select()
      .from(signers)
      .where(and(eq(signers.id, due.signerId), lte(signers.nextReminderAt, now)))
    if (!signer) return 'none'
    const schedule = document.reminders
    const remindable =
      schedule !== null &&
      document.status === 'sent' &&
      !isPastExpiry(document, now) &&
      signer.invitedAt !== null &&
      (signer.status === 'pending' || signer.status === 'viewed') &&
      signer.remindersSent < schedule.max
    if (!remindable) {
      await tx.update(signers).set({ nextReminderAt: null }).where(eq(signers.id, signer.id))
      return 'none'
    }
    const count = signer.remindersSent + 1
    const { tokenHash, link } = issueSigningLink(publicUrl)
    await tx
      .update(signers)
      .set({ tokenHash, remindersSent: count, nextReminderAt: count < schedule.max ? new Date(now.getTime() + schedule.every_days * DAY_MS) : null })
      .where(eq(signers.id, signer.id))
    await appendAuditEvents(tx, document, [
      { type: 'signer.reminded', occurredAt: now, signerId: signer.id, authMethod: 'system', data: { email: signer.email, reminder: count, of: schedule.max } },
    ])
    const language = mailLanguage(document.documentLanguage, document.workspaceLanguage)
    await enqueueMail(tx, [reinvitationMessage({ ...document, language }, signer, link, 'reminder')])
    return 'sent'
  })
}
