import { useMutation, useQueryClient, type QueryClient } from '@tanstack/react-query'
import { api, unwrap } from '../../api/client.ts'
import { reminderSettingsQuery } from '../../api/queries.ts'
import type { operations } from '@signet/sdk/openapi'
import { documentKeys } from '../documents/queries.ts'
import { templatesLoads } from '../templates/queries.ts'

/** The Send page's server state: the templates to choose from (the templates feature's query), the workspace's default reminders and the send. */

type CreateDocumentBody = operations['createDocument']['requestBody']['content']['application/json']

/** What the Send page's loader fetches before the page shows (and on hover): the templates, and what "Workspace default" reminds. */
export function sendLoads(queryClient: QueryClient): Promise<unknown>[] {
  return [...templatesLoads(queryClient), queryClient.ensureQueryData(reminderSettingsQuery)]
}

/** Creates and sends a document; every list, count and view of documents is read again. */
export function useCreateDocument() {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: (body: CreateDocumentBody) => unwrap(api.POST('/documents', { body })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: documentKeys.all }),
  })
}
