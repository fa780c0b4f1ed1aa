import { api, fetchRaw, unwrap } from '../../api/client.ts'
import type { TemplateField } from './editor/editor-state.ts'

/** Every template of the workspace (GET /templates; the API's page holds up to 500). */
export const templatesQuery = {
  queryKey: ['templates'] as const,
  queryFn: () => unwrap(api.GET('/templates', { params: { query: { limit: 500 } } })),
}

export const templateQueryKey = (id: string) => ['templates', id] as const

const byId = (id: string) => ({ params: { path: { id } } })

/** GET /templates/{id}: with its fields and each page's displayed size in PDF points. */
export const getTemplate = (id: string) => unwrap(api.GET('/templates/{id}', byId(id)))

export const saveTemplateFields = (id: string, fields: TemplateField[]) => unwrap(api.PUT('/templates/{id}/fields', { ...byId(id), body: { fields } }))

export const renameTemplate = (id: string, name: string) => unwrap(api.PATCH('/templates/{id}', { ...byId(id), body: { name } }))

export const deleteTemplate = (id: string) => unwrap(api.DELETE('/templates/{id}', byId(id)))

export const duplicateTemplate = (id: string) => unwrap(api.POST('/templates/{id}/duplicate', byId(id)))

/** A template as GET /templates lists it. */
export type TemplateSummary = Awaited<ReturnType<typeof templatesQuery.queryFn>>['templates'][number]
export type TemplateDetail = Awaited<ReturnType<typeof getTemplate>>

// The PDF goes both ways as raw bytes (application/pdf), which openapi-fetch would JSON-encode on the
// way up and JSON-parse on the way down: hence fetchRaw.

/** The template's PDF bytes (GET /templates/{id}/pdf). */
export async function getTemplatePdf(id: string): Promise<ArrayBuffer> {
  const response = await fetchRaw(`/templates/${encodeURIComponent(id)}/pdf`)
  return response.arrayBuffer()
}

/** POST /templates?name=… with the PDF as the body. */
export async function uploadTemplate(name: string, file: Blob): Promise<TemplateSummary> {
  const response = await fetchRaw(`/templates?name=${encodeURIComponent(name)}`, { method: 'POST', body: file, headers: { 'content-type': 'application/pdf' } })
  return (await response.json()) as TemplateSummary
}
