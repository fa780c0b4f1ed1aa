import { count, eq } from 'drizzle-orm'
import type { Config } from '../config.ts'
import type { Db } from '../db/client.ts'
import { documents, orgs, selfSeals, signers, type CertificateMode } from '../db/schema.ts'
import { isUuid } from '../lib/ids.ts'
import { localTsaName } from './instance-seal.ts'
import { sealFactsOf } from './seal-facts.ts'

/** What the public verification page and its JSON show about a sealed document: nothing before it is sealed. */
export interface PublicVerification {
  document_id: string
  kind: 'self-sealed' | 'signed'
  title: string
  /** the identity-verified legal name (self-sealed), or the org that sent it for signature */
  sealed_by: string
  identity_verified_at: string | null
  signer_count: number | null
  completed_at: string | null
  certificate_mode: CertificateMode | null
  sealed_file_sha256: string
  original_sha256: string | null
  sealed_at: string
  timestamp_authority: string
  /** true when the time comes from this instance's own authority rather than a third party */
  built_in_timestamp_authority: boolean
  audit_head_hash: string
}

export async function publicVerification(db: Db, config: Config, documentId: string): Promise<PublicVerification | null> {
  if (!isUuid(documentId)) return null
  const [row] = await db
    .select({ document: documents, orgName: orgs.name, seal: selfSeals })
    .from(documents)
    .innerJoin(orgs, eq(orgs.id, documents.orgId))
    .leftJoin(selfSeals, eq(selfSeals.documentId, documents.id))
    .where(eq(documents.id, documentId))
  if (!row || row.document.status !== 'completed' || !row.document.signedPdfSha256) return null
  const facts = await sealFactsOf(db, documentId)
  if (!facts) return null
  const { document, seal } = row
  const signerCount = seal ? null : ((await db.select({ n: count() }).from(signers).where(eq(signers.documentId, documentId)))[0]?.n ?? 0)
  return {
    document_id: document.id,
    kind: facts.kind,
    title: facts.title || document.title,
    sealed_by: seal ? seal.legalName : row.orgName,
    identity_verified_at: seal ? seal.identityVerifiedAt.toISOString() : null,
    signer_count: signerCount,
    completed_at: document.completedAt?.toISOString() ?? null,
    certificate_mode: seal?.certificateMode ?? null,
    sealed_file_sha256: facts.sha256,
    original_sha256: facts.originalSha256,
    sealed_at: facts.sealedAt.toISOString(),
    timestamp_authority: facts.tsaName,
    built_in_timestamp_authority: facts.tsaName === localTsaName(config),
    audit_head_hash: facts.auditHeadHash,
  }
}
