import { api, ApiError, unwrap, untypedRequest } from '../../api/client.ts'
import type { PageSize, TemplateField } from './editor/editor-state.ts'

/** A template as GET /templates lists it. */
export interface TemplateSummary {
  id: string
  name: string
  page_count: number
  created_at: string
  roles: number[]
}

/** GET /templates/{id}: with its fields and each page's displayed size in PDF points. */
export interface TemplateDetail extends TemplateSummary {
  fields: TemplateField[]
  pages: PageSize[]
}

/** Every template of the workspace (GET /templates; the API's page holds up to 500). */
export const templatesQuery = {
  queryKey: ['templates'] as const,
  queryFn: () => unwrap(api.GET('/templates', { params: { query: { limit: 500 } } })),
}

export const templateQueryKey = (id: string) => ['templates', id] as const

export const getTemplate = (id: string) => untypedRequest<TemplateDetail>('GET', `/templates/${encodeURIComponent(id)}`)

export const saveTemplateFields = (id: string, fields: TemplateField[]) =>
  untypedRequest<TemplateDetail>('PUT', `/templates/${encodeURIComponent(id)}/fields`, { fields })

export const renameTemplate = (id: string, name: string) => untypedRequest<TemplateSummary>('PATCH', `/templates/${encodeURIComponent(id)}`, { name })

export const deleteTemplate = (id: string) => untypedRequest<void>('DELETE', `/templates/${encodeURIComponent(id)}`)

export const duplicateTemplate = (id: string) => untypedRequest<TemplateSummary>('POST', `/templates/${encodeURIComponent(id)}/duplicate`)

const UNREACHABLE = 'The server could not be reached. Check your connection and try again.'

/** The template's PDF bytes (GET /templates/{id}/pdf). */
export async function getTemplatePdf(id: string): Promise<ArrayBuffer> {
  const response = await fetch(`/api/v1/templates/${encodeURIComponent(id)}/pdf`, { credentials: 'same-origin' }).catch(() => {
    throw new ApiError(0, UNREACHABLE, null)
  })
  if (!response.ok) throw await failure(response)
  return response.arrayBuffer()
}

/** POST /templates?name=… with the PDF as the body. */
export async function uploadTemplate(name: string, file: Blob): Promise<TemplateSummary> {
  const response = await fetch(`/api/v1/templates?name=${encodeURIComponent(name)}`, {
    method: 'POST',
    body: file,
    headers: { 'content-type': 'application/pdf' },
    credentials: 'same-origin',
  }).catch(() => {
    throw new ApiError(0, UNREACHABLE, null)
  })
  if (!response.ok) throw await failure(response)
  return (await response.json()) as TemplateSummary
}

async function failure(response: Response): Promise<ApiError> {
  const body: unknown = await response.json().catch(() => null)
  const text = body && typeof body === 'object' && 'error' in body && typeof body.error === 'string' ? body.error : `The server answered ${response.status}.`
  return new ApiError(response.status, text, body)
}
