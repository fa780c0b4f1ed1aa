import { and, count, desc, eq, type SQL } from 'drizzle-orm'
import type { Principal } from '../api-keys/api-keys.ts'
import type { Db } from '../db/client.ts'
import { documents, type DocumentStatus } from '../db/schema.ts'
import type { Page } from '../lib/paging.ts'
import type { DocumentList } from './documents.schemas.ts'
import { presentListItem } from './present-document.ts'

export interface ListDocumentsFilter extends Page {
  status?: DocumentStatus
  includeSelfSealed: boolean
}

/** The org's documents, newest first; ties broken by id so pages never overlap or skip. */
export async function listDocuments(db: Db, principal: Principal, filter: ListDocumentsFilter): Promise<DocumentList> {
  const conditions: SQL[] = [eq(documents.orgId, principal.orgId)]
  if (filter.status) conditions.push(eq(documents.status, filter.status))
  // Per the spec, only status=completed hides self-sealed documents unless they are asked for.
  if (filter.status === 'completed' && !filter.includeSelfSealed) conditions.push(eq(documents.isVerifiedBadge, false))
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
