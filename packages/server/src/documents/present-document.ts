import type { documents, signers } from '../db/schema.ts'
import type { DocumentStatusRow } from './find-document.ts'

type DocumentRow = typeof documents.$inferSelect
type SignerRow = typeof signers.$inferSelect

/** The spec's Document list item. */
export interface DocumentListItem {
  id: string
  title: string
  status: DocumentRow['status']
  is_verified_badge: boolean
  created_at: string
  updated_at: string
  expires_at: string | null
}

/** The spec's Signer status object. */
export interface SignerStatusView {
  email: string
  name: string | null
  status: SignerRow['status']
  signed_at: string | null
  auth_required: boolean
  auth_verified: boolean
}

/** Where a completed document's final (signed or sealed) PDF stands; null before completion. */
export type SignedPdfStatus = 'pending' | 'ready' | 'failed'

/** The spec's single-read Document (no is_verified_badge, plus signers), and the state of its final PDF (an extension). */
export interface DocumentView extends Omit<DocumentListItem, 'is_verified_badge'> {
  signers: SignerStatusView[]
  signed_pdf_status: SignedPdfStatus | null
  /** Why the final PDF is not ready: the last attempt's failure, or why it was given up. */
  signed_pdf_error: string | null
}

/** The state of a document's final PDF, from its row. */
export function signedPdfStatusOf(row: Pick<DocumentRow, 'status' | 'signedPdfSha256' | 'renderFailedAt'>): SignedPdfStatus | null {
  if (row.status !== 'completed') return null
  if (row.signedPdfSha256) return 'ready'
  return row.renderFailedAt ? 'failed' : 'pending'
}

export const presentListItem = (row: DocumentRow): DocumentListItem => ({
  id: row.id,
  title: row.title,
  status: row.status,
  is_verified_badge: row.isVerifiedBadge,
  created_at: row.createdAt.toISOString(),
  updated_at: row.updatedAt.toISOString(),
  expires_at: row.expiresAt?.toISOString() ?? null,
})

export const presentDocument = (row: DocumentStatusRow): DocumentView => ({
  id: row.id,
  title: row.title,
  status: row.status,
  created_at: row.createdAt.toISOString(),
  updated_at: row.updatedAt.toISOString(),
  expires_at: row.expiresAt?.toISOString() ?? null,
  signed_pdf_status: signedPdfStatusOf(row),
  signed_pdf_error: row.status === 'completed' && !row.signedPdfSha256 ? row.sealError : null,
  signers: row.signers.map((s) => ({
    email: s.email,
    name: s.name,
    status: s.status,
    signed_at: s.signedAt?.toISOString() ?? null,
    auth_required: s.authRequired,
    auth_verified: s.authVerified,
  })),
})
