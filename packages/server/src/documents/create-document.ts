import { and, eq } from 'drizzle-orm'
import type { Principal } from '../api-keys/api-keys.ts'
import { appendAuditEvents } from '../audit/audit-trail.ts'
import { quoteUsage } from '../billing/metering.ts'
import { documents, signers, templates } from '../db/schema.ts'
import { invalid } from '../errors.ts'
import { randomToken, sha256Hex } from '../lib/crypto.ts'
import { isUuid } from '../lib/ids.ts'
import { parseUtcDateTime } from '../lib/utc-date-time.ts'
import { enqueueMail } from '../mail/outbox.ts'
import { invitationMail } from '../mail/templates.ts'
import type { Services } from '../services.ts'
import { domainWarnings } from './domain-warnings.ts'

/** The spec's create body (validated for shape by the caller's schema; business rules are checked here). */
export interface SignerInput {
  email: string
  name?: string | null
  auth_required?: boolean
}
export interface CreateDocumentInput {
  template_id: string
  signer?: SignerInput
  signers?: (SignerInput & { role: number })[]
  expires_at?: string
  invite_subject?: string
  invite_message?: string
}

export interface SingleSignerCreated {
  id: string
  status: 'sent'
  expires_at: string | null
  auth_required: boolean
  domain_warning?: string
}
export interface MultiPartyCreated {
  id: string
  status: 'sent'
  expires_at: string | null
  signers: { id: string; role: number; email: string; auth_required: boolean }[]
  domain_warnings?: string[]
}

/** Signing links carry 256 bits of entropy; only their hash is stored. */
const SIGNING_TOKEN_BYTES = 32

const partyLabel = (role: number): string => `Party ${role + 1} (role ${role})`

/** Creates a document from a template, status `sent`, and queues one invitation per signer, in one transaction. */
export async function createDocument(
  services: Pick<Services, 'db' | 'clock' | 'mail' | 'config'>,
  principal: Principal,
  input: CreateDocumentInput,
): Promise<SingleSignerCreated | MultiPartyCreated> {
  const { db, clock } = services
  if ((input.signer === undefined) === (input.signers === undefined)) {
    throw invalid("Provide either 'signer' (single recipient) or 'signers' (multi-party, each with a 'role' number), not both.")
  }
  const expiresAt = resolveExpiry(input.expires_at, clock.now())

  const [template] = isUuid(input.template_id)
    ? await db
        .select({ id: templates.id, name: templates.name, roles: templates.roles })
        .from(templates)
        .where(and(eq(templates.id, input.template_id), eq(templates.orgId, principal.orgId)))
    : []
  if (!template) throw invalid('Template not found.')

  const recipients = input.signer ? [{ ...input.signer, role: 0 }] : (input.signers ?? [])
  checkRoles(template.roles, recipients, input.signer !== undefined)

  const withTokens = recipients.map((r) => ({ ...r, token: randomToken(SIGNING_TOKEN_BYTES) }))
  const now = clock.now()
  const created = await db.transaction(async (tx) => {
    const usage = await quoteUsage(tx, principal, { kind: 'send', channel: 'rest', wanted: 1, now })
    if (usage.refusal) throw usage.refusal
    const [document] = await tx
      .insert(documents)
      .values({
        orgId: principal.orgId,
        templateId: template.id,
        title: template.name,
        status: 'sent',
        inviteSubject: input.invite_subject,
        inviteMessage: input.invite_message,
        expiresAt,
      })
      .returning({ id: documents.id })
    if (!document) throw new Error('insert returned no row')
    const signerRows = await tx
      .insert(signers)
      .values(
        withTokens.map((r, position) => ({
          documentId: document.id,
          role: r.role,
          position,
          email: r.email,
          name: r.name ?? null,
          authRequired: r.auth_required ?? false,
          tokenHash: sha256Hex(r.token),
        })),
      )
      .returning({ id: signers.id, role: signers.role, email: signers.email, authRequired: signers.authRequired })
    await usage.record([document.id])
    await appendAuditEvents(tx, { id: document.id, orgId: principal.orgId }, [
      {
        type: 'document.sent',
        occurredAt: clock.now(),
        actorName: principal.orgName,
        authMethod: 'api_key',
        data: { template_id: template.id, signers: signerRows.length },
      },
    ])
    await enqueueMail(
      tx,
      withTokens.map((r) => ({
        orgId: principal.orgId,
        documentId: document.id,
        to: r.email,
        ...invitationMail({
          orgName: principal.orgName,
          title: template.name,
          signerName: r.name ?? null,
          link: `${services.config.publicUrl}/sign/${r.token}`,
          expiresAt,
          customSubject: input.invite_subject,
          customMessage: input.invite_message,
        }),
      })),
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
    signers: created.signers.map((s) => ({ id: s.id, role: s.role, email: s.email, auth_required: s.authRequired })),
    ...(warnings.length > 0 ? { domain_warnings: warnings } : {}),
  }
}

function resolveExpiry(raw: string | undefined, now: Date): Date | null {
  if (raw === undefined || raw === '') return null
  const expiresAt = parseUtcDateTime(raw)
  if (!expiresAt) throw invalid('expires_at must be a UTC date-time such as 2030-01-31T17:00:00Z (or "" for none)')
  if (expiresAt.getTime() <= now.getTime()) throw invalid('expires_at must be in the future.')
  return expiresAt
}

/** Every role the template uses needs a signer; a signer's role must have fields to fill. */
function checkRoles(templateRoles: number[], recipients: { role: number }[], single: boolean): void {
  const given = new Set(recipients.map((r) => r.role))
  const missing = templateRoles.filter((role) => !given.has(role))
  if (missing.length > 0) {
    const hint = single ? " Use 'signers' with one signer per role." : ''
    throw invalid(`This template needs a signer for: ${missing.map(partyLabel).join(', ')}.${hint}`)
  }
  const needed = new Set(templateRoles)
  const unused = recipients.findIndex((r) => !needed.has(r.role))
  if (unused >= 0) {
    const role = recipients[unused]?.role ?? 0
    throw invalid(`signers[${unused}].role: the template has no fields for ${partyLabel(role)}.`)
  }
}
