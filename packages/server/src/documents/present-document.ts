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

/** The spec's single-read Document (no is_verified_badge, plus signers). */
export interface DocumentView extends Omit<DocumentListItem, 'is_verified_badge'> {
  signers: SignerStatusView[]
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
  signers: row.signers.map((s) => ({
    email: s.email,
    name: s.name,
    status: s.status,
    signed_at: s.signedAt?.toISOString() ?? null,
    auth_required: s.authRequired,
    auth_verified: s.authVerified,
  })),
})
