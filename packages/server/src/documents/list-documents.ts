import { and, asc, count, desc, eq, exists, ilike, inArray, lt, or, sql, type SQL } from 'drizzle-orm'
import type { Principal } from '../actors/principal.ts'
import type { Db } from '../db/client.ts'
import { documents, signers, type DocumentStatus } from '../db/schema.ts'
import { invalid } from '../errors.ts'
import type { Page } from '../lib/paging.ts'
import { parseUtcDateTime } from '../lib/utc-date-time.ts'
import type { DocumentCounts, DocumentList } from './documents.schemas.ts'
import { presentListItem, type ListedSigner } from './present-document.ts'

export interface ListDocumentsFilter extends Page {
  status?: DocumentStatus
  includeSelfSealed: boolean
  /** Case-insensitive text in the title or in any signer's e-mail address; blank means no search. */
  search?: string | undefined
  /** Only documents that expire before this time, the soonest first (what needs attention). */
  expiresBefore?: Date | undefined
}

/** expires_before as a time, or the 400 for a value the format check let through (31 February). */
export function expiresBeforeOf(raw: string | undefined): Date | undefined {
  if (raw === undefined) return undefined
  const time = parseUtcDateTime(raw)
  if (!time) throw invalid('expires_before must be a UTC date-time such as 2030-01-31T17:00:00Z')
  return time
}

/** A LIKE pattern matching `text` anywhere, its own %, _ and \ taken literally. */
const containing = (text: string): string => `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`

/** The org's documents the search matches (all of them when it is blank). */
function matching(db: Db, principal: Principal, search: string | undefined): SQL[] {
  const conditions: SQL[] = [eq(documents.orgId, principal.orgId)]
  const text = search?.trim()
  if (text) {
    // The org's own rows come from its (org, created) index; each signer check is one lookup
    // in signers_document. Thousands of documents per org take milliseconds, no text index needed.
    const pattern = containing(text)
    const signerMatches = db
      .select({ id: signers.id })
      .from(signers)
      .where(and(eq(signers.documentId, documents.id), ilike(signers.email, pattern)))
    conditions.push(or(ilike(documents.title, pattern), exists(signerMatches)) as SQL)
  }
  return conditions
}

/** The org's documents, newest first (or soonest to expire first); ties broken by id so pages never overlap or skip. */
export async function listDocuments(db: Db, principal: Principal, filter: ListDocumentsFilter): Promise<DocumentList> {
  const conditions = matching(db, principal, filter.search)
  if (filter.status) conditions.push(eq(documents.status, filter.status))
  // Per the spec, only status=completed hides self-sealed documents unless they are asked for.
  if (filter.status === 'completed' && !filter.includeSelfSealed) conditions.push(eq(documents.isVerifiedBadge, false))
  if (filter.expiresBefore) conditions.push(lt(documents.expiresAt, filter.expiresBefore))
  const where = and(...conditions)
  const order = filter.expiresBefore ? [asc(documents.expiresAt), asc(documents.id)] : [desc(documents.createdAt), desc(documents.id)]
  const [rows, [totals]] = await Promise.all([
    db
      .select()
      .from(documents)
      .where(where)
      .orderBy(...order)
      .limit(filter.limit)
      .offset(filter.offset),
    db.select({ total: count() }).from(documents).where(where),
  ])
  const signersOf = await signersOfDocuments(
    db,
    rows.map((row) => row.id),
  )
  const total = totals?.total ?? 0
  return {
    documents: rows.map((row) => presentListItem(row, signersOf.get(row.id) ?? [])),
    total,
    limit: filter.limit,
    offset: filter.offset,
    has_more: filter.offset + rows.length < total,
  }
}

/** The signers of a page of documents in one query (at most 100 documents, 20 signers each), in request order. */
async function signersOfDocuments(db: Db, documentIds: string[]): Promise<Map<string, ListedSigner[]>> {
  const byDocument = new Map<string, ListedSigner[]>()
  if (documentIds.length === 0) return byDocument
  const rows = await db
    .select({
      documentId: signers.documentId,
      id: signers.id,
      name: signers.name,
      email: signers.email,
      status: signers.status,
      role: signers.role,
      invitedAt: signers.invitedAt,
    })
    .from(signers)
    .where(inArray(signers.documentId, documentIds))
    .orderBy(asc(signers.documentId), asc(signers.position))
  for (const { documentId, invitedAt, ...listed } of rows) {
    // Only a signer waiting for their step in a signing order says so: the spec's clients never see the field.
    const signer = invitedAt === null ? { ...listed, waiting: true as const } : listed
    const list = byDocument.get(documentId)
    if (list) list.push(signer)
    else byDocument.set(documentId, [signer])
  }
  return byDocument
}

/** How many documents GET /documents would total for each status tab, in one grouped query. */
export async function countDocuments(
  db: Db,
  principal: Principal,
  filter: { search?: string | undefined; includeSelfSealed: boolean },
): Promise<DocumentCounts> {
  const rows = await db
    .select({ status: documents.status, all: count(), selfSealed: sql<number>`count(*) filter (where ${documents.isVerifiedBadge})`.mapWith(Number) })
    .from(documents)
    .where(and(...matching(db, principal, filter.search)))
    .groupBy(documents.status)
  const counts: DocumentCounts = { all: 0, by_status: { draft: 0, sent: 0, completed: 0, declined: 0, voided: 0 } }
  for (const row of rows) {
    counts.all += row.all
    counts.by_status[row.status] = row.status === 'completed' && !filter.includeSelfSealed ? row.all - row.selfSealed : row.all
  }
  return counts
}
