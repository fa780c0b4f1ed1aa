import { and, eq, inArray, isNull } from 'drizzle-orm'
import type { Db } from '../db/client.ts'
import { documents, orgs, webhookDeliveries, webhookEndpoints, type auditEvents } from '../db/schema.ts'
import { auditEventPayload } from './payload.ts'
import { isWebhookEvent } from './webhook-events.ts'
import { WEBHOOK_PLANS } from './plan.ts'

/**
 * Queues a webhook delivery per enabled endpoint of the org for each of the four webhook
 * events among `events`, in the caller's transaction (the same one that records them):
 * a delivery exists exactly when its event does, and the dispatcher (dispatcher.ts) sends
 * it after the commit. The plan is read now, so an org below Pro queues nothing.
 */
export async function enqueueWebhookDeliveries(tx: Db, events: (typeof auditEvents.$inferSelect)[]): Promise<void> {
  const webhookEvents = events.filter((event) => isWebhookEvent(event.type))
  if (webhookEvents.length === 0) return
  const orgIds = [...new Set(webhookEvents.map((event) => event.orgId))]
  // One query on the hot path (every signer transition); the rest only when someone listens.
  const endpoints = await tx
    .select({ id: webhookEndpoints.id, orgId: webhookEndpoints.orgId })
    .from(webhookEndpoints)
    .innerJoin(orgs, eq(orgs.id, webhookEndpoints.orgId))
    .where(
      and(inArray(webhookEndpoints.orgId, orgIds), eq(webhookEndpoints.enabled, true), isNull(webhookEndpoints.deletedAt), inArray(orgs.plan, WEBHOOK_PLANS)),
    )
  if (endpoints.length === 0) return

  const documentIds = [...new Set(webhookEvents.map((event) => event.documentId))]
  const titles = new Map(
    (await tx.select({ id: documents.id, title: documents.title }).from(documents).where(inArray(documents.id, documentIds))).map((d) => [d.id, d.title]),
  )
  const rows = webhookEvents.flatMap((event) => {
    if (!isWebhookEvent(event.type)) return []
    const payload = auditEventPayload(event.type, event, titles.get(event.documentId) ?? '')
    return endpoints
      .filter((endpoint) => endpoint.orgId === event.orgId)
      .map((endpoint) => ({
        endpointId: endpoint.id,
        orgId: event.orgId,
        auditEventId: event.id,
        event: event.type,
        payload,
        // Due at once (by the service's clock, which the dispatcher compares with).
        nextAttemptAt: event.occurredAt,
      }))
  })
  if (rows.length > 0) await tx.insert(webhookDeliveries).values(rows)
}
