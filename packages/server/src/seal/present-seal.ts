import type { CertificateMode } from '../db/schema.ts'
import type { SealView } from './seal.schemas.ts'
import { verifyUrlOf } from './verify-url.ts'

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
