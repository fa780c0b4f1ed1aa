/**
 * Every event an audit trail records: the API lists them as an enum, the server's
 * appendAuditEvents takes only these, and each has words for the dashboard's trail and the
 * signed PDF's certificate — a new event fails to compile until it has them.
 */
export const AUDIT_EVENT_TYPES = [
  'document.sent',
  'document.viewed',
  'document.signed',
  'document.completed',
  'document.declined',
  'document.voided',
  'document.expired',
  'signer.invitation_resent',
  'signer.invited',
  'signer.reminded',
  'signer.expiry_warned',
  'signer.code_sent',
  'signer.code_verified',
  'signer.code_rejected',
  'signer.embed_url_refused',
  'signed_pdf.created',
  'document.seal_requested',
  'document.sealed',
] as const
export type AuditEventType = (typeof AUDIT_EVENT_TYPES)[number]

export const AUDIT_EVENT_LABELS: Record<AuditEventType, string> = {
  'document.sent': 'Sent for signature',
  'document.viewed': 'Opened',
  'document.signed': 'Signed',
  'document.completed': 'Completed',
  'document.declined': 'Declined',
  'document.voided': 'Voided by the sender',
  'document.expired': 'Expired',
  'signer.invitation_resent': 'Invitation sent again',
  'signer.invited': 'Invited (their turn in the signing order)',
  'signer.reminded': 'Reminder sent',
  'signer.expiry_warned': 'Warned that it expires within a day',
  'signer.code_sent': 'E-mail code sent',
  'signer.code_verified': 'E-mail code verified',
  'signer.code_rejected': 'Wrong e-mail code entered',
  'signer.embed_url_refused': 'Used or expired embed URL opened again (refused)',
  'signed_pdf.created': 'Signed PDF produced',
  'document.seal_requested': 'Seal requested',
  'document.sealed': 'Sealed',
}
