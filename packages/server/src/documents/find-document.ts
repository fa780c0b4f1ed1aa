import { and, eq } from 'drizzle-orm'
import type { Db } from '../db/client.ts'
import { documents } from '../db/schema.ts'
import { notFound } from '../errors.ts'
import { isUuid } from '../lib/ids.ts'

export const documentNotFound = () => notFound('Document not found.')

/** The org's document, or the same 404 whether it is missing, malformed or another org's. */
export async function findDocument(db: Db, orgId: string, documentId: string): Promise<typeof documents.$inferSelect> {
  const [row] = isUuid(documentId)
    ? await db
        .select()
        .from(documents)
        .where(and(eq(documents.id, documentId), eq(documents.orgId, orgId)))
    : []
  if (!row) throw documentNotFound()
  return row
}
