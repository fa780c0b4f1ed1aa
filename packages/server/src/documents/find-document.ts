import { and, asc, eq, sql } from 'drizzle-orm'
import type { Db } from '../db/client.ts'
import { documents, signers } from '../db/schema.ts'
import { notFound } from '../errors.ts'
import { isUuid } from '../lib/ids.ts'
import { preparedPer } from '../lib/prepared.ts'

export const documentNotFound = () => notFound('Document not found.')

const byIdInOrg = and(eq(documents.id, sql.placeholder('id')), eq(documents.orgId, sql.placeholder('orgId')))

const documentInOrg = preparedPer((db) => db.select().from(documents).where(byIdInOrg).prepare('document_in_org'))

/** One round trip for the hottest read: the columns the status view shows, with the signers in request order. */
const documentWithSignersInOrg = preparedPer((db) =>
  db.query.documents
    .findFirst({
      where: byIdInOrg,
      columns: {
        id: true,
        title: true,
        status: true,
        voidedReason: true,
        createdAt: true,
        updatedAt: true,
        expiresAt: true,
        signedPdfSha256: true,
        sealError: true,
        renderFailedAt: true,
        reminders: true,
        cc: true,
        language: true,
      },
      with: {
        signers: {
          columns: {
            id: true,
            role: true,
            email: true,
            name: true,
            status: true,
            signedAt: true,
            viewedAt: true,
            declinedAt: true,
            authRequired: true,
            authVerified: true,
            signingOrder: true,
            invitedAt: true,
            roleName: true,
          },
          orderBy: [asc(signers.position)],
        },
      },
    })
    .prepare('document_status_in_org'),
)

/** The org's document, or the same 404 whether it is missing, malformed or another org's. */
export async function findDocument(db: Db, orgId: string, documentId: string): Promise<typeof documents.$inferSelect> {
  const [row] = isUuid(documentId) ? await documentInOrg(db).execute({ id: documentId, orgId }) : []
  if (!row) throw documentNotFound()
  return row
}

export type DocumentStatusRow = NonNullable<Awaited<ReturnType<ReturnType<typeof documentWithSignersInOrg>['execute']>>>

export async function findDocumentStatus(db: Db, orgId: string, documentId: string): Promise<DocumentStatusRow> {
  const row = isUuid(documentId) ? await documentWithSignersInOrg(db).execute({ id: documentId, orgId }) : undefined
  if (!row) throw documentNotFound()
  return row
}
