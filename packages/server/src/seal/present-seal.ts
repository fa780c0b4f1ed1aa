import type { CertificateMode } from '../db/schema.ts'
import { verifyUrlOf } from './verify-url.ts'

/** A self-sealed document as the seal endpoints answer it (a REST extension; the agent tool returns its links). */
export interface SealView {
  id: string
  title: string
  status: 'completed'
  is_verified_badge: true
  certificate_mode: CertificateMode
  /** 'sealed' once the timestamped seal is stored; 'pending' while the TSAs are retried; 'failed' when given up (the operator is alerted). */
  seal_status: 'sealed' | 'pending' | 'failed'
  sealed_at: string | null
  timestamp_authority: string | null
  /** SHA-256 of the sealed file, once sealed. */
  sha256: string | null
  original_sha256: string
  /** Why the last attempt failed, while pending or failed. */
  last_error: string | null
  verify_url: string
  sealed_file_url: string
  certificate_file_url: string | null
  badge_image_url: string
  created_at: string
}

export interface SealRow {
  id: string
  title: string
  createdAt: Date
  signedPdfSha256: string | null
  sealedAt: Date | null
  sealTsa: string | null
  sealError: string | null
  renderFailedAt: Date | null
  certificateMode: CertificateMode
  sourcePdfSha256: string
}

export function presentSeal(publicUrl: string, row: SealRow): SealView {
  const api = `${publicUrl}/api/v1/documents/${row.id}`
  const sealed = row.signedPdfSha256 !== null
  return {
    id: row.id,
    title: row.title,
    status: 'completed',
    is_verified_badge: true,
    certificate_mode: row.certificateMode,
    seal_status: sealed ? 'sealed' : row.renderFailedAt ? 'failed' : 'pending',
    sealed_at: row.sealedAt?.toISOString() ?? null,
    timestamp_authority: row.sealTsa,
    sha256: row.signedPdfSha256,
    original_sha256: row.sourcePdfSha256,
    last_error: sealed ? null : row.sealError,
    verify_url: verifyUrlOf(publicUrl, row.id),
    sealed_file_url: `${api}/signed-file`,
    certificate_file_url: row.certificateMode === 'appended' ? null : `${api}/certificate`,
    badge_image_url: `${api}/badge`,
    created_at: row.createdAt.toISOString(),
  }
}
