import type { Clock } from '../adapters/clock.ts'
import type { Database } from '../db/client.ts'
import type { Logger } from '../lib/logger.ts'
import type { PdfWork } from '../pdf-work/pdf-work.ts'
import { RATE_LIMITS } from '../rate-limits/consume-rate-limit.ts'
import { mailBacklog, webhookBacklog, type Backlog } from './backlog.ts'
import type { FinalPdfFailureOutcome, Metrics } from './metrics.ts'

/*
 * Prometheus metrics with prom-client, in a registry of this instance's own (never prom-client's
 * global one), so several apps in one process (tests) each count only their own. Counters and
 * the request histogram are updated as things happen; the gauges (PDF pool, backlogs, database
 * pool) are read when Prometheus scrapes, so nothing runs between scrapes. prom-client is loaded
 * only when metrics are on: the server's bundle and the operator CLI do not load it otherwise.
 */

/**
 * Request durations, in seconds: reads answer in a millisecond or two, uploads and seals in
 * seconds, a bulk send may use its whole minute.
 */
export const REQUEST_DURATION_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60]

const FINAL_PDF_OUTCOMES: readonly FinalPdfFailureOutcome[] = ['retry', 'given_up']

/** What the gauges read at each scrape. */
export interface MetricSources {
  db: Database['db']
  clock: Clock
  logger: Logger
  pdfWork: Pick<PdfWork, 'load'>
  /** node-postgres's pool on PostgreSQL; absent on the embedded database, which has none. */
  dbPool?: PoolCounts
}

/** The counts pg.Pool keeps. */
export interface PoolCounts {
  readonly totalCount: number
  readonly idleCount: number
  readonly waitingCount: number
}

/** The pool behind a PostgreSQL handle (drizzle keeps it as $client), or undefined on PGlite. */
export function poolCountsOf(database: Pick<Database, 'db' | 'kind'>): PoolCounts | undefined {
  if (database.kind !== 'postgres') return undefined
  const client = (database.db as { $client?: Partial<PoolCounts> }).$client
  return typeof client?.totalCount === 'number' && typeof client.idleCount === 'number' && typeof client.waitingCount === 'number'
    ? (client as PoolCounts)
    : undefined
}

export async function createPrometheusMetrics(sources: MetricSources): Promise<Metrics> {
  const { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } = await import('prom-client')
  const registry = new Registry()
  collectDefaultMetrics({ register: registry })
  const registers = [registry]

  const requestDuration = new Histogram({
    name: 'signet_http_request_duration_seconds',
    help: "Time from a request's arrival to its answer, by method, route pattern (unmatched: no route) and status code.",
    labelNames: ['method', 'route', 'status_code'] as const,
    buckets: REQUEST_DURATION_BUCKETS,
    registers,
  })
  const rateLimitRefusals = new Counter({
    name: 'signet_rate_limit_refusals_total',
    help: 'Requests refused (429) by a rate-limit policy, by policy.',
    labelNames: ['policy'] as const,
    registers,
  })
  const finalPdfFailures = new Counter({
    name: 'signet_final_pdf_failures_total',
    help: "Attempts to produce a completed document's sealed PDF that failed: retry (tried again later) or given_up (until an operator reruns it).",
    labelNames: ['outcome'] as const,
    registers,
  })
  // Every series from the start, so that rate() and alerts see a 0 before the first refusal or failure.
  for (const policy of Object.values(RATE_LIMITS)) rateLimitRefusals.inc({ policy: policy.name }, 0)
  for (const outcome of FINAL_PDF_OUTCOMES) finalPdfFailures.inc({ outcome }, 0)

  const pdfBusy = new Gauge({ name: 'signet_pdf_pool_busy', help: 'PDF tasks running in a worker now.', registers })
  const pdfQueued = new Gauge({ name: 'signet_pdf_pool_queued', help: 'PDF tasks waiting for a worker (PDF_QUEUE of them at most; beyond, 503).', registers })
  const pdfWorkers = new Gauge({ name: 'signet_pdf_pool_workers', help: 'Worker threads of the PDF pool (PDF_WORKERS).', registers })

  const backlogGauges = (queue: string, what: string) => ({
    due: new Gauge({ name: `signet_${queue}_due`, help: `${what} due to be sent now (pending, their next attempt reached).`, registers }),
    oldest: new Gauge({
      name: `signet_${queue}_oldest_due_age_seconds`,
      help: `Seconds since the ${what.toLowerCase()} waiting longest became due (0 when none is).`,
      registers,
    }),
  })
  const backlogs = [
    { gauges: backlogGauges('outbox', 'Mail outbox messages'), read: mailBacklog, name: 'mail outbox' },
    { gauges: backlogGauges('webhook_deliveries', 'Webhook deliveries'), read: webhookBacklog, name: 'webhook deliveries' },
  ]

  const dbPool = sources.dbPool
  const poolGauges = dbPool && {
    inUse: new Gauge({ name: 'signet_db_pool_in_use', help: "PostgreSQL connections of this process's pool running a query or transaction.", registers }),
    idle: new Gauge({ name: 'signet_db_pool_idle', help: "PostgreSQL connections of this process's pool open and idle.", registers }),
    waiting: new Gauge({ name: 'signet_db_pool_waiting', help: "Queries waiting for a connection of this process's pool.", registers }),
  }

  const readBacklog = async (backlog: (typeof backlogs)[number], now: Date): Promise<void> => {
    let value: Backlog
    try {
      value = await backlog.read(sources.db, now)
    } catch (error) {
      // No stale number: the series disappears from this scrape (an absent() alert notices), the rest is served.
      backlog.gauges.due.reset()
      backlog.gauges.oldest.reset()
      sources.logger.warn({ err: error }, `reading the ${backlog.name} backlog for metrics failed`)
      return
    }
    backlog.gauges.due.set(value.due)
    backlog.gauges.oldest.set(value.oldestDueSeconds)
  }

  /** The gauges, read at each scrape. */
  const readGauges = async (): Promise<void> => {
    const load = sources.pdfWork.load
    pdfBusy.set(load.busy)
    pdfQueued.set(load.queued)
    pdfWorkers.set(load.workers)
    if (dbPool && poolGauges) {
      poolGauges.inUse.set(dbPool.totalCount - dbPool.idleCount)
      poolGauges.idle.set(dbPool.idleCount)
      poolGauges.waiting.set(dbPool.waitingCount)
    }
    const now = sources.clock.now()
    await Promise.all(backlogs.map((backlog) => readBacklog(backlog, now)))
  }

  return {
    enabled: true,
    rateLimitRefused: (policy) => rateLimitRefusals.inc({ policy }),
    finalPdfFailed: (outcome) => finalPdfFailures.inc({ outcome }),
    observeRequest: (method, route, statusCode, seconds) => requestDuration.observe({ method, route, status_code: statusCode }, seconds),
    scrape: async () => {
      await readGauges()
      return { contentType: registry.contentType, text: await registry.metrics() }
    },
  }
}
