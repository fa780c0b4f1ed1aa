import { api, fetchRaw, unwrap } from '../../api/client.ts'

export const DOCUMENT_STATUSES = ['draft', 'sent', 'completed', 'declined', 'voided'] as const
export const PAGE_SIZE = 20

type DocumentStatus = (typeof DOCUMENT_STATUSES)[number]

export interface ListFilter {
  /** From the address bar: an unknown status is passed on, and the server's 400 text is shown. */
  status?: string | undefined
  search?: string | undefined
  offset?: number | undefined
}

export function listDocuments({ status, search, offset = 0 }: ListFilter) {
  const query = { limit: PAGE_SIZE, offset, ...(status ? { status: status as DocumentStatus } : {}), ...(search ? { search } : {}) }
  return unwrap(api.GET('/documents', { params: { query } }))
}

const byId = (id: string) => ({ params: { path: { id } } })

export const getDocument = (id: string) => unwrap(api.GET('/documents/{id}', byId(id)))
export const getAuditTrail = (id: string) => unwrap(api.GET('/documents/{id}/audit', byId(id)))
export const voidDocument = (id: string) => unwrap(api.POST('/documents/{id}/void', byId(id)))
export const resendInvitation = (id: string, signerId: string) =>
  unwrap(api.POST('/documents/{id}/signers/{signerId}/resend', { params: { path: { id, signerId } } }))

export type DocumentDetail = Awaited<ReturnType<typeof getDocument>>
export type DocumentSigner = DocumentDetail['signers'][number]

export type DownloadKind = 'signed-file' | 'certificate' | 'badge'

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
