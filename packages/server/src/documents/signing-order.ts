import { and, asc, eq, inArray, isNull, ne } from 'drizzle-orm'
import { appendAuditEvents } from '../audit/audit-trail.ts'
import type { Db } from '../db/client.ts'
import { documents, signers } from '../db/schema.ts'
import { invalid } from '../errors.ts'
import { enqueueMail } from '../mail/outbox.ts'
import { mailLanguage } from '../signing/i18n/languages.ts'
import { issueSigningLink, reinvitationMessage } from './invitations.ts'
import { firstReminderAt } from './reminders.ts'

/*
 * Sequential signing (extension): each signer of a multi-party document may carry an `order`;
 * only the lowest step that has not finished is invited, and the next step's invitations are
 * queued in the transaction that records the step's last signature (the mail outbox sends them
 * once it commits). Without orders every signer is invited at once, as the spec describes.
 */

/**
 * Orders are all given or all left out: a half-ordered list is more likely a mistake than a plan.
 * A null order (everyone at once, whatever the template's default steps) counts as left out.
 */
export function checkSigningOrders(recipients: { order?: number | null | undefined }[]): void {
  const given = recipients.filter((r) => typeof r.order === 'number').length
  if (given === 0 || given === recipients.length) return
  const missing = recipients.findIndex((r) => typeof r.order !== 'number')
  throw invalid(
    `signers[${missing}].order is missing: give every signer an order (1, 2, 3…; equal numbers sign in parallel), or none to have everyone sign at once.`,
    {
      field: `/signers/${missing}/order`,
    },
  )
}

/** The step invited when the document is sent: the lowest order, or everyone when there is none. */
export function firstStep(recipients: { order?: number | undefined }[]): number | undefined {
  const orders = recipients.flatMap((r) => (r.order === undefined ? [] : [r.order]))
  return orders.length === 0 ? undefined : Math.min(...orders)
}

/** Whether a signer at `order` is invited when the document is sent. */
export const invitedAtSend = (order: number | undefined, first: number | undefined): boolean => order === undefined || order === first

/**
 * After a signature that did not complete the document: when every invited signer has signed,
 * invites the next step (new links, audited as signer.invited). Call inside the transaction
 * that holds the document's row lock. Returns how many invitations were queued.
 */
export async function inviteNextStep(
  tx: Db,
  document: { id: string; orgId: string },
  org: { orgName: string; publicUrl: string; workspaceLanguage: string | null },
  now: Date,
): Promise<number> {
  const open = await tx
    .select({ id: signers.id, order: signers.signingOrder, invitedAt: signers.invitedAt, email: signers.email, name: signers.name, roleName: signers.roleName })
    .from(signers)
    .where(and(eq(signers.documentId, document.id), ne(signers.status, 'signed')))
    .orderBy(asc(signers.signingOrder), asc(signers.position))
  // Someone invited has not signed yet (or the document has no order): nothing moves.
  if (open.length === 0 || open.some((s) => s.invitedAt !== null)) return 0
  const step = open[0]?.order ?? null
  const next = open.filter((s) => s.order === step)
  const [details] = await tx
    .select({
      title: documents.title,
      expiresAt: documents.expiresAt,
      inviteSubject: documents.inviteSubject,
      inviteMessage: documents.inviteMessage,
      reminders: documents.reminders,
      documentLanguage: documents.language,
    })
    .from(documents)
    .where(eq(documents.id, document.id))
  if (!details) throw new Error('document vanished')
  const links = next.map((signer) => ({ signer, ...issueSigningLink(org.publicUrl) }))
  for (const { signer, tokenHash } of links) {
    await tx
      .update(signers)
      .set({ tokenHash, invitedAt: now, nextReminderAt: firstReminderAt(details.reminders, now) })
      .where(and(eq(signers.id, signer.id), isNull(signers.invitedAt), inArray(signers.status, ['pending', 'viewed'])))
  }
  await appendAuditEvents(
    tx,
    document,
    links.map(({ signer }) => ({
      type: 'signer.invited',
      occurredAt: now,
      signerId: signer.id,
      authMethod: 'system',
      data: { email: signer.email, order: step },
    })),
  )
  const language = mailLanguage(details.documentLanguage, org.workspaceLanguage)
  const inviting = { ...details, id: document.id, orgId: document.orgId, orgName: org.orgName, language }
  await enqueueMail(
    tx,
    links.map(({ signer, link }) => reinvitationMessage(inviting, signer, link)),
  )
  return links.length
}
