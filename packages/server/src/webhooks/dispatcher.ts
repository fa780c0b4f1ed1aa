import { performance } from 'node:perf_hooks'
import { setTimeout as sleep } from 'node:timers/promises'
import { and, asc, eq, inArray, lte, sql } from 'drizzle-orm'
import type { Config } from '../config.ts'
import type { Db } from '../db/client.ts'
import type { Clock } from '../adapters/clock.ts'
import { webhookDeliveries, webhookEndpoints } from '../db/schema.ts'
import { startBackgroundLoop, type BackgroundLoop } from '../lib/background-loop.ts'
import type { Logger } from '../lib/logger.ts'
import { deliveryHeaders } from './signature.ts'
import { httpWebhookTransport, type WebhookTransport } from './transport.ts'

/** The spec's delivery rule: a 5-second timeout per attempt, one retry after 1 second. */
export const ATTEMPT_TIMEOUT_MS = 5_000
export const RETRY_DELAY_MS = 1_000
const ATTEMPTS_PER_ROUND = 2
/**
 * A claimed delivery is held this long (its next_attempt_at is pushed out). Both attempts
 * take at most 11 s; if the process dies meanwhile, the row becomes due again when the
 * lease runs out and is sent again (at least once: receivers de-duplicate on webhook-id).
 */
const LEASE_MS = 60_000
/** Deliveries in flight at once in this process; each holds one connection. */
const MAX_IN_FLIGHT = 32

type DeliveryRow = typeof webhookDeliveries.$inferSelect
type AttemptLogEntry = DeliveryRow['attemptLog'][number]
type EndpointRow = Pick<typeof webhookEndpoints.$inferSelect, 'id' | 'url' | 'secret' | 'enabled' | 'deletedAt'>

interface Attempt {
  ok: boolean
  statusCode: number | null
  error: string | null
  latencyMs: number
}

/** Why a response does not count as delivered, or null for a 2xx. */
export const describeStatus = (statusCode: number): string | null => {
  if (statusCode >= 200 && statusCode < 300) return null
  if (statusCode >= 300 && statusCode < 400) return `HTTP ${statusCode}: redirects are not followed`
  return `HTTP ${statusCode}`
}

/**
 * Sends queued deliveries: claims due rows with a lease (FOR UPDATE SKIP LOCKED, so several
 * server processes share them, as the mail outbox does), POSTs each (up to MAX_IN_FLIGHT at
 * once, so one slow receiver never holds up the others), retries a failed first attempt once
 * after RETRY_DELAY_MS, and records every attempt in the delivery's log. Nothing here runs
 * in an API request or a signer's request: they only queue rows and kick this loop.
 */
