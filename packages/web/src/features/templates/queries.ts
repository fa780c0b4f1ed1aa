import { queryOptions, useMutation, useQueryClient, type QueryClient } from '@tanstack/react-query'
import { api, fetchRaw, unwrap } from '../../api/client.ts'
import type { operations } from '@signet/sdk/openapi'
import type { TemplateField } from './editor/editor-state.ts'
import { openPdf } from './editor/pdf-document.ts'

/** The templates feature's server state: query keys, queries and mutations. Pages call the API only through here. */

/**
 * Every key starts with 'templates', so invalidating ['templates'] refreshes the list and every
 * template read. The list's own key is ['templates'] (the Overview's first-run steps share it).
 */
export const templateKeys = {
  all: ['templates'] as const,
  detail: (id: string) => ['templates', id] as const,
  pdf: (id: string) => ['templates', id, 'pdf'] as const,
}

const byId = (id: string) => ({ params: { path: { id } } })

/** Every template of the workspace (the API's page holds up to 500). */
export const templatesQuery = queryOptions({
  queryKey: templateKeys.all,
  queryFn: () => unwrap(api.GET('/templates', { params: { query: { limit: 500 } } })),
})

/** A template with its fields and each page's displayed size in PDF points. */
export const templateQuery = (id: string) =>
  queryOptions({
    queryKey: templateKeys.detail(id),
    queryFn: () => unwrap(api.GET('/templates/{id}', byId(id))),
  })

/**
 * The template's PDF, opened with pdf.js. It is opened once per visit of the editor and dropped
 * when the editor closes: a parsed PDF holds a worker and much memory.
 * fetchRaw: the body is the PDF's bytes, which openapi-fetch would try to parse as JSON.
 */
export const templatePdfQuery = (id: string) =>
  queryOptions({
    queryKey: templateKeys.pdf(id),
    queryFn: async () => openPdf(await (await fetchRaw(`/templates/${encodeURIComponent(id)}/pdf`)).arrayBuffer()),
    staleTime: Infinity,
    gcTime: 0,
  })

export type TemplateSummary = operations['listTemplates']['responses'][200]['content']['application/json']['templates'][number]
export type TemplateDetail = operations['getTemplate']['responses'][200]['content']['application/json']
type UploadedTemplate = operations['uploadTemplate']['responses'][201]['content']['application/json']

/** What the Templates page's loader fetches before the page shows (and on hover). */
export function templatesLoads(queryClient: QueryClient): Promise<unknown>[] {
  return [queryClient.ensureQueryData(templatesQuery)]
}

/**
 * What the field editor's loader fetches: the template. Not its PDF: a loaded copy nobody
 * watches yet would be dropped at once (gcTime 0), and a hover would load pdf.js.
 */
export function templateEditorLoads(queryClient: QueryClient, id: string): Promise<unknown>[] {
  return [queryClient.ensureQueryData(templateQuery(id))]
}

/**
 * Uploads a PDF as a new template (no fields yet); the list is read again in the background,
 * since the page goes on to the new template's editor.
 * fetchRaw: the body is the PDF's bytes, which openapi-fetch would JSON-encode.
 */
export function useUploadTemplate() {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: async ({ name, file }: { name: string; file: Blob }) => {
      const response = await fetchRaw(`/templates?name=${encodeURIComponent(name)}`, {
        method: 'POST',
        body: file,
        headers: { 'content-type': 'application/pdf' },
      })
      return (await response.json()) as UploadedTemplate
    },
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: templateKeys.all }),
  })
}

/** Renames a template; done once the list and the template show the new name. */
export function useRenameTemplate() {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: ({ id, name }: { id: string; name: string }) => unwrap(api.PATCH('/templates/{id}', { ...byId(id), body: { name } })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: templateKeys.all }),
  })
}

/** Deletes a template; done once the list no longer shows it. */
export function useDeleteTemplate() {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: (id: string) => unwrap(api.DELETE('/templates/{id}', byId(id))),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: templateKeys.all }),
  })
}

/** Copies a template (same PDF and fields, named "Copy of …"); done once the list shows the copy. */
export function useDuplicateTemplate() {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: (id: string) => unwrap(api.POST('/templates/{id}/duplicate', byId(id))),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: templateKeys.all }),
  })
}

/**
 * Replaces a template's fields. The answer is the saved template, kept as it is; only the list
 * (whose roles change) is read again, exactly: the rest of the prefix holds the open PDF, which
 * would be opened again and reload the editor.
 */
export function useSaveTemplateFields() {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: ({ id, fields }: { id: string; fields: TemplateField[] }) => unwrap(api.PUT('/templates/{id}/fields', { ...byId(id), body: { fields } })),
    onSuccess: (saved, { id }) => {
      queryClient.setQueryData(templateKeys.detail(id), saved)
      void queryClient.invalidateQueries({ queryKey: templateKeys.all, exact: true })
    },
  })
}

export type TemplateRoleEntry = NonNullable<TemplateDetail['role_names']>[number]

/**
 * Names the template's roles and sets their default steps (replacing what was set). The answer is
 * the saved template; the list is read again (the Send page labels its parties from it).
 */
export function useSaveTemplateRoles() {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: ({ id, roles }: { id: string; roles: TemplateRoleEntry[] }) => unwrap(api.PUT('/templates/{id}/roles', { ...byId(id), body: { roles } })),
    onSuccess: (saved, { id }) => {
      queryClient.setQueryData(templateKeys.detail(id), saved)
      void queryClient.invalidateQueries({ queryKey: templateKeys.all, exact: true })
    },
  })
}
