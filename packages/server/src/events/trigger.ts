import { randomUUID } from 'node:crypto'
import { and, eq, lt } from 'drizzle-orm'
import type { Actor } from '../actors/actor.ts'
import { requireScope } from '../actors/scopes.ts'
import { streamTestEvents } from '../db/schema.ts'
import type { Services } from '../services.ts'
import { webhookPayload } from '../webhooks/payload.ts'
import type { WebhookEventType } from '../webhooks/webhook-events.ts'
import { announceWebhookEventsWritten } from './append-signal.ts'
import type { TriggerAccepted } from './events.schemas.ts'
import { testEventId } from './stream-events.ts'

/** Test events are for the streams open now (a reconnect resumes at most an hour back): older ones are deleted. */
const TEST_EVENT_LIFETIME_MS = 3600_000

/**
 * A made-up event of the given type for the org's open live event streams (`signet trigger`):
 * the payload a real one would have (a document id and title that exist nowhere, the signer
 * where the event has one, now) plus `"test": true`. It is written to stream_test_events only,
 * so no registered webhook endpoint ever receives it, and it works on every plan.
 */
export async function triggerTestEvent(services: Pick<Services, 'db' | 'clock'>, actor: Actor, event: WebhookEventType): Promise<TriggerAccepted> {
  requireScope(actor, 'write', 'sending a test event to the live event streams')
  const now = services.clock.now()
  const real = webhookPayload({
    event,
    occurredAt: now,
    documentId: randomUUID(),
    title: 'Mutual NDA (test event)',
    signer: { email: 'ann.example@example.com', name: 'Ann Example' },
  })
  // Appended as the last key: the real payload's bytes, then the mark.
  const payload = `${real.slice(0, -1)},"test":true}`
  await services.db
    .delete(streamTestEvents)
    .where(and(eq(streamTestEvents.orgId, actor.orgId), lt(streamTestEvents.createdAt, new Date(now.getTime() - TEST_EVENT_LIFETIME_MS))))
  const [row] = await services.db
    .insert(streamTestEvents)
    .values({ orgId: actor.orgId, type: event, payload, createdAt: now })
    .returning({ id: streamTestEvents.id })
  if (!row) throw new Error('insert returned no row')
  announceWebhookEventsWritten([actor.orgId])
  return { id: testEventId(row.id), event }
}
