import { useMutation, useQueryClient, type QueryClient } from '@tanstack/react-query'
import { api, unwrap } from '../../api/client.ts'
import { meQuery } from '../../auth/session.ts'
import { documentKeys } from '../documents/queries.ts'
import { templatesLoads } from '../templates/queries.ts'
import { runBulkSend, type BulkProgress, type BulkSend } from './bulk-run.ts'
import type { Recipient } from './recipients-csv.ts'

/** Bulk send's server state: the templates to choose from (the templates feature's query) and the run. */

/** The plans bulk send comes with. */
export const BULK_PLANS: ReadonlySet<string> = new Set(['team', 'business'])

/**
 * What the Bulk send page's loader fetches: the templates, on a plan that has bulk send (the
 * signed-in layout has already read who we are). Below it the page shows the way to upgrade.
 */
export function bulkSendLoads(queryClient: QueryClient): Promise<unknown>[] {
  const plan = queryClient.getQueryData(meQuery.queryKey)?.workspace?.plan
  return plan && BULK_PLANS.has(plan) ? templatesLoads(queryClient) : []
}

/** One batch, POST /documents/bulk-send under its Idempotency-Key. */
const sendBatch =
  (templateId: string): BulkSend =>
  (batch, idempotencyKey) =>
    unwrap(api.POST('/documents/bulk-send', { body: { template_id: templateId, recipients: batch }, headers: { 'Idempotency-Key': idempotencyKey } }))

/**
 * Sends a template to recipients in batches (runBulkSend), reporting progress after each. A run
 * never fails: its outcome says who was sent, who was skipped and why it stopped. Whatever was
 * sent, every list, count and view of documents is read again.
 */
export function useBulkSend(onProgress: (progress: BulkProgress) => void) {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: ({ templateId, recipients }: { templateId: string; recipients: Recipient[] }) => runBulkSend(recipients, sendBatch(templateId), onProgress),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: documentKeys.all }),
  })
}
