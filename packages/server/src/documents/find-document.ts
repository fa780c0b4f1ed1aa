import { and, asc, eq, sql } from 'drizzle-orm'
import type { Db } from '../db/client.ts'
import { documents, signers } from '../db/schema.ts'
import { notFound } from '../errors.ts'
import { isUuid } from '../lib/ids.ts'
import { preparedPer } from '../lib/prepared.ts'

export const documentNotFound = () => notFound('Document not found.')

const byIdInOrg = and(eq(documents.id, sql.placeholder('id')), eq(documents.orgId, sql.placeholder('orgId')))

const documentInOrg = preparedPer((db) => db.select().from(documents).where(byIdInOrg).prepare('document_in_org'))

const statusColumns = {
  id: documents.id,
  title: documents.title,
  status: documents.status,
  voidedReason: documents.voidedReason,
  createdAt: documents.createdAt,
  updatedAt: documents.updatedAt,
  expiresAt: documents.expiresAt,
  signedPdfSha256: documents.signedPdfSha256,
  sealError: documents.sealError,
  renderFailedAt: documents.renderFailedAt,
  reminders: documents.reminders,
  cc: documents.cc,
  language: documents.language,
}

const signerStatusColumns = {
  id: signers.id,
  role: signers.role,
  email: signers.email,
  name: signers.name,
  status: signers.status,
  signedAt: signers.signedAt,
  viewedAt: signers.viewedAt,
  declinedAt: signers.declinedAt,
  authRequired: signers.authRequired,
  authVerified: signers.authVerified,
  signingOrder: signers.signingOrder,
  invitedAt: signers.invitedAt,
  roleName: signers.roleName,
}

/**
 * One round trip for the hottest read: the columns the status view shows, one row per signer in
 * request order (one row with no signer for a seal, which has none). A plain join, not a relational query: PostgreSQL builds no JSON for the signers
 * and the server parses none (about 10 µs of the database's CPU per read, issue 21).
 */
const documentStatusRowsInOrg = preparedPer((db) =>
  db
    .select({ document: statusColumns, signer: signerStatusColumns })
    .from(documents)
    .leftJoin(signers, eq(signers.documentId, documents.id))
    .where(byIdInOrg)
    .orderBy(asc(signers.position))
    .prepare('document_status_in_org'),
)

type SignerStatusRow = { [K in keyof typeof signerStatusColumns]: (typeof signers.$inferSelect)[K] }
export type DocumentStatusRow = { [K in keyof typeof statusColumns]: (typeof documents.$inferSelect)[K] } & { signers: SignerStatusRow[] }

/** The org's document, or the same 404 whether it is missing, malformed or another org's. */
export async function findDocument(db: Db, orgId: string, documentId: string): Promise<typeof documents.$inferSelect> {
  const [row] = isUuid(documentId) ? await documentInOrg(db).execute({ id: documentId, orgId }) : []
  if (!row) throw documentNotFound()
  return row
}

export async function findDocumentStatus(db: Db, orgId: string, documentId: string): Promise<DocumentStatusRow> {
  const rows = isUuid(documentId) ? await documentStatusRowsInOrg(db).execute({ id: documentId, orgId }) : []
  const first = rows[0]
  if (!first) throw documentNotFound()
  // The left join gives a null signer only in the one row of a document without signers.
  return { ...first.document, signers: first.signer ? rows.map((row) => row.signer as SignerStatusRow) : [] }
}
