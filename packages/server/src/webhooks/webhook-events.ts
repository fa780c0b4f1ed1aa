/** The four events webhooks carry (the audit trail records more; audit-trail.ts queues deliveries for these). */
export const WEBHOOK_EVENT_TYPES = ['document.viewed', 'document.signed', 'document.completed', 'document.declined'] as const
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number]

export const isWebhookEvent = (type: string): type is WebhookEventType => (WEBHOOK_EVENT_TYPES as readonly string[]).includes(type)
