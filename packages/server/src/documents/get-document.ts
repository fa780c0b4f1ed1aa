import { asc, eq } from 'drizzle-orm'
import type { Principal } from '../api-keys/api-keys.ts'
import type { Db } from '../db/client.ts'
import { signers } from '../db/schema.ts'
import { findDocument } from './find-document.ts'
import { presentDocument, type DocumentView } from './present-document.ts'

export async function getDocument(db: Db, principal: Principal, documentId: string): Promise<DocumentView> {
  const document = await findDocument(db, principal.orgId, documentId)
  const signerRows = await db.select().from(signers).where(eq(signers.documentId, document.id)).orderBy(asc(signers.position))
  return presentDocument(document, signerRows)
}
