import { api, unwrap } from '../../api/client.ts'

export const webhooksApi = {
  list: () => unwrap(api.GET('/webhooks')),
  create: (url: string) => unwrap(api.POST('/webhooks', { body: { url } })),
  setEnabled: (id: string, enabled: boolean) => unwrap(api.PATCH('/webhooks/{id}', { params: { path: { id } }, body: { enabled } })),
  remove: (id: string) => unwrap(api.DELETE('/webhooks/{id}', { params: { path: { id } } })),
  rotateSecret: (id: string) => unwrap(api.POST('/webhooks/{id}/rotate-secret', { params: { path: { id } } })),
  deliveries: (id: string, offset: number, limit: number) =>
    unwrap(api.GET('/webhooks/{id}/deliveries', { params: { path: { id }, query: { limit, offset } } })),
  redeliver: (id: string, deliveryId: string) => unwrap(api.POST('/webhooks/{id}/deliveries/{deliveryId}/redeliver', { params: { path: { id, deliveryId } } })),
  sendTest: (id: string) => unwrap(api.POST('/webhooks/{id}/test', { params: { path: { id } } })),
}

export type Webhook = Awaited<ReturnType<typeof webhooksApi.list>>['webhooks'][number]
export type WebhookTestResult = Awaited<ReturnType<typeof webhooksApi.sendTest>>
export type Delivery = Awaited<ReturnType<typeof webhooksApi.deliveries>>['deliveries'][number]
