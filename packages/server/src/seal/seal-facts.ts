import { checkAuditChain, readAuditTrail, type AuditEvent } from '../audit/audit-trail.ts'
import type { Db } from '../db/client.ts'
import { AppError } from '../errors.ts'

/** What a sealed document's audit trail says about its seal: the source of the badge and the verification page. */
export interface SealFacts {
  kind: 'self-sealed' | 'signed'
  title: string
  /** SHA-256 of the sealed file as stored */
  sha256: string
  sealedAt: Date
  tsaName: string
  /** the identity-verified legal name (self-sealed documents only) */
  legalName: string
  originalSha256: string | null
  /** hash of the trail's last event: the facts are exactly as recorded up to it */
  auditHeadHash: string
}

const text = (event: AuditEvent, key: string): string | null => {
  const value = event.data[key]
  return typeof value === 'string' ? value : null
}

/** The seal as recorded, or null while the document is not sealed; a tampered trail is refused. */
export async function sealFactsOf(db: Db, documentId: string): Promise<SealFacts | null> {
  const trail = await readAuditTrail(db, documentId)
  const sealEvent = trail.findLast((event) => event.type === 'document.sealed' || event.type === 'signed_pdf.created')
  if (!sealEvent) return null
  const chain = checkAuditChain(trail)
  if (!chain.intact) throw new AppError('conflict', `The audit trail of this document failed its integrity check at event ${chain.brokenAtSeq}.`)
  const sha256 = text(sealEvent, 'sha256')
  const sealedAt = text(sealEvent, 'sealed_at')
  if (!sha256 || !sealedAt) return null
  return {
    kind: sealEvent.type === 'document.sealed' ? 'self-sealed' : 'signed',
    title: text(sealEvent, 'title') ?? '',
    sha256,
    sealedAt: new Date(sealedAt),
    tsaName: text(sealEvent, 'tsa') ?? 'unknown',
    legalName: text(sealEvent, 'legal_name') ?? '',
    originalSha256: text(sealEvent, 'original_sha256'),
    auditHeadHash: chain.headHash,
  }
}
