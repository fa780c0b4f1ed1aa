import type { QueryClient } from '@tanstack/react-query'
import { usageQuery } from '../../api/queries.ts'
import { documentCountsQuery, documentListQuery } from '../documents/queries.ts'
// The first-run steps ask whether a template exists and whether one has fields: the Templates page's query, one cache.
import { templatesQuery } from '../templates/queries.ts'

/** The Overview's server state: short lists of documents, the counts, usage and templates, all from the features that own them. */

/** How many documents each list on the Overview shows. */
export const OVERVIEW_LIST_SIZE = 5
const EXPIRING_WITHIN_MS = 3 * 24 * 60 * 60 * 1000
const HOUR_MS = 60 * 60 * 1000

/** Three days from now, rounded up to the hour: one query key (and cache entry) per hour, not per render. */
export function expiringHorizon(now = Date.now()): string {
  return new Date(Math.ceil((now + EXPIRING_WITHIN_MS) / HOUR_MS) * HOUR_MS).toISOString()
}

export const recentDocumentsQuery = () => documentListQuery({ limit: OVERVIEW_LIST_SIZE })
export const declinedDocumentsQuery = () => documentListQuery({ status: 'declined', limit: OVERVIEW_LIST_SIZE })
export const expiringDocumentsQuery = () => documentListQuery({ status: 'sent', expiresBefore: expiringHorizon(), limit: OVERVIEW_LIST_SIZE })
/** The list is newest first: the documents waiting longest are its last page, found from the count of those waiting. */
export const waitingLongestQuery = (waiting: number) =>
  documentListQuery({ status: 'sent', offset: Math.max(0, waiting - OVERVIEW_LIST_SIZE), limit: OVERVIEW_LIST_SIZE })
export const allDocumentCountsQuery = () => documentCountsQuery(undefined)

/** What the Overview's loader fetches before the page shows (and on hover). */
export function overviewLoads(queryClient: QueryClient): Promise<unknown>[] {
  return [
    queryClient.ensureQueryData(recentDocumentsQuery()),
    queryClient.ensureQueryData(declinedDocumentsQuery()),
    queryClient.ensureQueryData(expiringDocumentsQuery()),
    queryClient.ensureQueryData(allDocumentCountsQuery()),
    queryClient.ensureQueryData(usageQuery()),
    queryClient.ensureQueryData(templatesQuery),
  ]
}
