import type { Principal } from '../api-keys/api-keys.ts'
import type { Db } from '../db/client.ts'
import { findDocumentWithSigners } from './find-document.ts'
import { presentDocument, type DocumentView } from './present-document.ts'

export async function getDocument(db: Db, principal: Principal, documentId: string): Promise<DocumentView> {
  const document = await findDocumentWithSigners(db, principal.orgId, documentId)
  return presentDocument(document, document.signers)
}
