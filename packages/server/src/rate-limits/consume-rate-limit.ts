import { lt, sql } from 'drizzle-orm'
import type { Db } from '../db/client.ts'
import { rateLimitCounters } from '../db/schema.ts'
import { preparedPer } from '../lib/prepared.ts'
import type { Services } from '../services.ts'

/**
 * Per-org request limits, shared by every server process and never exceeded.
 *
 * Fixed windows of one hour aligned to the UTC clock hour (10:00:00–10:59:59), counted in one
 * database row per (policy, org, hour). A process does not write that row for every request:
 * it leases a few requests at a time (one upsert grants up to `leaseSize` and adds them to
 * the row, never past the limit) and serves them from memory. Every request served was
 * granted by the row, so all processes together stay within the limit; a lease shrinks to
 * one request as the window fills, so near the limit the count is exact, and what a process
 * leased but did not use is lost only when the hour ends. A client may burst up to twice the
 * limit across a window boundary; the reset time is the same for every client (the original
 * service uses fixed windows too).
 */

export const RATE_LIMIT_WINDOW_SECONDS = 3600
const WINDOW_MS = RATE_LIMIT_WINDOW_SECONDS * 1000
/** Old windows are deleted at most this often per process (by whichever request comes then). */
const PRUNE_EVERY_MS = 10 * 60 * 1000
/**
 * A lease is at most this many requests, and at most a twentieth of what is left of the window.
 * At thousands of requests a second a lease of 50 cost a database write every 50 requests
 * (docs/benchmarks.md); near the limit the twentieth is the smaller bound, so the count stays exact.
 */
const MAX_LEASE = 200
const LEASE_SHARE = 20

export interface RateLimitPolicy {
  /** The policy's name: part of the counter key and of the headers ('create', 'read-document', …). */
  name: string
  /** Requests per org per hour, unless RATE_LIMITS overrides this policy. */
  perHour: number
}

/** The limits of the API, per org per hour (the original service's; bulk-send and agent-tool calls as create). */
export const RATE_LIMITS = {
  create: { name: 'create', perHour: 60 },
  bulkSend: { name: 'bulk-send', perHour: 60 },
  void: { name: 'void', perHour: 60 },
  seal: { name: 'seal', perHour: 60 },
  agentTools: { name: 'agent-tools', perHour: 60 },
  /**
   * Every other MCP message (initialize, tools/list, ping, notifications): an agent host sends
   * three when it connects, and a tools/list answer is ~400 KB, so these are limited too.
   */
  agentProtocol: { name: 'agent-protocol', perHour: 600 },
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
  /** Reading and editing single templates (the dashboard's editor: upload, fields, rename, delete, duplicate, PDF). */
  templates: { name: 'templates', perHour: 600 },
  /** Re-sending a signer's invitation mail (each signer also waits between re-sends). */
  resend: { name: 'resend', perHour: 60 },
  /** A document's audit trail. */
  audit: { name: 'audit', perHour: 300 },
  /** Extension: embed URLs for signers (one per time a signer opens the integrator's signing page). */
  embed: { name: 'embed', perHour: 600 },
  /** Per client address, not per org (accounts/address-limits.ts): sign-in attempts of any account. */
  signIn: { name: 'sign-in', perHour: 100 },
  /** Per client address: sign-ups, password-reset requests and resent verifications, each of which mails someone. */
  accountMail: { name: 'account-mail', perHour: 30 },
  /** Per client address: OAuth dynamic client registrations (an agent registers once per install). */
  clientRegistration: { name: 'client-registration', perHour: 30 },
} as const satisfies Record<string, RateLimitPolicy>

/**
 * What counting a request needs. The metrics recorder is optional so that callers holding a narrower
 * bag (the account code's) still compile; at run time they all pass the services, which carry it.
 */
export type RateLimitServices = Pick<Services, 'db' | 'clock' | 'config' | 'logger'> & Partial<Pick<Services, 'metrics'>>

