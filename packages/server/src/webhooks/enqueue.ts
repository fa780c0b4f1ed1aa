import type { Db } from '../db/client.ts'
import type { auditEvents } from '../db/schema.ts'

/**
 * Queues a webhook delivery per enabled endpoint of the org for each of the four webhook
 * events among `events`, in the caller's transaction (the same one that records them).
 * PLACEHOLDER until webhooks land.
 */
export async function enqueueWebhookDeliveries(_tx: Db, _events: (typeof auditEvents.$inferSelect)[]): Promise<void> {}
