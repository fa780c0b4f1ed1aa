import type { Principal } from '../actors/principal.ts'
import type { Db } from '../db/client.ts'
import { findDocumentStatus } from './find-document.ts'
import type { DocumentView } from './documents.schemas.ts'
import { presentDocument } from './present-document.ts'

export async function getDocument(db: Db, principal: Principal, documentId: string): Promise<DocumentView> {
  return presentDocument(await findDocumentStatus(db, principal.orgId, documentId))
}
