import { and, count, desc, eq, exists, ilike, or, type SQL } from 'drizzle-orm'
import type { Principal } from '../api-keys/api-keys.ts'
import type { Db } from '../db/client.ts'
import { documents, signers, type DocumentStatus } from '../db/schema.ts'
import type { Page } from '../lib/paging.ts'
import type { DocumentList } from './documents.schemas.ts'
import { presentListItem } from './present-document.ts'

export interface ListDocumentsFilter extends Page {
  status?: DocumentStatus
  includeSelfSealed: boolean
  /** Case-insensitive text in the title or in any signer's e-mail address; blank means no search. */
  search?: string | undefined
}

/** A LIKE pattern matching `text` anywhere, its own %, _ and \ taken literally. */
const containing = (text: string): string => `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`

/** The org's documents, newest first; ties broken by id so pages never overlap or skip. */
export async function listDocuments(db: Db, principal: Principal, filter: ListDocumentsFilter): Promise<DocumentList> {
  const conditions: SQL[] = [eq(documents.orgId, principal.orgId)]
  if (filter.status) conditions.push(eq(documents.status, filter.status))
  // Per the spec, only status=completed hides self-sealed documents unless they are asked for.
  if (filter.status === 'completed' && !filter.includeSelfSealed) conditions.push(eq(documents.isVerifiedBadge, false))
  const search = filter.search?.trim()
  if (search) {
    // The org's own rows come from its (org, created) index; each signer check is one lookup
    // in signers_document. Thousands of documents per org take milliseconds, no text index needed.
    const pattern = containing(search)
    const signerMatches = db
      .select({ id: signers.id })
      .from(signers)
      .where(and(eq(signers.documentId, documents.id), ilike(signers.email, pattern)))
    conditions.push(or(ilike(documents.title, pattern), exists(signerMatches)) as SQL)
  }
  const where = and(...conditions)
  const [rows, [totals]] = await Promise.all([
    db.select().from(documents).where(where).orderBy(desc(documents.createdAt), desc(documents.id)).limit(filter.limit).offset(filter.offset),
    db.select({ total: count() }).from(documents).where(where),
  ])
  const total = totals?.total ?? 0
  return {
    documents: rows.map(presentListItem),
    total,
    limit: filter.limit,
    offset: filter.offset,
    has_more: filter.offset + rows.length < total,
  }
}
