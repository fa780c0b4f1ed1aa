import type { documents } from '../db/schema.ts'
import type { DocumentListItem, DocumentView, SignedPdfStatus } from './documents.schemas.ts'
import type { DocumentStatusRow } from './find-document.ts'

type DocumentRow = typeof documents.$inferSelect

/** The state of a document's final PDF, from its row. */
export function signedPdfStatusOf(row: Pick<DocumentRow, 'status' | 'signedPdfSha256' | 'renderFailedAt'>): SignedPdfStatus | null {
  if (row.status !== 'completed') return null
  if (row.signedPdfSha256) return 'ready'
  return row.renderFailedAt ? 'failed' : 'pending'
}

export type ListedSigner = DocumentListItem['recipients'][number]

export const presentListItem = (row: DocumentRow, recipients: ListedSigner[]): DocumentListItem => ({
  id: row.id,
  title: row.title,
  status: row.status,
  voided_reason: row.voidedReason,
  is_verified_badge: row.isVerifiedBadge,
  created_at: row.createdAt.toISOString(),
  updated_at: row.updatedAt.toISOString(),
  expires_at: row.expiresAt?.toISOString() ?? null,
  recipients,
  signed_count: recipients.filter((r) => r.status === 'signed').length,
  signer_count: recipients.length,
})

export const presentDocument = (row: DocumentStatusRow): DocumentView => {
  // Only a document sent with a signing order shows each signer's step (an extension the spec's clients never see otherwise).
  const sequential = row.signers.some((s) => s.signingOrder !== null)
  return {
    id: row.id,
    title: row.title,
    status: row.status,
    voided_reason: row.voidedReason,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
    expires_at: row.expiresAt?.toISOString() ?? null,
    signed_pdf_status: signedPdfStatusOf(row),
    signed_pdf_error: row.status === 'completed' && !row.signedPdfSha256 ? row.sealError : null,
    ...(row.reminders ? { reminders: row.reminders } : {}),
    ...(row.cc ? { cc: row.cc } : {}),
    ...(row.language ? { language: row.language } : {}),
    signers: row.signers.map((s) => ({
      id: s.id,
      role: s.role,
      email: s.email,
      name: s.name,
      status: s.status,
      signed_at: s.signedAt?.toISOString() ?? null,
      viewed_at: s.viewedAt?.toISOString() ?? null,
      declined_at: s.declinedAt?.toISOString() ?? null,
      auth_required: s.authRequired,
      auth_verified: s.authVerified,
      ...(sequential ? { order: s.signingOrder ?? 1, invited_at: s.invitedAt?.toISOString() ?? null } : {}),
      // Only a role the template named (the name as it was when the document was sent).
      ...(s.roleName === null ? {} : { role_name: s.roleName }),
    })),
  }
}
