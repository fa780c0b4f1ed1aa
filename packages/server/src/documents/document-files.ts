import { eq } from 'drizzle-orm'
import type { Principal } from '../actors/principal.ts'
import type { BlobStore, BlobStream } from '../adapters/blob-store.ts'
import { selfSeals } from '../db/schema.ts'
import { sealFactsOf } from '../seal/seal-facts.ts'
import { verifyUrlOf } from '../seal/verify-url.ts'
import type { Services } from '../services.ts'
import { fileBaseName, signedPdfFilename } from '../signing/produce-signed-pdf.ts'
import { notFound } from '../errors.ts'
import { findDocument } from './find-document.ts'

export interface FileDownload {
  contentType: 'application/pdf' | 'image/png'
  filename: string
  /** The bytes, or a stored file as its store streams it (files, S3), so a download never holds it whole. */
  body: Uint8Array | BlobStream
  /** SHA-256 of a stored file (the signed PDF, a certificate); a badge is drawn on each call. */
  sha256?: string
}

/** The whole file, for answers that embed it (MCP's base64 resource). */
export async function bytesOf(file: FileDownload): Promise<Uint8Array> {
  if (file.body instanceof Uint8Array) return file.body
  const chunks: Buffer[] = []
  for await (const chunk of file.body.stream) chunks.push(chunk as Buffer)
  return Buffer.concat(chunks)
}

/*
 * The three downloads of a document. Signing (flattened signed PDF) and sealing
 * (certificate, badge) produce these files; until a document has them each answers
 * the spec's 404, after checking that the document exists in the caller's org.
 */

type FileServices = Pick<Services, 'db' | 'blobs' | 'config' | 'pdfWork'>

/** The spec's 404; when the last attempt failed (e.g. no time-stamp authority answered), it says why, and when it was given up, that too. */
export function signedPdfNotReady(lastError?: string | null, failed = false) {
  if (failed) return notFound(`The signed PDF could not be produced (${lastError ?? 'unknown error'}); the operator of this service has been alerted.`)
  return notFound(lastError ? `The signed PDF is not ready yet (${lastError}).` : 'The signed PDF is not ready yet.')
}
const notSealedYet = () => notFound("This document hasn't been sealed yet.")

/** The stored final PDF of a completed document: the signed PDF, or a self-sealed document's sealed file. */
export async function readSignedPdf(
  blobs: BlobStore,
  document: {
    status: string
    title: string
    signedPdfSha256: string | null
    isVerifiedBadge?: boolean
    sealError?: string | null
    renderFailedAt?: Date | null
  },
): Promise<FileDownload> {
  const body = document.status === 'completed' && document.signedPdfSha256 ? await blobs.open(document.signedPdfSha256) : undefined
  if (!body) throw document.isVerifiedBadge ? notSealedYet() : signedPdfNotReady(document.sealError, Boolean(document.renderFailedAt))
  const filename = document.isVerifiedBadge ? `${fileBaseName(document.title)} (sealed).pdf` : signedPdfFilename(document.title)
  return { contentType: 'application/pdf', filename, body, sha256: document.signedPdfSha256 ?? undefined }
}

export async function getSignedFile({ db, blobs }: FileServices, principal: Principal, documentId: string): Promise<FileDownload> {
  return readSignedPdf(blobs, await findDocument(db, principal.orgId, documentId))
}

/** The sealed standalone certificate of a self-sealed document (modes separate and both). */
export async function getCertificateFile({ db, blobs }: FileServices, principal: Principal, documentId: string): Promise<FileDownload> {
  const document = await findDocument(db, principal.orgId, documentId)
  const [seal] = document.isVerifiedBadge
    ? await db.select({ sha256: selfSeals.certificatePdfSha256 }).from(selfSeals).where(eq(selfSeals.documentId, document.id))
    : []
  const body = seal?.sha256 ? await blobs.open(seal.sha256) : undefined
  if (!body) throw notFound('No standalone certificate for this document.')
  return { contentType: 'application/pdf', filename: `${fileBaseName(document.title)} (certificate).pdf`, body, sha256: seal?.sha256 ?? undefined }
}

/** The Verified Badge, drawn anew from the audit trail on every call (the same trail gives the same bytes). */
export async function getBadgeImage(
  { db, config, pdfWork }: FileServices,
  principal: Principal,
  documentId: string,
): Promise<FileDownload & { body: Uint8Array }> {
  const document = await findDocument(db, principal.orgId, documentId)
  if (!document.isVerifiedBadge) throw notFound('This document is not a sealed document, so it has no Verified Badge.')
  const facts = await sealFactsOf(db, document.id)
  if (!facts) throw notSealedYet()
  const body = await pdfWork.renderBadge({
    orgName: facts.legalName,
    title: facts.title,
    sha256: facts.sha256,
    sealedAt: facts.sealedAt,
    tsaName: facts.tsaName,
    verifyUrl: verifyUrlOf(config.publicUrl, document.id),
  })
  return { contentType: 'image/png', filename: `${fileBaseName(document.title)} (badge).png`, body }
}
