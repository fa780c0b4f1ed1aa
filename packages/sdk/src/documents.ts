import { dataOf, idempotencyHeader, segment, type Api, type CreateOptions } from './api.ts'
import { SignetError } from './errors.ts'
import { everyItem } from './pages.ts'
import type {
  CreateDocumentBody,
  Document,
  DocumentAudit,
  DocumentCounts,
  DocumentCountsQuery,
  DocumentList,
  DocumentListItem,
  EmbedRequest,
  ListDocumentsQuery,
} from './types.ts'

/** The largest page the API serves: fewest round trips for a loop over every document. */
const PAGE_SIZE = 100

export interface WaitOptions {
  signal?: AbortSignal
  /** The first wait between two reads (2 s by default); it grows by half each time up to 30 s. */
  intervalMs?: number
}

/** The statuses a document never leaves (besides completed). */
const ENDED = new Set<Document['status']>(['declined', 'voided'])

export function documentsResource({ client, policy, read }: Api) {
  const path = (id: string) => ({ params: { path: { id } } })
  const bytes = async (call: Promise<{ data?: ArrayBuffer; error?: unknown; response: Response }>) => new Uint8Array(await dataOf(call))

  const documents = {
    create: (body: CreateDocumentBody, options: CreateOptions = {}) =>
      dataOf(client.POST('/documents', { body, headers: idempotencyHeader(options.idempotencyKey) })),

    get: (id: string) => read<Document>(`/documents/${segment(id)}`),

    /** One page, as the API answers it (`documents`, `total`, `has_more`…). */
    listPage: (query: ListDocumentsQuery & { offset?: number } = {}) => read<DocumentList>('/documents', query),

    /** Every document that matches, newest first, fetching pages as the loop goes: `for await (const d of signet.documents.list())`. */
    list: (query: ListDocumentsQuery = {}): AsyncIterable<DocumentListItem> =>
      everyItem(
        (offset) => documents.listPage({ limit: PAGE_SIZE, ...query, offset }),
        (page) => page.documents,
      ),

    counts: (query: DocumentCountsQuery = {}) => read<DocumentCounts>('/documents/counts', query),

    void: (id: string) => dataOf(client.POST('/documents/{id}/void', path(id))),

    /** The signed PDF of a completed document (404 until it is produced: see waitForCompletion). */
    signedFile: (id: string) => bytes(client.GET('/documents/{id}/signed-file', { ...path(id), parseAs: 'arrayBuffer' })),

    /** The standalone seal certificate PDF. */
    certificate: (id: string) => bytes(client.GET('/documents/{id}/certificate', { ...path(id), parseAs: 'arrayBuffer' })),

    audit: (id: string) => read<DocumentAudit>(`/documents/${segment(id)}/audit`),

    resend: (id: string, signerId: string) => dataOf(client.POST('/documents/{id}/signers/{signerId}/resend', { params: { path: { id, signerId } } })),

    /**
     * A single-use URL (5 minutes) that opens the signer's page inside your app (`<signet-signing url>`
     * from @signet/embed), on one of the workspace's embed origins. Call it from your server, never a browser.
     */
    embed: (id: string, signerId: string, body: EmbedRequest = {}) =>
      dataOf(client.POST('/documents/{id}/signers/{signerId}/embed', { params: { path: { id, signerId } }, body })),

    /**
     * Reads the document until it is completed and its signed PDF is produced (or failed), and
     * returns it. Throws a SignetError with code `document_not_completable` when it ends declined
     * or voided (an expired document is voided), and the signal's reason when it aborts.
     */
    async waitForCompletion(id: string, options: WaitOptions = {}): Promise<Document> {
      let interval = options.intervalMs ?? 2_000
      for (;;) {
        options.signal?.throwIfAborted()
        const document = await read<Document>(`/documents/${segment(id)}`, undefined, options.signal)
        if (document.status === 'completed' && document.signed_pdf_status !== 'pending') return document
        if (ENDED.has(document.status)) {
          const reason = document.status === 'voided' && document.voided_reason === 'expired' ? 'expired' : document.status
          throw new SignetError({
            status: 0,
            error: `Document ${id} was ${reason}: it will not be completed.`,
            code: 'document_not_completable',
            body: document,
          })
        }
        await policy.sleep(interval, options.signal)
        interval = Math.min(30_000, Math.round(interval * 1.5))
      }
    },
  }
  return documents
}
