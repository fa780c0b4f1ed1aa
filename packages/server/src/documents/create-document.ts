import { and, eq, isNull } from 'drizzle-orm'
import { partyLabel } from '@signet/vocabulary'
import type { Principal } from '../actors/principal.ts'
import { auditedActor, type Actor } from '../actors/actor.ts'
import { startAuditTrails, type AuditEventInput } from '../audit/audit-trail.ts'
import { quoteUsage, usageChannelOf } from '../billing/metering.ts'
import type { Db } from '../db/client.ts'
import { documents, signers, templates, type CopyRecipient, type TemplateField, type TemplateRole } from '../db/schema.ts'
import { invalid } from '../errors.ts'
import { isUuid } from '../lib/ids.ts'
import { parseUtcDateTime } from '../lib/utc-date-time.ts'
import { enqueueMail } from '../mail/outbox.ts'
import type { Services } from '../services.ts'
import type { CreateDocumentInput, MultiPartyCreated, SingleSignerCreated } from './documents.schemas.ts'
import { domainWarnings } from './domain-warnings.ts'
import { invitationMessage, issueSigningLink } from './invitations.ts'
import { resolvePrefill } from './prefill.ts'
import { mailLanguageFor } from '../signing/i18n/signer-language-setting.ts'
import { firstReminderAt, scheduleForSend } from './reminders.ts'
import { checkSigningOrders, firstStep, invitedAtSend } from './signing-order.ts'
import { withTemplateRoles } from './template-roles-at-send.ts'

/** One signer of the request: the single `signer` is role 0 with no order; with the template's name of its role (null: "Party N"). */
type Recipient = {
  role: number
  email: string
  name?: string | null | undefined
  auth_required?: boolean | undefined
  order?: number | undefined
  roleName: string | null
}

/** A party as a program's error names it: the people's label with the API's role number. */
const partyAndRole = (role: number): string => `${partyLabel(role)} (role ${role})`

