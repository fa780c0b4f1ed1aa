import { and, asc, eq, sql } from 'drizzle-orm'
import type { Db } from '../db/client.ts'
import { documents, signers } from '../db/schema.ts'
import { notFound } from '../errors.ts'
import { isUuid } from '../lib/ids.ts'
import { preparedPer } from '../lib/prepared.ts'

export const documentNotFound = () => notFound('Document not found.')

const byIdInOrg = and(eq(documents.id, sql.placeholder('id')), eq(documents.orgId, sql.placeholder('orgId')))

const documentInOrg = preparedPer((db) => db.select().from(documents).where(byIdInOrg).prepare('document_in_org'))

/** One round trip for the hottest read: the document with its signers in request order. */
const documentWithSignersInOrg = preparedPer((db) =>
  db.query.documents
    .findFirst({ where: byIdInOrg, with: { signers: { orderBy: [asc(signers.position)] } } })
    .prepare('document_with_signers_in_org'),
)

/** The org's document, or the same 404 whether it is missing, malformed or another org's. */
export async function findDocument(db: Db, orgId: string, documentId: string): Promise<typeof documents.$inferSelect> {
  const [row] = isUuid(documentId) ? await documentInOrg(db).execute({ id: documentId, orgId }) : []
  if (!row) throw documentNotFound()
  return row
}

export async function findDocumentWithSigners(
  db: Db,
  orgId: string,
  documentId: string,
): Promise<typeof documents.$inferSelect & { signers: (typeof signers.$inferSelect)[] }> {
  const row = isUuid(documentId) ? await documentWithSignersInOrg(db).execute({ id: documentId, orgId }) : undefined
  if (!row) throw documentNotFound()
  return row
}
