import { and, eq, inArray, isNotNull, ne, sql } from 'drizzle-orm'
import { signingDateText } from '@signet/vocabulary'
import { appendAuditEvents, type AuditEventInput } from '../audit/audit-trail.ts'
import { inviteNextStep } from '../documents/signing-order.ts'
import { documents, signers, type StoredFieldValue } from '../db/schema.ts'
import { enqueueMail } from '../mail/outbox.ts'
import { declinedMail } from '../mail/templates.ts'
import { mailLanguage } from './i18n/languages.ts'
import type { Services } from '../services.ts'
import { assertImagesDecode, MAX_DECODED_IMAGE_BYTES, parseFieldValues, type SubmittedValue } from './field-values.ts'
import { actorOf, lockSignerState, type RequestMeta } from './locked-state.ts'
import { fieldsOf, type SignerContext } from './signer-context.ts'
import { assertOpen } from './signing-rules.ts'
import { unprintableCharacters } from './text/font-catalog.ts'

/*
 * The signer's three transitions. Each is one transaction that starts by locking the
 * document row (lockSignerState) and re-checking that the signer may still act, so
 * a completion, a decline, a void and an expiry can never interleave: two signers
 * finishing at the same instant complete the document, and record
 * document.completed, exactly once.
 */

export const MAX_DECLINE_REASON = 500

/** What a date field says: the server's UTC day in the signer's locale, or yyyy-mm-dd when the signed PDF's fonts could not print that. */
function signingDateFor(now: Date, locale: string | undefined): string {
  const day = now.toISOString().slice(0, 10)
  const text = signingDateText(day, locale)
  return unprintableCharacters(text).length === 0 ? text : day
}

type SigningServices = Pick<Services, 'db' | 'clock' | 'mail' | 'blobs' | 'finalPdfs' | 'webhooks' | 'pdfWork' | 'config'>

/** First open of the document: pending → viewed, and document.viewed. Later opens change nothing. */
export async function markViewed(services: Pick<Services, 'db' | 'clock' | 'webhooks'>, context: SignerContext, meta: RequestMeta): Promise<void> {
  const now = services.clock.now()
  await services.db.transaction(async (tx) => {
    const state = await lockSignerState(tx, context)
    assertOpen(state, now)
    if (state.signer.viewedAt) return
    await tx.update(signers).set({ status: 'viewed', viewedAt: now }).where(eq(signers.id, state.signer.id))
    await tx.update(documents).set({ updatedAt: now }).where(eq(documents.id, state.document.id))
    await appendAuditEvents(tx, state.document, [{ type: 'document.viewed', occurredAt: now, ...actorOf(state.signer, meta, context.embedded) }])
  })
  services.webhooks.kick()
}

