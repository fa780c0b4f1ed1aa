import { and, eq, inArray, isNotNull } from 'drizzle-orm'
import { auditedActor, type Actor } from '../actors/actor.ts'
import { appendAuditEvents } from '../audit/audit-trail.ts'
import { documents, signers } from '../db/schema.ts'
import { invalid } from '../errors.ts'
import { enqueueMail } from '../mail/outbox.ts'
import { voidedMail } from '../mail/templates.ts'
import type { Services } from '../services.ts'
import { mailLanguageFor } from '../signing/i18n/signer-language-setting.ts'
import { findDocument } from './find-document.ts'

/** sent → voided, atomically; signers who have not signed are told their link no longer works. */
export async function voidDocument(services: Pick<Services, 'db' | 'clock' | 'mail'>, actor: Actor, documentId: string): Promise<{ success: true }> {
  const document = await findDocument(services.db, actor.orgId, documentId)
  const voided = await services.db.transaction(async (tx) => {
    // The status condition makes concurrent voids (or a void racing a completion) change the row once.
    const [row] = await tx
      .update(documents)
      .set({ status: 'voided', voidedReason: 'sender', updatedAt: services.clock.now() })
      .where(and(eq(documents.id, document.id), eq(documents.status, 'sent')))
      .returning({ id: documents.id, title: documents.title, language: documents.language })
    if (!row) return false
    await appendAuditEvents(tx, { id: row.id, orgId: actor.orgId }, [{ type: 'document.voided', occurredAt: services.clock.now(), ...auditedActor(actor) }])
    const waiting = await tx
      .select({ email: signers.email, name: signers.name })
      .from(signers)
      // Signers still waiting for their step in a signing order were never invited: nothing to call off.
      .where(and(eq(signers.documentId, row.id), inArray(signers.status, ['pending', 'viewed']), isNotNull(signers.invitedAt)))
    const language = await mailLanguageFor(tx, actor.orgId, row.language)
    await enqueueMail(
      tx,
      waiting.map((s) => ({
        orgId: actor.orgId,
        documentId: row.id,
        to: s.email,
        ...voidedMail({ orgName: actor.orgName, title: row.title, signerName: s.name, language }),
      })),
    )
    return true
  })
  if (!voided) throw invalid(`Only documents out for signature (status "sent") can be voided; this document is ${document.status}.`)
  services.mail.kick()
  return { success: true }
}
