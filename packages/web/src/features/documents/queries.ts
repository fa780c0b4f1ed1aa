import { keepPreviousData, queryOptions, useMutation, useQueryClient } from '@tanstack/react-query'
import { api, fetchRaw, unwrap } from '../../api/client.ts'
import type { operations } from '@signet/sdk/openapi'

/** The documents feature's server state: query keys, queries, mutations and downloads. Pages call the API only through here. */

export const PAGE_SIZE = 20
/**
 * A completed document is read again while its signed PDF is being produced: after 2 s, then
 * each wait twice the last, up to a minute. The PDF is usually ready within seconds; when the
 * time-stamp authority is down it can take hours, and a page left open must not spend the
 * workspace's hourly allowance of reads (300).
 */
export function signedPdfPollDelay(readsSoFar: number): number {
  return Math.min(2000 * 2 ** Math.max(0, readsSoFar - 1), 60_000)
}

type ListQuery = NonNullable<operations['listDocuments']['parameters']['query']>
export type DocumentStatus = NonNullable<ListQuery['status']>

export interface ListFilter {
  /** From the address bar: an unknown status is passed on, and the server's 400 text is shown. */
  status?: string | undefined
  search?: string | undefined
  offset?: number | undefined
  limit?: number | undefined
  /** Only documents expiring before this UTC time, soonest first. */
  expiresBefore?: string | undefined
}

/** Every key starts with 'documents', so invalidating ['documents'] refreshes every list, count and document. */
export const documentKeys = {
  all: ['documents'] as const,
  list: (filter: ListFilter) => ['documents', 'list', filter] as const,
  counts: (search: string | undefined) => ['documents', 'counts', search ?? ''] as const,
  detail: (id: string) => ['documents', 'detail', id] as const,
  /** `revision` changes whenever the document does (a signature, the signed PDF), and with it the trail. */
  audit: (id: string, revision: string) => ['documents', 'detail', id, 'audit', revision] as const,
}

export const documentListQuery = ({ status, search, offset = 0, limit = PAGE_SIZE, expiresBefore }: ListFilter) =>
  queryOptions({
    queryKey: documentKeys.list({ status, search, offset, limit, expiresBefore }),
    queryFn: () => {
      const query: ListQuery = {
        limit,
        offset,
        ...(status ? { status: status as DocumentStatus } : {}),
        ...(search ? { search } : {}),
        ...(expiresBefore ? { expires_before: expiresBefore } : {}),
      }
      return unwrap(api.GET('/documents', { params: { query } }))
    },
    // Typing in the search or turning a page keeps the rows in place until the next ones arrive.
    placeholderData: keepPreviousData,
  })

export const documentCountsQuery = (search: string | undefined) =>
  queryOptions({
    queryKey: documentKeys.counts(search),
    queryFn: () => unwrap(api.GET('/documents/counts', { params: { query: search ? { search } : {} } })),
    placeholderData: keepPreviousData,
  })

export const documentQuery = (id: string) =>
  queryOptions({
    queryKey: documentKeys.detail(id),
    queryFn: () => unwrap(api.GET('/documents/{id}', byId(id))),
    // The signed PDF is produced in the background after the last signature: read again until it is there.
    refetchInterval: (query) => (query.state.data?.signed_pdf_status === 'pending' ? signedPdfPollDelay(query.state.dataUpdateCount) : false),
  })

/** A document's audit trail, read again when the polled document changes (the signed PDF's production is an event). */
export const auditTrailQuery = (document: Pick<DocumentDetail, 'id' | 'status' | 'updated_at' | 'signed_pdf_status'>) =>
  queryOptions({
    queryKey: documentKeys.audit(document.id, `${document.status} ${document.updated_at} ${document.signed_pdf_status ?? ''}`),
    queryFn: () => unwrap(api.GET('/documents/{id}/audit', byId(document.id))),
    placeholderData: keepPreviousData,
  })

export type DocumentListItem = operations['listDocuments']['responses'][200]['content']['application/json']['documents'][number]
export type DocumentCounts = operations['countDocuments']['responses'][200]['content']['application/json']
export type DocumentDetail = operations['getDocument']['responses'][200]['content']['application/json']
export type DocumentSigner = DocumentDetail['signers'][number]

const byId = (id: string) => ({ params: { path: { id } } })

/** Voids a document; every list, count and view of documents is read again. */
export function useVoidDocument() {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: (id: string) => unwrap(api.POST('/documents/{id}/void', byId(id))),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: documentKeys.all }),
  })
}

/** Mails a signer a new link; the document (and its audit trail, which records the resend) is read again. */
export function useResendInvitation() {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: ({ documentId, signerId }: { documentId: string; signerId: string }) =>
      unwrap(api.POST('/documents/{id}/signers/{signerId}/resend', { params: { path: { id: documentId, signerId } } })),
    onSuccess: (_, { documentId }) => queryClient.invalidateQueries({ queryKey: documentKeys.detail(documentId) }),
  })
}

export type DownloadKind = 'signed-file' | 'certificate' | 'badge'

/** A file name the operating system accepts, from a document's title. */
export const fileNameOf = (title: string, suffix = '.pdf') => `${title.replace(/[\\/:*?"<>|]+/g, '-')}${suffix}`

/**
 * Fetches a document file and hands it to the browser as a download; a refusal's text is thrown.
 * fetchRaw: the body is a binary file to save, which openapi-fetch would try to parse as JSON.
 */
export async function download(id: string, kind: DownloadKind, filename: string): Promise<void> {
  const response = await fetchRaw(`/documents/${encodeURIComponent(id)}/${kind}`)
  const url = URL.createObjectURL(await response.blob())
  const link = Object.assign(document.createElement('a'), { href: url, download: filename })
  document.body.append(link)
  link.click()
  link.remove()
  setTimeout(() => URL.revokeObjectURL(url), 10_000)
}

/** The public page anyone can use to check the signed PDF. */
export const verificationUrl = (id: string) => `${window.location.origin}/verify/${id}`