export interface RateLimitDecision {
  allowed: boolean
  /** The policy's limit per hour (after RATE_LIMITS overrides). */
  limit: number
  /** Requests left in this window, as this process sees it. */
  remaining: number
  /** Seconds until the window resets. */
  resetSeconds: number
}

/**
 * Adds up to `want` requests to the window's row, never past `limit`, and returns the row's
 * new count and how many this call got (`last_grant`, computed from the old count in the same
 * statement). Nothing is written once the window is full.
 */
const lease = preparedPer((db) =>
  db
    .insert(rateLimitCounters)
    .values({
      key: sql.placeholder('key'),
      windowStart: sql.placeholder('windowStart'),
      count: sql`least(${sql.placeholder('want')}::integer, ${sql.placeholder('limit')}::integer)`,
      lastGrant: sql`least(${sql.placeholder('want')}::integer, ${sql.placeholder('limit')}::integer)`,
    })
    .onConflictDoUpdate({
      target: [rateLimitCounters.key, rateLimitCounters.windowStart],
      set: {
        count: sql`least(${rateLimitCounters.count} + ${sql.placeholder('want')}::integer, ${sql.placeholder('limit')}::integer)`,
        lastGrant: sql`least(${rateLimitCounters.count} + ${sql.placeholder('want')}::integer, ${sql.placeholder('limit')}::integer) - ${rateLimitCounters.count}`,
      },
      setWhere: sql`${rateLimitCounters.count} < ${sql.placeholder('limit')}::integer`,
    })
    .returning({ count: rateLimitCounters.count, granted: rateLimitCounters.lastGrant })
    .prepare('rate_limit_lease'),
)

interface Lease {
  windowStart: number
  /** Requests this process may still serve from this lease. */
  left: number
  /** The row's count when this process last leased (every process's grants). */
  counted: number
  /** Below this many left, the next lease is fetched in the background. */
  lowWater: number
}

/** This process's leases, per database (test servers in one process each have their own). */
const leasesOf = new WeakMap<Db, Map<string, Lease>>()
/** Leases being fetched: concurrent requests of one key wait for one fetch instead of each leasing a chunk. */
const fetchingOf = new WeakMap<Db, Map<string, Promise<void>>>()
/** The database's last prune, per database handle. */
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

/** The limit a policy has on this instance (RATE_LIMITS may override it); null when limits are off. */
export function limitOf(config: Services['config'], policy: RateLimitPolicy): number | null {
  return config.rateLimits.enabled ? (config.rateLimits.perHour[policy.name] ?? policy.perHour) : null
}

function perDb<T>(map: WeakMap<Db, Map<string, T>>, db: Db): Map<string, T> {
  let found = map.get(db)
  if (!found) map.set(db, (found = new Map<string, T>()))
  return found
}

/** The start (epoch ms) of the UTC clock hour `now` falls in; correct for times before 1970 too. */
const windowStartOf = (now: number): number => now - (((now % WINDOW_MS) + WINDOW_MS) % WINDOW_MS)

/**
 * Counts one request of `orgId` against `policy` from this process's lease, without waiting:
 * the decision when the lease has room (or the window is known to be full), undefined when the
 * database must be asked (consumeRateLimit). The read routes take this path on nearly every
 * request, so it allocates nothing it can avoid and never awaits; when the lease runs low, the
 * next one is fetched in the background, so requests do not queue behind that round trip.
 */
