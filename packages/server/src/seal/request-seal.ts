import { and, eq } from 'drizzle-orm'
import { auditedActor, type Actor } from '../actors/actor.ts'
import type { Principal } from '../actors/principal.ts'
import { startAuditTrails } from '../audit/audit-trail.ts'
import { quoteUsage, usageChannelOf } from '../billing/metering.ts'
import type { Db } from '../db/client.ts'
import { documents, selfSeals, type CertificateMode } from '../db/schema.ts'
import type { FinalPdfDeps } from '../documents/final-pdf.ts'
import { FINAL_PDF_LEASE_MS, produceOrReschedule } from '../documents/final-pdf-job.ts'
import { documentNotFound } from '../documents/find-document.ts'
import { invalid } from '../errors.ts'
import { isUuid } from '../lib/ids.ts'
import { requireVerifiedIdentity } from '../orgs/identity.ts'
import { requireOrg } from '../orgs/require-org.ts'
import { presentSeal } from './present-seal.ts'
import type { SealView } from './seal.schemas.ts'

export interface SealRequest {
  pdf: Uint8Array
  title?: string
  filename?: string
  certificateMode?: CertificateMode
}

const PDF_EXTENSION = /\.pdf$/i

/** The title a seal shows: the one given, else the file's name without .pdf. */
function titleOf(given: string | undefined, filename: string | null): string {
  const title = (given ?? filename?.replace(PDF_EXTENSION, '') ?? '').trim()
  if (title.length === 0) throw invalid('Give the sealed document a title (or a filename to take it from).')
  if (title.length > 200) throw invalid('The title must be at most 200 characters.')
  return title
}

function filenameOf(raw: string | undefined): string | null {
  if (raw === undefined) return null
  // Only the last path segment, without control characters: it is printed on the certificate.
  const name = raw
    .split(/[\\/]/)
    .pop()!
    .replace(/\p{Cc}/gu, '')
    .trim()
  if (name.length === 0 || name.length > 255) throw invalid('The filename must be 1 to 255 characters.')
  return name
}

/**
 * Self-sealing: the org certifies a finished PDF itself. Checks the org's identity
 * check and plan allowance, stores the upload as a completed document with
 * is_verified_badge, then seals it at once; if no TSA answers, the seal stays pending
 * (visible in the result) and the background job retries it.
 */
export async function requestSeal(deps: FinalPdfDeps, actor: Actor, input: SealRequest): Promise<SealView> {
  const { db, clock, blobs } = deps
  const filename = filenameOf(input.filename)
  const title = titleOf(input.title, filename)
  const certificateMode = input.certificateMode ?? 'both'
  const identity = requireVerifiedIdentity(await requireOrg(db, actor.orgId), clock.now(), deps.config.publicUrl)
  const { pages, incrementalBlocker, pdf, sha256 } = await deps.pdfWork.inspect(input.pdf)
  // A seal extends the upload by an incremental update, so the upload stays a byte-for-byte prefix of the sealed file.
  if (incrementalBlocker !== null) {
    throw invalid(
      'This PDF cannot be extended without rewriting it (its cross-reference table is damaged, or it is linearized in an unusual way). Save it again from any PDF tool and upload the copy.',
    )
  }
  const pageCount = pages.length
  const upload = await blobs.stage(pdf, sha256)

  const documentId = await db.transaction(async (tx) => {
    const now = clock.now()
    const usage = await quoteUsage(tx, actor, { kind: 'seal', channel: usageChannelOf(actor), wanted: 1, now })
    if (usage.refusal) throw usage.refusal
    const sourcePdfSha256 = await blobs.put(tx, upload)
    const [document] = await tx
      .insert(documents)
      .values({
        orgId: actor.orgId,
        title,
        status: 'completed',
        isVerifiedBadge: true,
        completedAt: now,
        // This request holds the producer's lease: it seals inline, the job only retries.
        nextRenderAt: new Date(now.getTime() + FINAL_PDF_LEASE_MS),
        renderAttempts: 1,
      })
      .returning({ id: documents.id })
    if (!document) throw new Error('insert returned no row')
    await tx.insert(selfSeals).values({
      documentId: document.id,
      orgId: actor.orgId,
      sourcePdfSha256,
      sourceFilename: filename,
      sourcePageCount: pageCount,
      certificateMode,
      legalName: identity.legalName,
      identityVerifiedAt: identity.verifiedAt,
    })
    await usage.record([document.id])
    await startAuditTrails(tx, [
      {
        document: { id: document.id, orgId: actor.orgId },
        events: [
          {
            type: 'document.seal_requested',
            occurredAt: now,
            ...auditedActor(actor),
            data: { original_sha256: sourcePdfSha256, filename, pages: pageCount, certificate_mode: certificateMode, legal_name: identity.legalName },
          },
        ],
      },
    ])
    return document.id
  })

  // The upload is still in memory: the inline seal takes it from here rather than reading it back.
  await produceOrReschedule(deps, { id: documentId, isVerifiedBadge: true, upload: pdf }, 1)
  return getSeal(db, deps.config.publicUrl, actor, documentId)
}

/** A self-sealed document of the org with the state of its seal; 404 for anything else. */
export async function getSeal(db: Db, publicUrl: string, principal: Principal, documentId: string): Promise<SealView> {
  const [row] = isUuid(documentId)
    ? await db
        .select({
          id: documents.id,
          title: documents.title,
          createdAt: documents.createdAt,
          signedPdfSha256: documents.signedPdfSha256,
          sealedAt: documents.sealedAt,
          sealTsa: documents.sealTsa,
          sealError: documents.sealError,
          renderFailedAt: documents.renderFailedAt,
          certificateMode: selfSeals.certificateMode,
          sourcePdfSha256: selfSeals.sourcePdfSha256,
        })
        .from(documents)
        .innerJoin(selfSeals, eq(selfSeals.documentId, documents.id))
        .where(and(eq(documents.id, documentId), eq(documents.orgId, principal.orgId)))
    : []
  if (!row) throw documentNotFound()
  return presentSeal(publicUrl, row)
}
