import type { Principal } from '../api-keys/api-keys.ts'
import type { BlobStore } from '../adapters/blob-store.ts'
import type { Services } from '../services.ts'
import { signedPdfFilename } from '../signing/signed-pdf-job.ts'
import { notFound } from '../errors.ts'
import { findDocument } from './find-document.ts'

export interface FileDownload {
  contentType: 'application/pdf' | 'image/png'
  filename: string
  bytes: Uint8Array
}

/*
 * The three downloads of a document. Signing (flattened signed PDF) and sealing
 * (certificate, badge) produce these files; until a document has them each answers
 * the spec's 404, after checking that the document exists in the caller's org.
 */

type FileServices = Pick<Services, 'db' | 'blobs'>

export const signedPdfNotReady = () => notFound('The signed PDF is not ready yet.')

/** The stored signed PDF of a completed document (rendered in the background after completion). */
export async function readSignedPdf(blobs: BlobStore, document: { status: string; title: string; signedPdfSha256: string | null }): Promise<FileDownload> {
  const bytes = document.status === 'completed' && document.signedPdfSha256 ? await blobs.get(document.signedPdfSha256) : undefined
  if (!bytes) throw signedPdfNotReady()
  return { contentType: 'application/pdf', filename: signedPdfFilename(document.title), bytes }
}

export async function getSignedFile({ db, blobs }: FileServices, principal: Principal, documentId: string): Promise<FileDownload> {
  return readSignedPdf(blobs, await findDocument(db, principal.orgId, documentId))
}

export async function getCertificateFile({ db }: FileServices, principal: Principal, documentId: string): Promise<FileDownload> {
  await findDocument(db, principal.orgId, documentId)
  throw notFound('No standalone certificate for this document.')
}

export async function getBadgeImage({ db }: FileServices, principal: Principal, documentId: string): Promise<FileDownload> {
  const document = await findDocument(db, principal.orgId, documentId)
  if (!document.isVerifiedBadge) throw notFound('This document is not a sealed document, so it has no Verified Badge.')
  throw notFound("This document hasn't been sealed yet.")
}
