import type { Principal } from '../api-keys/api-keys.ts'
import type { Db } from '../db/client.ts'
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

export async function getSignedFile(db: Db, principal: Principal, documentId: string): Promise<FileDownload> {
  await findDocument(db, principal.orgId, documentId)
  throw notFound('The signed PDF is not ready yet.')
}

export async function getCertificateFile(db: Db, principal: Principal, documentId: string): Promise<FileDownload> {
  await findDocument(db, principal.orgId, documentId)
  throw notFound('No standalone certificate for this document.')
}

export async function getBadgeImage(db: Db, principal: Principal, documentId: string): Promise<FileDownload> {
  const document = await findDocument(db, principal.orgId, documentId)
  if (!document.isVerifiedBadge) throw notFound('This document is not a sealed document, so it has no Verified Badge.')
  throw notFound("This document hasn't been sealed yet.")
}
