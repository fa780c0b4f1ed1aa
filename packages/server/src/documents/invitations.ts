import type { Principal } from '../actors/principal.ts'
import { randomToken, sha256Hex } from '../lib/crypto.ts'
import type { OutboxMessage } from '../mail/outbox.ts'
import { invitationMail } from '../mail/templates.ts'
import type { SignerLanguage } from '../signing/i18n/languages.ts'

/** Signing links carry 256 bits of entropy; only their hash is stored. */
const SIGNING_TOKEN_BYTES = 32

/** A new signing link: the hash goes into the signer row, the link only into the invitation. */
export function issueSigningLink(publicUrl: string): { tokenHash: string; link: string } {
  const token = randomToken(SIGNING_TOKEN_BYTES)
  return { tokenHash: sha256Hex(token), link: `${publicUrl}/sign/${token}` }
}

export interface Invitation {
  documentId: string
  to: string
  signerName: string | null
  /** The template's name of the signer's role ("Landlord"), as the document was sent; null for "Party N". */
  roleName?: string | null
  link: string
  title: string
  expiresAt: Date | null
  customSubject?: string | undefined
  customMessage?: string | undefined
  /** A reminder of an invitation still open, or the warning the day before it expires (documents/reminders.ts). */
  reason?: 'reminder' | 'expiring'
  /** The mail's language: the document's, else the workspace's, else English (signing/i18n). */
  language: SignerLanguage
}

/** What every invitation of a sent document repeats from it (a re-send, a reminder, a later step, the expiry warning). */
export interface InvitingDocument {
  id: string
  orgId: string
  orgName: string
  title: string
  expiresAt: Date | null
  inviteSubject: string | null
  inviteMessage: string | null
  /** Its invitations' language, resolved (mailLanguageFor). */
  language: SignerLanguage
}

/** The outbox message inviting `signer` again, with a new `link`, to a document already sent. */
export const reinvitationMessage = (
  document: InvitingDocument,
  signer: { email: string; name: string | null; roleName?: string | null },
  link: string,
  reason?: Invitation['reason'],
): OutboxMessage =>
  invitationMessage(document, {
    documentId: document.id,
    to: signer.email,
    signerName: signer.name,
    roleName: signer.roleName ?? null,
    link,
    title: document.title,
    expiresAt: document.expiresAt,
    customSubject: document.inviteSubject ?? undefined,
    customMessage: document.inviteMessage ?? undefined,
    ...(reason ? { reason } : {}),
    language: document.language,
  })

/** The outbox message inviting one signer. */
export const invitationMessage = (principal: Pick<Principal, 'orgId' | 'orgName'>, invitation: Invitation): OutboxMessage => ({
  orgId: principal.orgId,
  documentId: invitation.documentId,
  to: invitation.to,
  ...invitationMail({
    orgName: principal.orgName,
    title: invitation.title,
    signerName: invitation.signerName,
    roleName: invitation.roleName ?? null,
    link: invitation.link,
    expiresAt: invitation.expiresAt,
    customSubject: invitation.customSubject,
    customMessage: invitation.customMessage,
    reason: invitation.reason,
    language: invitation.language,
  }),
})
