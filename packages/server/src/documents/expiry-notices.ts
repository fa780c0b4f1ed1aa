import { and, asc, eq, gt, inArray, isNotNull, isNull, lte, ne, type SQL } from 'drizzle-orm'
import type { Clock } from '../adapters/clock.ts'
import { appendAuditEvents } from '../audit/audit-trail.ts'
import type { Db } from '../db/client.ts'
import { documents, memberships, orgs, signers, users } from '../db/schema.ts'
import { enqueueMail } from '../mail/outbox.ts'
import { expiredNoticeMail } from '../mail/templates.ts'
import { mailLanguage } from '../signing/i18n/languages.ts'
import { issueSigningLink, reinvitationMessage } from './invitations.ts'

/*
 * Expiry notices (extension, issue 22): the signers still to sign are warned once, a day before
 * expires_at, with a new link; when a document expires, whoever sent it (or, for a key or the
 * CLI, the workspace's owners) is told who did not sign.
 */

const WARNING_MS = 86_400_000
const BATCH_SIZE = 100

/** Warns the signers of every document that expires within a day; returns how many were warned. */
export async function sendExpiryWarnings(services: { db: Db; clock: Clock; config: { publicUrl: string } }): Promise<number> {
  const { db } = services
  const now = services.clock.now()
  let warned = 0
  for (;;) {
    const due = await db
      .select({ id: documents.id })
      .from(documents)
      .where(
        and(
          eq(documents.status, 'sent'),
          isNotNull(documents.expiresAt),
          gt(documents.expiresAt, now),
          lte(documents.expiresAt, new Date(now.getTime() + WARNING_MS)),
          isNull(documents.expiryWarnedAt),
        ),
      )
      .orderBy(asc(documents.expiresAt))
      .limit(BATCH_SIZE)
    let progressed = 0
    for (const { id } of due) {
      const outcome = await warnDocument(db, id, now, services.config.publicUrl)
      if (outcome !== 'busy') progressed++
      if (typeof outcome === 'number') warned += outcome
    }
    // A full batch all busy (being signed right now) is left for the next sweep.
    if (due.length < BATCH_SIZE || progressed === 0) return warned
  }
}

/** One document, in its own transaction, its row locked with SKIP LOCKED (a signature in progress is not waited for). */
async function warnDocument(db: Db, documentId: string, now: Date, publicUrl: string): Promise<number | 'busy'> {
  return db.transaction(async (tx) => {
    const [document] = await tx
      .select({
        id: documents.id,
        orgId: documents.orgId,
        status: documents.status,
        title: documents.title,
        expiresAt: documents.expiresAt,
        expiryWarnedAt: documents.expiryWarnedAt,
        inviteSubject: documents.inviteSubject,
        inviteMessage: documents.inviteMessage,
        orgName: orgs.name,
        documentLanguage: documents.language,
        workspaceLanguage: orgs.signerLanguage,
      })
      .from(documents)
      .innerJoin(orgs, eq(orgs.id, documents.orgId))
      .where(eq(documents.id, documentId))
      .for('update', { of: documents, skipLocked: true })
    if (!document) return 'busy'
    if (document.status !== 'sent' || document.expiryWarnedAt !== null || !document.expiresAt || document.expiresAt <= now) return 0
    await tx.update(documents).set({ expiryWarnedAt: now }).where(eq(documents.id, document.id))
    // Invited more than a day before the expiry: someone invited today needs no warning on top of their invitation.
    const invitedBefore = new Date(document.expiresAt.getTime() - WARNING_MS)
    const waiting = await tx
      .select({ id: signers.id, email: signers.email, name: signers.name, roleName: signers.roleName })
      .from(signers)
      .where(and(eq(signers.documentId, document.id), inArray(signers.status, ['pending', 'viewed']), lte(signers.invitedAt, invitedBefore)))
    const links = waiting.map((signer) => ({ signer, ...issueSigningLink(publicUrl) }))
    for (const { signer, tokenHash } of links) await tx.update(signers).set({ tokenHash }).where(eq(signers.id, signer.id))
    await appendAuditEvents(
      tx,
      document,
      links.map(({ signer }) => ({
        type: 'signer.expiry_warned',
        occurredAt: now,
        signerId: signer.id,
        authMethod: 'system',
        data: { email: signer.email, expires_at: document.expiresAt?.toISOString() ?? null },
      })),
    )
    await enqueueMail(
      tx,
      links.map(({ signer, link }) =>
        reinvitationMessage({ ...document, language: mailLanguage(document.documentLanguage, document.workspaceLanguage) }, signer, link, 'expiring'),
      ),
    )
    return links.length
  })
}

/**
 * Queues the notice that a document expired: to the member who sent it while they are still in
 * the workspace, else to its owners. Call in the transaction that voids it.
 */
export async function queueExpiredNotice(
  tx: Db,
  document: { id: string; orgId: string; title: string; sentByUserId: string | null },
  publicUrl: string,
): Promise<void> {
  const members = (which: SQL) =>
    tx
      .select({ email: users.email, name: users.name })
      .from(memberships)
      .innerJoin(users, eq(users.id, memberships.userId))
      .where(and(eq(memberships.orgId, document.orgId), which, isNull(users.disabledAt)))
  const sender = document.sentByUserId ? await members(eq(memberships.userId, document.sentByUserId)) : []
  const recipients = sender.length > 0 ? sender : await members(eq(memberships.role, 'owner'))
  const unsigned = await tx
    .select({ email: signers.email, name: signers.name })
    .from(signers)
    .where(and(eq(signers.documentId, document.id), ne(signers.status, 'signed')))
    .orderBy(asc(signers.position))
  const link = `${publicUrl}/app/documents/${document.id}`
  await enqueueMail(
    tx,
    recipients.map((person) => ({
      orgId: document.orgId,
      documentId: document.id,
      to: person.email,
      ...expiredNoticeMail({ title: document.title, name: person.name, unsigned: unsigned.map((s) => (s.name ? `${s.name} (${s.email})` : s.email)), link }),
    })),
  )
}