/** Creates a document from a template, status `sent`, and queues one invitation per signer, in one transaction. */
export async function createDocument(
  services: Pick<Services, 'db' | 'clock' | 'mail' | 'config'>,
  actor: Actor,
  input: CreateDocumentInput,
): Promise<SingleSignerCreated | MultiPartyCreated> {
  const { db, clock } = services
  if ((input.signer === undefined) === (input.signers === undefined)) {
    throw invalid("Provide either 'signer' (single recipient) or 'signers' (multi-party, each with a 'role' number), not both.")
  }
  const expiresAt = resolveExpiry(input.expires_at, clock.now())

  const template = await findTemplateToSend(db, actor, input.template_id)

  const requested = input.signer ? [{ ...input.signer, role: 0 }] : (input.signers ?? [])
  checkRoles(template.roles, requested, input.signer !== undefined)
  checkSigningOrders(requested)
  const recipients: Recipient[] = withTemplateRoles(requested, template.roleNames, input.signer !== undefined)
  const cc = checkCopyRecipients(input.cc, recipients)
  const prefill = resolvePrefill(template.fields, input.fields)
  const first = firstStep(recipients)
  // Without mail the code could reach no one (codes are never logged or kept): say so now, not on the signer's page.
  const needsCode = recipients.findIndex((r) => r.auth_required)
  if (!services.config.smtpUrl && needsCode >= 0) {
    throw invalid(
      'This Signet instance sends no e-mail (SMTP_URL is not set), so a signer could not receive the one-time code auth_required needs. Set SMTP_URL, or send without auth_required.',
      { field: `${signerPointer(input.signer !== undefined, needsCode)}/auth_required` },
    )
  }

  const title = input.title ?? defaultDocumentTitle(template.name, recipients[0])
  // Signers of a later step get a link no one is sent (only its hash is kept): inviteNextStep replaces it when their turn comes.
  const withLinks = recipients.map((r) => ({ ...r, ...issueSigningLink(services.config.publicUrl), invitedNow: invitedAtSend(r.order, first) }))
  const now = clock.now()
  const created = await db.transaction(async (tx) => {
    const usage = await quoteUsage(tx, actor, { kind: 'send', channel: usageChannelOf(actor), wanted: 1, now })
    if (usage.refusal) throw usage.refusal
    const schedule = await scheduleForSend(tx, actor.orgId, input.reminders)
    const language = await mailLanguageFor(tx, actor.orgId, input.language ?? null)
    const [document] = await tx
      .insert(documents)
      .values({
        orgId: actor.orgId,
        templateId: template.id,
        title,
        status: 'sent',
        inviteSubject: input.invite_subject,
        inviteMessage: input.invite_message,
        expiresAt,
        reminders: schedule,
        sentByUserId: actor.user?.id ?? null,
        cc,
        prefill,
        language: input.language ?? null,
      })
      .returning({ id: documents.id })
    if (!document) throw new Error('insert returned no row')
    const signerRows = await tx
      .insert(signers)
      .values(
        withLinks.map((r, position) => ({
          documentId: document.id,
          role: r.role,
          position,
          email: r.email,
          name: r.name ?? null,
          authRequired: r.auth_required ?? false,
          tokenHash: r.tokenHash,
          signingOrder: r.order ?? null,
          roleName: r.roleName,
          invitedAt: r.invitedNow ? now : null,
          nextReminderAt: r.invitedNow ? firstReminderAt(schedule, now) : null,
        })),
      )
      .returning({
        id: signers.id,
        role: signers.role,
        email: signers.email,
        authRequired: signers.authRequired,
        order: signers.signingOrder,
        roleName: signers.roleName,
      })
    await usage.record([document.id])
    await startAuditTrails(tx, [{ document: { id: document.id, orgId: actor.orgId }, events: [sentEvent(actor, template.id, signerRows.length, now)] }])
    await enqueueMail(
      tx,
      withLinks
        .filter((r) => r.invitedNow)
        .map((r) =>
          invitationMessage(actor, {
            documentId: document.id,
            to: r.email,
            signerName: r.name ?? null,
            roleName: r.roleName,
            link: r.link,
            // One name for the document everywhere: the invitation, a re-sent one, the cancellation and the signing page.
            title,
            expiresAt,
            customSubject: input.invite_subject,
            customMessage: input.invite_message,
            language,
          }),
        ),
    )
    return { id: document.id, signers: signerRows }
  })
  services.mail.kick()

  const warnings = domainWarnings(recipients.map((r) => r.email))
  const base = { id: created.id, status: 'sent' as const, expires_at: expiresAt?.toISOString() ?? null }
  if (input.signer) {
    return { ...base, auth_required: input.signer.auth_required ?? false, ...(warnings[0] ? { domain_warning: warnings[0] } : {}) }
  }
  return {
    ...base,
    signers: created.signers.map((s) => ({
      id: s.id,
      role: s.role,
      email: s.email,
      auth_required: s.authRequired,
      ...(s.order === null ? {} : { order: s.order }),
      ...(s.roleName === null ? {} : { role_name: s.roleName }),
    })),
    ...(warnings.length > 0 ? { domain_warnings: warnings } : {}),
  }
}

const DEFAULT_TITLE_LENGTH = 200
const graphemes = new Intl.Segmenter(undefined, { granularity: 'grapheme' })

/**
 * "NDA — Ann Smith": fifty sends of one template are fifty rows a person can tell apart. Cut at
 * the longest title a sender may give, on a character boundary a reader sees.
 */
export function defaultDocumentTitle(templateName: string, firstSigner: { email: string; name?: string | null | undefined } | undefined): string {
  const title = firstSigner ? `${templateName} — ${firstSigner.name?.trim() || firstSigner.email}` : templateName
  const characters = Array.from(graphemes.segment(title), (s) => s.segment)
  return characters.length <= DEFAULT_TITLE_LENGTH ? title : characters.slice(0, DEFAULT_TITLE_LENGTH - 1).join('') + '…'
}