export function startWebhookDispatcher(deps: { db: Db; clock: Clock; logger: Logger; config: Config; transport?: WebhookTransport }): BackgroundLoop {
  const { db, clock, logger } = deps
  const transport = deps.transport ?? httpWebhookTransport({ allowPrivate: deps.config.webhookAllowPrivate })
  const inFlight = new Set<Promise<void>>()
  const stopping = new AbortController()
  /** The last claim filled every free slot: when one frees, look again at once. */
  let saturated = false

  const claimDue = async (limit: number): Promise<DeliveryRow[]> => {
    const now = clock.now()
    const due = db
      .select({ id: webhookDeliveries.id })
      .from(webhookDeliveries)
      .where(and(eq(webhookDeliveries.status, 'pending'), lte(webhookDeliveries.nextAttemptAt, now)))
      .orderBy(asc(webhookDeliveries.nextAttemptAt), asc(webhookDeliveries.auditEventId))
      .limit(limit)
      .for('update', { skipLocked: true })
    const rows = await db
      .update(webhookDeliveries)
      .set({ nextAttemptAt: new Date(now.getTime() + LEASE_MS) })
      .where(inArray(webhookDeliveries.id, due))
      .returning()
    // Oldest events first: deliveries start in event order (arrival order is not guaranteed).
    return rows.sort((a, b) => (a.auditEventId ?? 0) - (b.auditEventId ?? 0))
  }

  const attempt = async (row: DeliveryRow, endpoint: EndpointRow): Promise<Attempt> => {
    const timestamp = Math.floor(clock.now().getTime() / 1000)
    const headers = deliveryHeaders(endpoint.secret, { id: row.id, timestamp, body: row.payload })
    const started = performance.now()
    const latency = () => Math.round(performance.now() - started)
    try {
      const { statusCode } = await transport.post({ url: endpoint.url, headers, body: row.payload, timeoutMs: ATTEMPT_TIMEOUT_MS, signal: stopping.signal })
      const error = describeStatus(statusCode)
      return { ok: error === null, statusCode, error, latencyMs: latency() }
    } catch (error) {
      return { ok: false, statusCode: null, error: (error instanceof Error ? error.message : String(error)).slice(0, 500), latencyMs: latency() }
    }
  }

  /** Writes one attempt into the row; `final` settles it. Returns the row's status afterwards. */
  const record = async (row: DeliveryRow, result: Attempt, final: boolean) => {
    const now = clock.now()
    const entry: AttemptLogEntry = { at: now.toISOString(), status_code: result.statusCode, latency_ms: result.latencyMs, error: result.error }
    const [updated] = await db
      .update(webhookDeliveries)
      .set({
        attempts: sql`${webhookDeliveries.attempts} + 1`,
        attemptLog: sql`${webhookDeliveries.attemptLog} || ${JSON.stringify([entry])}::jsonb`,
        lastStatusCode: result.statusCode,
        lastError: result.error,
        lastLatencyMs: result.latencyMs,
        ...(result.ok ? { status: 'delivered' as const, deliveredAt: now } : final ? { status: 'failed' as const } : {}),
      })
      .where(eq(webhookDeliveries.id, row.id))
      .returning({ status: webhookDeliveries.status })
    return updated?.status
  }

  /** Settles a delivery without an attempt (its endpoint was deleted or disabled after it was queued). */
  const abandon = (row: DeliveryRow, reason: string) =>
    db
      .update(webhookDeliveries)
      .set({ status: 'failed', lastError: reason })
      .where(and(eq(webhookDeliveries.id, row.id), eq(webhookDeliveries.status, 'pending')))

  /** Gives a claimed row back at once (shutdown): whoever runs next sends it; an interrupted attempt is not logged. */
  const release = (row: DeliveryRow) =>
    db
      .update(webhookDeliveries)
      .set({ nextAttemptAt: clock.now() })
      .where(and(eq(webhookDeliveries.id, row.id), eq(webhookDeliveries.status, 'pending')))

  const deliver = async (row: DeliveryRow, endpoint: EndpointRow | undefined) => {
    if (!endpoint?.enabled || endpoint.deletedAt) {
      await abandon(row, !endpoint || endpoint.deletedAt ? 'endpoint deleted' : 'endpoint disabled')
      return
    }
    for (let number = 1; number <= ATTEMPTS_PER_ROUND; number++) {
      if (number > 1) await sleep(RETRY_DELAY_MS, undefined, { signal: stopping.signal }).catch(() => undefined)
      if (stopping.signal.aborted) {
        await release(row)
        return
      }
      const result = await attempt(row, endpoint)
      if (stopping.signal.aborted && !result.ok) {
        await release(row)
        return
      }
      const final = result.ok || number === ATTEMPTS_PER_ROUND
      const status = await record(row, result, final)
      if (final) {
        if (!result.ok) logger.warn({ deliveryId: row.id, endpointId: endpoint.id, error: result.error }, 'webhook delivery failed')
        return
      }
      // Deleting the endpoint between the attempts settles the row: no retry.
      if (status !== 'pending') return
    }
  }

  const work = async (isStopping: () => boolean) => {
    while (!isStopping() && inFlight.size < MAX_IN_FLIGHT) {
      const free = MAX_IN_FLIGHT - inFlight.size
      const rows = await claimDue(free)
      saturated = rows.length === free
      if (rows.length === 0) return
      const endpointIds = [...new Set(rows.map((row) => row.endpointId))]
      const endpoints = new Map(
        (
          await db
            .select({
              id: webhookEndpoints.id,
              url: webhookEndpoints.url,
              secret: webhookEndpoints.secret,
              enabled: webhookEndpoints.enabled,
              deletedAt: webhookEndpoints.deletedAt,
            })
            .from(webhookEndpoints)
            .where(inArray(webhookEndpoints.id, endpointIds))
        ).map((endpoint) => [endpoint.id, endpoint]),
      )
      for (const row of rows) {
        const task: Promise<void> = deliver(row, endpoints.get(row.endpointId))
          .catch((error: unknown) => logger.error({ err: error, deliveryId: row.id }, 'webhook delivery crashed; it is retried after its lease'))
          .finally(() => {
            inFlight.delete(task)
            if (saturated) loop.kick()
          })
        inFlight.add(task)
      }
      if (rows.length < free) return
    }
  }

  const loop = startBackgroundLoop({ name: 'webhook dispatcher', pollMs: deps.config.jobPollMs, logger, work })
  const settleInFlight = async () => {
    while (inFlight.size > 0) await Promise.all(inFlight)
  }
  return {
    kick: () => loop.kick(),
    /** Resolves when nothing is being claimed or sent (tests, shutdown). */
    drain: async () => {
      do {
        await loop.drain()
        await settleInFlight()
      } while (inFlight.size > 0)
    },
    stop: async () => {
      await loop.stop()
      stopping.abort()
      await settleInFlight()
    },
  }
}