/** The signer finishes: their entries are stored, they become `signed`, and the last one completes the document. */
export async function finishSigning(
  services: SigningServices,
  context: SignerContext,
  { values, locale }: { values: Record<string, SubmittedValue>; locale?: string | undefined },
  meta: RequestMeta,
): Promise<{ status: 'signed'; document_status: 'sent' | 'completed' }> {
  const now = services.clock.now()
  const parsed = parseFieldValues(fieldsOf(context), values, signingDateFor(now, locale))
  await assertImagesDecode(parsed, (png) => services.pdfWork.pngProblem(png, MAX_DECODED_IMAGE_BYTES))
  // Images are staged (hashed and, on the embedded database, written to disk) before the transaction.
  const entries = await Promise.all(
    [...parsed.entries].map(async ([id, entry]) => [id, entry.type === 'image' ? { ...entry, blob: await services.blobs.stage(entry.png) } : entry] as const),
  )
  const documentStatus = await services.db.transaction(async (tx) => {
    const state = await lockSignerState(tx, context)
    assertOpen(state, now)
    const fieldValues: Record<string, StoredFieldValue> = {}
    for (const [id, entry] of entries) {
      fieldValues[String(id)] = entry.type === 'image' ? { type: entry.fieldType, imageSha256: await services.blobs.put(tx, entry.blob) } : entry.value
    }
    const actor = actorOf(state.signer, meta, context.embedded)
    const events: AuditEventInput[] = []
    // A signer whose page never reported the view (no script ran) has still seen the document.
    if (!state.signer.viewedAt) events.push({ type: 'document.viewed', occurredAt: now, ...actor })
    await tx
      .update(signers)
      .set({ status: 'signed', signedAt: now, viewedAt: state.signer.viewedAt ?? now, fieldValues })
      .where(eq(signers.id, state.signer.id))
    events.push({ type: 'document.signed', occurredAt: now, ...actor, data: { ...actor.data, fields: parsed.entries.size } })

    const [others] = await tx
      .select({ unsigned: sql<number>`count(*)::int` })
      .from(signers)
      .where(and(eq(signers.documentId, state.document.id), ne(signers.status, 'signed')))
    const completed = others?.unsigned === 0
    await tx
      .update(documents)
      .set(completed ? { status: 'completed', completedAt: now, updatedAt: now, nextRenderAt: now } : { updatedAt: now })
      .where(eq(documents.id, state.document.id))
    if (completed) events.push({ type: 'document.completed', occurredAt: now, authMethod: 'system' })
    await appendAuditEvents(tx, state.document, events)
    // A signing order's next step is invited in this transaction: it commits with the signature or not at all.
    if (!completed && state.signer.signingOrder !== null) {
      const org = { orgName: context.orgName, publicUrl: services.config.publicUrl, workspaceLanguage: context.workspaceLanguage }
      await inviteNextStep(tx, state.document, org, now)
    }
    return completed ? 'completed' : 'sent'
  })
  if (documentStatus === 'completed') services.finalPdfs.kick()
  else services.mail.kick()
  services.webhooks.kick()
  return { status: 'signed', document_status: documentStatus }
}

/** The signer declines: the whole document becomes `declined` and the others are told they need not sign. */
export async function declineSigning(
  services: SigningServices,
  context: SignerContext,
  reason: string | undefined,
  meta: RequestMeta,
): Promise<{ status: 'declined' }> {
  const now = services.clock.now()
  const trimmed = reason?.trim() || null
  await services.db.transaction(async (tx) => {
    const state = await lockSignerState(tx, context)
    assertOpen(state, now)
    const actor = actorOf(state.signer, meta, context.embedded)
    const events: AuditEventInput[] = []
    if (!state.signer.viewedAt) events.push({ type: 'document.viewed', occurredAt: now, ...actor })
    await tx
      .update(signers)
      .set({ status: 'declined', declinedAt: now, declineReason: trimmed, viewedAt: state.signer.viewedAt ?? now })
      .where(eq(signers.id, state.signer.id))
    await tx.update(documents).set({ status: 'declined', updatedAt: now }).where(eq(documents.id, state.document.id))
    events.push({ type: 'document.declined', occurredAt: now, ...actor, data: { ...actor.data, reason: trimmed } })
    await appendAuditEvents(tx, state.document, events)

    const others = await tx
      .select({ email: signers.email, name: signers.name })
      .from(signers)
      // A signer still waiting for their step was never invited: they hear nothing of this document.
      .where(and(eq(signers.documentId, state.document.id), inArray(signers.status, ['pending', 'viewed']), isNotNull(signers.invitedAt)))
    const declinedBy = state.signer.name ? `${state.signer.name} (${state.signer.email})` : state.signer.email
    const language = mailLanguage(context.document.language, context.workspaceLanguage)
    await enqueueMail(
      tx,
      others.map((s) => ({
        orgId: state.document.orgId,
        documentId: state.document.id,
        to: s.email,
        ...declinedMail({ orgName: context.orgName, title: state.document.title, signerName: s.name, declinedBy, language }),
      })),
    )
  })
  services.mail.kick()
  services.webhooks.kick()
  return { status: 'declined' }
}
