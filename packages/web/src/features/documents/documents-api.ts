import { ApiError, untypedRequest } from '../../api/client.ts'

export const DOCUMENT_STATUSES = ['draft', 'sent', 'completed', 'declined', 'voided'] as const
export const PAGE_SIZE = 20

export interface DocumentListItem {
  id: string
  title: string
  status: string
  is_verified_badge: boolean
  created_at: string
  updated_at: string
  expires_at: string | null
}

export interface DocumentList {
  documents: DocumentListItem[]
  total: number | null
  limit: number
  offset: number
  has_more: boolean
}

export interface DocumentSigner {
  id: string
  /** The template role the signer fills (0 is Party 1). */
  role: number
  email: string
  name: string | null
  status: string
  signed_at: string | null
  viewed_at: string | null
  declined_at: string | null
  auth_required: boolean
  auth_verified: boolean
}

export interface DocumentDetail {
  id: string
  title: string
  status: string
  created_at: string
  updated_at: string
  expires_at: string | null
  signed_pdf_status: 'pending' | 'ready' | 'failed' | null
  signed_pdf_error: string | null
  signers: DocumentSigner[]
}

/** One event of GET /documents/{id}/audit (documents/document-audit.ts). */
export interface AuditEvent {
  seq: number
  at: string
  event: string
  /** The e-mail (or name) of who acted, when a person did. */
  actor: string | null
  ip: string | null
  auth_method: string | null
  agent_triggered: boolean
  hash: string
}

export interface AuditTrail {
  events: AuditEvent[]
  chain_valid: boolean
}

export interface ListFilter {
  status?: string | undefined
  search?: string | undefined
  offset?: number | undefined
}

// `search` is newer than the generated client's schema: the untyped request keeps the same errors.
export function listDocuments({ status, search, offset = 0 }: ListFilter): Promise<DocumentList> {
  const query = new URLSearchParams({ limit: String(PAGE_SIZE), offset: String(offset) })
  if (status) query.set('status', status)
  if (search) query.set('search', search)
  return untypedRequest<DocumentList>('GET', `/documents?${query.toString()}`)
}

const path = (id: string) => `/documents/${encodeURIComponent(id)}`

export const getDocument = (id: string) => untypedRequest<DocumentDetail>('GET', path(id))
export const getAuditTrail = (id: string) => untypedRequest<AuditTrail>('GET', `${path(id)}/audit`)
export const voidDocument = (id: string) => untypedRequest<{ success: true }>('POST', `${path(id)}/void`)
export const resendInvitation = (id: string, signerId: string) =>
  untypedRequest<unknown>('POST', `${path(id)}/signers/${encodeURIComponent(signerId)}/resend`)

export type DownloadKind = 'signed-file' | 'certificate' | 'badge'

/** Fetches a document file and hands it to the browser as a download; a refusal's text is thrown. */
export async function download(id: string, kind: DownloadKind, filename: string): Promise<void> {
  const response = await fetch(`/api/v1${path(id)}/${kind}`, { credentials: 'same-origin' }).catch(() => {
    throw new ApiError(0, 'The server could not be reached. Check your connection and try again.', null)
  })
  if (!response.ok) {
    const body: unknown = await response.json().catch(() => null)
    const text = body && typeof body === 'object' && 'error' in body && typeof body.error === 'string' ? body.error : `The server answered ${response.status}.`
    throw new ApiError(response.status, text, body)
  }
  const url = URL.createObjectURL(await response.blob())
  const link = Object.assign(document.createElement('a'), { href: url, download: filename })
  document.body.append(link)
  link.click()
  link.remove()
  setTimeout(() => URL.revokeObjectURL(url), 10_000)
}

/** The public page anyone can use to check the signed PDF. */
export const verificationUrl = (id: string) => `${window.location.origin}/verify/${id}`