export function consumeRateLimitNow(services: RateLimitServices, policy: RateLimitPolicy, orgId: string): RateLimitDecision | undefined {
  const limit = limitOf(services.config, policy)
  if (limit === null) return { allowed: true, limit: Number.POSITIVE_INFINITY, remaining: Number.POSITIVE_INFINITY, resetSeconds: RATE_LIMIT_WINDOW_SECONDS }
  const key = `${policy.name}:${orgId}`
  const current = perDb(leasesOf, services.db).get(key)
  if (!current) return undefined
  const now = services.clock.now().getTime()
  const windowStart = windowStartOf(now)
  if (current.windowStart !== windowStart) return undefined
  const resetSeconds = Math.max(1, Math.ceil((windowStart + WINDOW_MS - now) / 1000))
  if (current.left > 0) {
    current.left--
    if (current.left < current.lowWater) refillInBackground(services, key, { windowStart, now, limit, counted: current.counted })
    return { allowed: true, limit, remaining: Math.max(0, limit - current.counted + current.left), resetSeconds }
  }
  // A full window stays full until it ends (nothing is ever given back): refuse without asking the database.
  if (current.counted >= limit) {
    // Every refusal, per org or per address, leaves through here (consumeRateLimit returns this function's decisions).
    services.metrics?.rateLimitRefused(policy.name)
    return { allowed: false, limit, remaining: 0, resetSeconds }
  }
  return undefined
}

/** Counts one request of `orgId` against `policy`: allowed, or not until the window resets. */
export async function consumeRateLimit(services: RateLimitServices, policy: RateLimitPolicy, orgId: string): Promise<RateLimitDecision> {
  const key = `${policy.name}:${orgId}`
  for (;;) {
    const decision = consumeRateLimitNow(services, policy, orgId)
    if (decision) return decision
    const limit = limitOf(services.config, policy) ?? Number.POSITIVE_INFINITY
    const now = services.clock.now().getTime()
    const windowStart = windowStartOf(now)
    const current = perDb(leasesOf, services.db).get(key)
    await leaseOnce(services, key, { windowStart, now, limit, counted: current?.windowStart === windowStart ? current.counted : 0 })
  }
}

interface LeaseWindow {
  windowStart: number
  now: number
  limit: number
  /** The row's count as this process last saw it in this window (0 for a window it has not leased from). */
  counted: number
}

/** One fetch per key at a time: concurrent requests (and a background refill) wait for the fetch in flight. */
function leaseOnce(services: Pick<Services, 'db' | 'logger'>, key: string, window: LeaseWindow): Promise<void> {
  const fetching = perDb(fetchingOf, services.db)
  const inFlight = fetching.get(key)
  if (inFlight) return inFlight
  const fetch = fetchLease(services, key, window).finally(() => fetching.delete(key))
  fetching.set(key, fetch)
  return fetch
}

/** Tops the lease up before it runs out; a failure is only logged (the next request that finds the lease empty asks again). */
function refillInBackground(services: Pick<Services, 'db' | 'logger'>, key: string, window: LeaseWindow): void {
  if (perDb(fetchingOf, services.db).has(key)) return
  leaseOnce(services, key, window).catch((error: unknown) => services.logger.warn({ err: error, key }, 'refilling a rate-limit lease failed'))
}

/** Leases more requests for `key` from the window's row (up to a twentieth of what is left, at most MAX_LEASE), added to what this process still holds. */
async function fetchLease(services: Pick<Services, 'db' | 'logger'>, key: string, window: LeaseWindow): Promise<void> {
  const { windowStart, limit } = window
  const want = Math.max(1, Math.min(MAX_LEASE, Math.floor((limit - window.counted) / LEASE_SHARE)))
  const [row] = await lease(services.db).execute({ key, windowStart: new Date(windowStart), want, limit })
  await pruneOldWindows(services, window.now)
  const leases = perDb(leasesOf, services.db)
  const current = leases.get(key)
  const held = current?.windowStart === windowStart ? current.left : 0
  const granted = row?.granted ?? 0
  // Refill when half of this grant is spent: the next lease arrives before the last one runs out.
  leases.set(key, { windowStart, left: held + Math.max(0, granted), counted: granted > 0 && row ? row.count : limit, lowWater: Math.floor(granted / 2) })
}
