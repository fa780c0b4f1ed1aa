import { and, count, desc, eq, ne, sql } from 'drizzle-orm'
import type { Db } from '../db/client.ts'
import { auditEvents, webhookDeliveries } from '../db/schema.ts'
import { AppError, notFound } from '../errors.ts'
import { isUuid } from '../lib/ids.ts'
import type { Page } from '../lib/paging.ts'
import type { Services } from '../services.ts'
import { findEndpoint, type EndpointServices } from './endpoints.ts'
import { assertWebhookPlan } from './plan.ts'
import type { DeliveryList, DeliveryView } from './webhooks.schemas.ts'
import { requireOrg } from '../orgs/require-org.ts'

type DeliveryRow = typeof webhookDeliveries.$inferSelect

const present = (row: DeliveryRow, documentId: string | null): DeliveryView => ({
  id: row.id,
  event: row.event,
  document_id: documentId,
  status: row.status,
  attempts: row.attempts,
  response_code: row.lastStatusCode,
  latency_ms: row.lastLatencyMs,
  error: row.lastError,
  created_at: row.createdAt.toISOString(),
  delivered_at: row.deliveredAt?.toISOString() ?? null,
  attempt_log: row.attemptLog,
})

/**
 * An endpoint's delivery log, newest first (events of one transaction in event order,
 * reversed). `attempts` counts every HTTP attempt, redeliveries included; the last
 * attempt's response code, latency and error are at the top level, every attempt in
 * `attempt_log`.
 */
export async function listDeliveries(db: Db, orgId: string, endpointId: string, page: Page): Promise<DeliveryList> {
  const endpoint = await findEndpoint(db, orgId, endpointId)
  const where = and(eq(webhookDeliveries.endpointId, endpoint.id), eq(webhookDeliveries.orgId, orgId))
  const [rows, [totals]] = await Promise.all([
    db
      .select({ delivery: webhookDeliveries, documentId: auditEvents.documentId })
      .from(webhookDeliveries)
      .leftJoin(auditEvents, eq(auditEvents.id, webhookDeliveries.auditEventId))
      .where(where)
      .orderBy(desc(webhookDeliveries.createdAt), sql`${webhookDeliveries.auditEventId} desc nulls last`, desc(webhookDeliveries.id))
      .limit(page.limit)
      .offset(page.offset),
    db.select({ total: count() }).from(webhookDeliveries).where(where),
  ])
  const total = totals?.total ?? 0
  return {
    deliveries: rows.map((row) => present(row.delivery, row.documentId)),
    total,
    limit: page.limit,
    offset: page.offset,
    has_more: page.offset + rows.length < total,
  }
}

const deliveryNotFound = (): AppError => notFound('Delivery not found.')

/**
 * Queues a settled delivery (delivered or failed) again: the same row, so the same body
 * and the same webhook-id (Standard Webhooks: a resent message keeps its id, receivers
 * de-duplicate on it), and a new round of up to two attempts appended to its log.
 */
export async function redeliverWebhook(
  services: EndpointServices & Pick<Services, 'webhooks'>,
  orgId: string,
  endpointId: string,
  deliveryId: string,
): Promise<{ id: string; status: 'pending' }> {
  const { db, clock } = services
  assertWebhookPlan((await requireOrg(db, orgId)).plan)
  const endpoint = await findEndpoint(db, orgId, endpointId)
  if (!isUuid(deliveryId)) throw deliveryNotFound()
  if (!endpoint.enabled) throw new AppError('conflict', 'This webhook endpoint is disabled; enable it before redelivering.')
  const ofThisEndpoint = and(eq(webhookDeliveries.id, deliveryId), eq(webhookDeliveries.endpointId, endpoint.id), eq(webhookDeliveries.orgId, orgId))
  const [row] = await db
    .update(webhookDeliveries)
    .set({ status: 'pending', nextAttemptAt: clock.now(), deliveredAt: null })
    .where(and(ofThisEndpoint, ne(webhookDeliveries.status, 'pending')))
    .returning({ id: webhookDeliveries.id })
  if (!row) {
    const [existing] = await db.select({ id: webhookDeliveries.id }).from(webhookDeliveries).where(ofThisEndpoint)
    if (existing) throw new AppError('conflict', 'This delivery is already queued or being sent.')
    throw deliveryNotFound()
  }
  services.webhooks.kick()
  return { id: row.id, status: 'pending' }
}
