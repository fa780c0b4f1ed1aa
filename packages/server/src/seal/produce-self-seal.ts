import { eq } from 'drizzle-orm'
import { appendAuditEvents } from '../audit/audit-trail.ts'
import { stageSeal, storeFinalPdf, type FinalPdfDeps } from '../documents/final-pdf.ts'
import { documents, selfSeals } from '../db/schema.ts'
import type { SealCertificateFacts } from './seal-certificate-facts.ts'
import { verifyUrlOf } from './verify-url.ts'

/**
 * Seals an org's own upload: the original with the certificate appended (modes
 * `appended`, `both`) or untouched (`separate`), plus, for `separate` and `both`, a
 * standalone certificate PDF, itself sealed. The `document.sealed` audit event records
 * what the Verified Badge and the verification page later show.
 */
export async function produceSelfSealedPdf(deps: FinalPdfDeps, documentId: string, upload?: Uint8Array): Promise<void> {
  const { db, blobs, clock, sealer, pdfWork } = deps
  const [row] = await db
    .select({ document: documents, seal: selfSeals })
    .from(documents)
    .innerJoin(selfSeals, eq(selfSeals.documentId, documents.id))
    .where(eq(documents.id, documentId))
  if (!row) throw new Error(`document ${documentId} is not a self-sealed document`)
  const { document, seal } = row
  const original = upload ?? (await blobs.get(seal.sourcePdfSha256))
  if (!original) throw new Error(`uploaded PDF ${seal.sourcePdfSha256} is missing`)

  const facts: SealCertificateFacts = {
    documentId,
    title: document.title,
    filename: seal.sourceFilename,
    orgLegalName: seal.legalName,
    identityVerifiedAt: seal.identityVerifiedAt,
    originalSha256: seal.sourcePdfSha256,
    originalPageCount: seal.sourcePageCount,
    requestedAt: document.createdAt,
    verifyUrl: verifyUrlOf(deps.config.publicUrl, documentId),
    certificateMode: seal.certificateMode,
    sealSubject: sealer.subjectName,
  }
  const reason = `Sealed by ${seal.legalName} with Signet: unaltered since sealing`
  const toSeal = seal.certificateMode === 'separate' ? original : await pdfWork.appendSealCertificate(original, facts)
  const sealed = await stageSeal(blobs, await sealer.seal(toSeal, { reason }))
  const certificate =
    seal.certificateMode === 'appended' ? null : await stageSeal(blobs, await sealer.seal(await pdfWork.renderSealCertificate(facts), { reason }))

  await db.transaction(async (tx) => {
    const sha256 = await storeFinalPdf(tx, blobs, documentId, sealed)
    if (!sha256) return // another process finished first
    const certificateSha256 = certificate ? await blobs.put(tx, certificate.blob) : null
    await tx.update(selfSeals).set({ certificatePdfSha256: certificateSha256 }).where(eq(selfSeals.documentId, documentId))
    await appendAuditEvents(tx, document, [
      {
        type: 'document.sealed',
        occurredAt: clock.now(),
        authMethod: 'system',
        data: {
          sha256,
          original_sha256: seal.sourcePdfSha256,
          certificate_sha256: certificateSha256,
          title: document.title,
          legal_name: seal.legalName,
          sealed_at: sealed.sealedAt.toISOString(),
          tsa: sealed.tsaName,
        },
      },
    ])
  })
}
