import { dataOf, idempotencyHeader, segment, type Api, type CreateOptions } from './api.ts'
import { everyItem } from './pages.ts'
import type {
  BulkSendBody,
  CreateWebhookBody,
  Delivery,
  DeliveryList,
  Seal,
  SealOptions,
  Template,
  TemplateList,
  TemplateListItem,
  UpdateWebhookBody,
  Usage,
  UsageQuery,
  WebhookEndpoint,
} from './types.ts'
import { verifyWebhook } from './webhook-signature.ts'

export function templatesResource({ read }: Api) {
  return {
    /** Every template, newest first. */
    list: (): AsyncIterable<TemplateListItem> =>
      everyItem(
        (offset) => read<TemplateList>('/templates', { offset }),
        (page) => page.templates,
      ),
    get: (id: string) => read<Template>(`/templates/${segment(id)}`),
  }
}

export function sealsResource({ client, read }: Api) {
  return {
    /** Seals a finished PDF (201 sealed, or 202 with seal_status "pending" while no time-stamp authority answers). */
    create: (pdf: Uint8Array | Blob, options: SealOptions & CreateOptions = {}) => {
      const { idempotencyKey, ...query } = options
      return dataOf(
        client.POST('/seals', {
          params: { query },
          // The PDF goes as the raw body, not as JSON.
          body: pdf as unknown as string,
          bodySerializer: (body: unknown) => body as BodyInit,
          headers: { 'content-type': 'application/pdf', ...idempotencyHeader(idempotencyKey) },
        }),
      )
    },
    get: (id: string) => read<Seal>(`/seals/${segment(id)}`),
  }
}

export function usageResource({ read }: Api) {
  return { get: (query: UsageQuery = {}) => read<Usage>('/usage', query) }
}

export function webhooksResource({ client, read }: Api) {
  const path = (id: string) => ({ params: { path: { id } } })
  return {
    /** The org's endpoints, newest first (never their secrets). */
    list: async () => (await read<{ webhooks: WebhookEndpoint[] }>('/webhooks')).webhooks,
    /** Registers an endpoint; its secret is in this answer only. */
    create: (body: CreateWebhookBody, options: CreateOptions = {}) =>
      dataOf(client.POST('/webhooks', { body, headers: idempotencyHeader(options.idempotencyKey) })),
    update: (id: string, body: UpdateWebhookBody) => dataOf(client.PATCH('/webhooks/{id}', { ...path(id), body })),
    delete: (id: string) => dataOf(client.DELETE('/webhooks/{id}', path(id))),
    rotateSecret: (id: string) => dataOf(client.POST('/webhooks/{id}/rotate-secret', path(id))),
    /** Sends a signed `test` event to the endpoint now and reports what it answered. */
    test: (id: string) => dataOf(client.POST('/webhooks/{id}/test', path(id))),
    /** Every delivery to the endpoint, newest first. */
    deliveries: (id: string): AsyncIterable<Delivery> =>
      everyItem(
        (offset) => read<DeliveryList>(`/webhooks/${segment(id)}/deliveries`, { limit: 100, offset }),
        (page) => page.deliveries,
      ),
    redeliver: (id: string, deliveryId: string) =>
      dataOf(client.POST('/webhooks/{id}/deliveries/{deliveryId}/redeliver', { params: { path: { id, deliveryId } } })),
    /** verifyWebhook, for those who look for it here. */
    verify: verifyWebhook,
  }
}

export function bulkSendOf({ client }: Api) {
  return (body: BulkSendBody, options: CreateOptions = {}) =>
    dataOf(client.POST('/documents/bulk-send', { body, headers: idempotencyHeader(options.idempotencyKey) }))
}
