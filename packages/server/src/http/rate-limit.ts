import { lt, sql } from 'drizzle-orm'
import type { FastifyReply, FastifyRequest } from 'fastify'
import type { Db } from '../db/client.ts'
import { rateLimitCounters } from '../db/schema.ts'
import { AppError } from '../errors.ts'
import { preparedPer } from '../lib/prepared.ts'
import type { Services } from '../services.ts'
import { principalOf } from './auth.ts'

/**
 * Per-org request limits, counted in the database so every server process shares them.
 *
 * Fixed windows of one hour aligned to the UTC clock hour (10:00:00–10:59:59): one counter
 * row per (policy, org, hour), incremented by a single upsert per request. A client may burst
 * up to twice the limit across a window boundary; in exchange the cost is one round trip and
 * the reset time is the same for every client (the original service uses fixed windows too).
 *
 * Headers follow draft-ietf-httpapi-ratelimit-headers (-10): every response of a limited route
 * carries `RateLimit-Policy: "create";q=60;w=3600` and `RateLimit: "create";r=<left>;t=<seconds
 * to reset>`; a 429 adds `Retry-After` with the same number of seconds.
 */

export const RATE_LIMIT_WINDOW_SECONDS = 3600
const WINDOW_MS = RATE_LIMIT_WINDOW_SECONDS * 1000
/** Old windows are deleted at most this often per process (by whichever request comes then). */
const PRUNE_EVERY_MS = 10 * 60 * 1000

export interface RateLimitPolicy {
  /** The policy's name: part of the counter key and of the headers ('create', 'read-document', …). */
  name: string
  /** Requests per org per hour, unless RATE_LIMITS overrides this policy. */
  perHour: number
}

/**
 * Counts one request in the window and returns the new count, or undefined when the window
 * is already full (then nothing is written: a client hammering a full window costs no writes).
 */
const hit = preparedPer((db) =>
  db
    .insert(rateLimitCounters)
    .values({ key: sql.placeholder('key'), windowStart: sql.placeholder('windowStart'), count: 1 })
    .onConflictDoUpdate({
      target: [rateLimitCounters.key, rateLimitCounters.windowStart],
      set: { count: sql`${rateLimitCounters.count} + 1` },
      setWhere: sql`${rateLimitCounters.count} < ${sql.placeholder('limit')}::integer`,
    })
    .returning({ count: rateLimitCounters.count })
    .prepare('rate_limit_hit'),
)

/** The database's last prune, per database handle (several in-process test servers share a process). */
const lastPrune = new WeakMap<Db, number>()

async function pruneOldWindows(services: Pick<Services, 'db' | 'logger'>, now: number): Promise<void> {
  const last = lastPrune.get(services.db)
  if (last !== undefined && now - last < PRUNE_EVERY_MS && now >= last) return
  lastPrune.set(services.db, now)
  try {
    await services.db.delete(rateLimitCounters).where(lt(rateLimitCounters.windowStart, new Date(now - 2 * WINDOW_MS)))
  } catch (error) {
    services.logger.warn({ err: error }, 'pruning old rate-limit windows failed')
  }
}

/**
 * An onRequest hook for a route behind API-key auth (route-level hooks run after the
 * /api/v1 scope's auth hook, so the principal is known): counts the request against the
 * org's limit for this policy, sets the RateLimit headers, and answers 429 once it is spent.
 * Cost: one upsert (a prepared statement) per request.
 */
export function rateLimit(services: Pick<Services, 'db' | 'clock' | 'config' | 'logger'>, policy: RateLimitPolicy) {
  const { enabled, perHour } = services.config.rateLimits
  const limit = perHour[policy.name] ?? policy.perHour
  const policyHeader = `"${policy.name}";q=${limit};w=${RATE_LIMIT_WINDOW_SECONDS}`

  return async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
    if (!enabled) return
    const { orgId } = principalOf(request)
    const now = services.clock.now().getTime()
    const windowStart = now - (((now % WINDOW_MS) + WINDOW_MS) % WINDOW_MS)
    const [row] = await hit(services.db).execute({ key: `${policy.name}:${orgId}`, windowStart: new Date(windowStart), limit })
    const resetSeconds = Math.max(1, Math.ceil((windowStart + WINDOW_MS - now) / 1000))
    reply.header('ratelimit-policy', policyHeader)
    reply.header('ratelimit', `"${policy.name}";r=${row ? Math.max(0, limit - row.count) : 0};t=${resetSeconds}`)
    await pruneOldWindows(services, now)
    if (!row) {
      reply.header('retry-after', String(resetSeconds))
      throw new AppError('rate_limited', `Rate limit exceeded. Try again in ${describeWait(resetSeconds)}.`)
    }
  }
}

/** "45 seconds", "1 minute", "12 minutes" */
function describeWait(seconds: number): string {
  if (seconds < 60) return `${seconds} second${seconds === 1 ? '' : 's'}`
  const minutes = Math.ceil(seconds / 60)
  return `${minutes} minute${minutes === 1 ? '' : 's'}`
}

/** The limits of the REST routes, per org per hour (the original service's; bulk-send and agent-tool calls as create). */
export const RATE_LIMITS = {
  create: { name: 'create', perHour: 60 },
  bulkSend: { name: 'bulk-send', perHour: 60 },
  void: { name: 'void', perHour: 60 },
  seal: { name: 'seal', perHour: 60 },
  agentTools: { name: 'agent-tools', perHour: 60 },
  listDocuments: { name: 'list-documents', perHour: 120 },
  readDocument: { name: 'read-document', perHour: 300 },
  signedFile: { name: 'signed-file', perHour: 120 },
  certificate: { name: 'certificate', perHour: 120 },
  badge: { name: 'badge', perHour: 120 },
  listTemplates: { name: 'list-templates', perHour: 120 },
  usage: { name: 'usage', perHour: 120 },
  spendCap: { name: 'spend-cap', perHour: 120 },
  /** For the webhook management routes (list, add, update, delete, rotate, deliveries). */
  webhooks: { name: 'webhooks', perHour: 120 },
} as const satisfies Record<string, RateLimitPolicy>