/** The org's live template a send names, or the spec's 400 (an unknown or deleted template is a bad request, not a 404). */
export async function findTemplateToSend(
  db: Db,
  principal: Principal,
  templateId: string,
): Promise<{ id: string; name: string; roles: number[]; fields: TemplateField[]; roleNames: TemplateRole[] | null }> {
  const [template] = isUuid(templateId)
    ? await db
        .select({ id: templates.id, name: templates.name, roles: templates.roles, fields: templates.fields, roleNames: templates.roleNames })
        .from(templates)
        .where(and(eq(templates.id, templateId), eq(templates.orgId, principal.orgId), isNull(templates.deletedAt)))
    : []
  if (!template) throw invalid('Template not found.', { field: '/template_id' })
  return template
}

/** The first event of every document's trail. */
export const sentEvent = (actor: Actor, templateId: string, signerCount: number, now: Date): AuditEventInput => ({
  type: 'document.sent',
  occurredAt: now,
  ...auditedActor(actor),
  data: { template_id: templateId, signers: signerCount },
})

function resolveExpiry(raw: string | undefined, now: Date): Date | null {
  if (raw === undefined || raw === '') return null
  const expiresAt = parseUtcDateTime(raw)
  if (!expiresAt) throw invalid('expires_at must be a UTC date-time such as 2030-01-31T17:00:00Z (or "" for none)', { field: '/expires_at' })
  if (expiresAt.getTime() <= now.getTime()) throw invalid('expires_at must be in the future.', { field: '/expires_at' })
  return expiresAt
}

/** The copy recipients as stored (null for none); an address given twice, or also a signer's, is a 400 naming it. */
function checkCopyRecipients(cc: { email: string; name?: string | null | undefined }[] | undefined, recipients: Recipient[]): CopyRecipient[] | null {
  if (!cc || cc.length === 0) return null
  const signing = new Set(recipients.map((r) => r.email.toLowerCase()))
  const seen = new Set<string>()
  cc.forEach((copy, index) => {
    const address = copy.email.toLowerCase()
    if (signing.has(address))
      throw invalid(`cc[${index}]: ${copy.email} is already a signer of this document; signers get the completed PDF anyway.`, { field: `/cc/${index}/email` })
    if (seen.has(address)) throw invalid(`cc[${index}]: ${copy.email} is listed twice.`, { field: `/cc/${index}/email` })
    seen.add(address)
  })
  return cc.map((copy) => ({ email: copy.email, name: copy.name ?? null }))
}

/** The pointer of the recipient at `index`: the one `signer`, or an entry of `signers`. */
const signerPointer = (single: boolean, index: number): string => (single ? '/signer' : `/signers/${index}`)

/** Every role the template uses needs a signer; a signer's role must have fields to fill. */
function checkRoles(templateRoles: number[], recipients: { role: number }[], single: boolean): void {
  // An upload from the dashboard has no fields until they are placed in the editor.
  if (templateRoles.length === 0)
    throw invalid('This template has no fields yet: place them in the template editor before sending it.', { field: '/template_id' })
  const given = new Set(recipients.map((r) => r.role))
  const missing = templateRoles.filter((role) => !given.has(role))
  if (missing.length > 0) {
    const hint = single ? " Use 'signers' with one signer per role." : ''
    throw invalid(`This template needs a signer for: ${missing.map(partyAndRole).join(', ')}.${hint}`, { field: single ? '/signer' : '/signers' })
  }
  const needed = new Set(templateRoles)
  const unused = recipients.findIndex((r) => !needed.has(r.role))
  if (unused >= 0) {
    const role = recipients[unused]?.role ?? 0
    throw invalid(`signers[${unused}].role: the template has no fields for ${partyAndRole(role)}.`, { field: `/signers/${unused}/role` })
  }
}
