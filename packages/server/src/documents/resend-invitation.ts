import { and, desc, eq, inArray } from 'drizzle-orm'
import { auditedActor, type Actor } from '../actors/actor.ts'
import { appendAuditEvents } from '../audit/audit-trail.ts'
import { auditEvents, documents, signers } from '../db/schema.ts'
import { AppError, notFound } from '../errors.ts'
import { isUuid } from '../lib/ids.ts'
import { enqueueMail } from '../mail/outbox.ts'
import type { Services } from '../services.ts'
import { isPastExpiry } from '../signing/signing-rules.ts'
import type { ResendAccepted } from './documents.schemas.ts'
import { findDocument } from './find-document.ts'
import { mailLanguageFor } from '../signing/i18n/signer-language-setting.ts'
import { issueSigningLink, reinvitationMessage } from './invitations.ts'

/** A signer's inbox is not a target: one re-send per signer per this many seconds (besides the org's hourly limit). */
export const RESEND_COOLDOWN_SECONDS = 60

const RESENDABLE = ['pending', 'viewed'] as const

const signerNotFound = () => notFound('Signer not found.')

/**
 * Mails a signer who has not finished a new invitation. Only the hash of a signing link is
 * kept, so the mail carries a new link and the earlier one stops working (a forwarded or
 * leaked old mail opens nothing). Recorded in the audit trail as signer.invitation_resent.
 */
export async function resendInvitation(
  services: Pick<Services, 'db' | 'clock' | 'config' | 'mail'>,
  actor: Actor,
  documentId: string,
  signerId: string,
): Promise<ResendAccepted> {
  const { db, clock } = services
  const found = await findDocument(db, actor.orgId, documentId)
  if (!isUuid(signerId)) throw signerNotFound()
  const result = await db.transaction(async (tx) => {
    // The document's row lock orders this with signing, voiding and other re-sends of it.
    const [document] = await tx.select().from(documents).where(eq(documents.id, found.id)).for('update')
    const [signer] = await tx
      .select()
      .from(signers)
      .where(and(eq(signers.id, signerId), eq(signers.documentId, found.id)))
    if (!document || !signer) throw signerNotFound()
    const now = clock.now()
    if (document.status !== 'sent') {
      throw new AppError('conflict', `This document is ${document.status}: invitations can only be re-sent while it is out for signature.`)
    }
    if (isPastExpiry(document, now)) throw new AppError('conflict', 'This document has expired: its invitations can no longer be re-sent.')
    if (!(RESENDABLE as readonly string[]).includes(signer.status)) {
      throw new AppError('conflict', `${signer.email} has already ${signer.status === 'signed' ? 'signed' : 'declined'}: there is no invitation to re-send.`)
    }
    if (signer.invitedAt === null) {
      throw new AppError('conflict', `${signer.email} signs at a later step of the signing order: their invitation goes out when the step before is done.`)
    }
    const [last] = await tx
      .select({ at: auditEvents.occurredAt })
      .from(auditEvents)
      .where(and(eq(auditEvents.documentId, document.id), eq(auditEvents.signerId, signer.id), eq(auditEvents.type, 'signer.invitation_resent')))
      .orderBy(desc(auditEvents.seq))
      .limit(1)
    const waitSeconds = last ? Math.ceil(RESEND_COOLDOWN_SECONDS - (now.getTime() - last.at.getTime()) / 1000) : 0
    if (waitSeconds > 0) {
      throw new AppError(
        'rate_limited',
        `An invitation was re-sent to ${signer.email} moments ago. Try again in ${waitSeconds} second${waitSeconds === 1 ? '' : 's'}.`,
        {},
        { 'retry-after': String(waitSeconds) },
      )
    }
    const { tokenHash, link } = issueSigningLink(services.config.publicUrl)
    await tx
      .update(signers)
      .set({ tokenHash })
      .where(and(eq(signers.id, signer.id), inArray(signers.status, [...RESENDABLE])))
    await appendAuditEvents(tx, document, [
      { type: 'signer.invitation_resent', occurredAt: now, signerId: signer.id, ...auditedActor(actor), data: { email: signer.email } },
    ])
    const language = await mailLanguageFor(tx, actor.orgId, document.language)
    await enqueueMail(tx, [reinvitationMessage({ ...document, orgName: actor.orgName, language }, signer, link)])
    return { signer_id: signer.id, email: signer.email }
  })
  services.mail.kick()
  return { ...result, message: `A new invitation is on its way to ${result.email}; the link in the earlier one no longer works.` }
}
