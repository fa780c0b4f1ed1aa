/**
 * Two checks that need requests of their own: a rate limit shared by the nodes, and a key revoked
 * on one node refused by every node.
 */
import { sleep } from './cluster.ts'
import type { Row } from './checks.ts'
import type { Seeded } from './load.ts'

/** The `usage` policy's limit per hour the drill sets (RATE_LIMITS): the probe asks twice that many. */
export const USAGE_LIMIT = 30
const REVOCATION_BUDGET_MS = 1000
const PROBE_TIMEOUT_MS = 5000

/** 2 × USAGE_LIMIT reads of /usage through the balancer (round robin: every node serves a third), six at a time. */
export async function rateLimitProbe(balancer: string, apiKey: string): Promise<Row> {
  const statuses: number[] = []
  const pending = Array.from({ length: USAGE_LIMIT * 2 }, () => () => fetch(`${balancer}/api/v1/usage`, { headers: { authorization: `Bearer ${apiKey}` } }))
  await Promise.all(
    Array.from({ length: 6 }, async () => {
      for (let next = pending.pop(); next; next = pending.pop()) {
        const response = await next()
        await response.arrayBuffer()
        statuses.push(response.status)
      }
    }),
  )
  const allowed = statuses.filter((s) => s === 200).length
  const refused = statuses.filter((s) => s === 429).length
  return {
    check: `rate limit usage=${USAGE_LIMIT}/h across 3 nodes: answered of ${statuses.length} (429: ${refused})`,
    expected: `≤ ${USAGE_LIMIT}`,
    actual: String(allowed),
    pass: allowed <= USAGE_LIMIT && allowed + refused === statuses.length,
  }
}

async function statusOf(url: string, apiKey: string): Promise<number> {
  try {
    const response = await fetch(url, { headers: { authorization: `Bearer ${apiKey}` }, signal: AbortSignal.timeout(PROBE_TIMEOUT_MS) })
    await response.arrayBuffer()
    return response.status
  } catch {
    return 0
  }
}

/**
 * The owner creates a key in the dashboard, every node serves it (so each has it cached), the
 * owner revokes it through the balancer, and each node is asked until it answers 401.
 */
export async function revokedKeyProbe(balancer: string, nodeUrls: string[], seeded: Seeded): Promise<Row> {
  const json = { 'content-type': 'application/json', origin: balancer }
  const login = await fetch(`${balancer}/api/v1/auth/login`, { method: 'POST', headers: json, body: JSON.stringify(seeded.owner) })
  await login.arrayBuffer()
  const cookie = login.headers.get('set-cookie')?.split(';')[0] ?? ''
  const created = await fetch(`${balancer}/api/v1/keys`, { method: 'POST', headers: { ...json, cookie }, body: JSON.stringify({ name: 'drill revocation' }) })
  if (created.status !== 201) throw new Error(`creating the key: ${created.status} ${await created.text()}`)
  const key = (await created.json()) as { id: string; api_key: string }
  const read = (url: string) => `${url}/api/v1/documents?limit=1`
  const warm = await Promise.all(nodeUrls.map((url) => statusOf(read(url), key.api_key)))
  const revoke = await fetch(`${balancer}/api/v1/keys/${key.id}`, { method: 'DELETE', headers: { origin: balancer, cookie } })
  await revoke.arrayBuffer()
  const revokedAt = Date.now()
  const refusedAfter = await Promise.all(
    nodeUrls.map(async (url) => {
      while (Date.now() - revokedAt < REVOCATION_BUDGET_MS * 5) {
        if ((await statusOf(read(url), key.api_key)) === 401) return Date.now() - revokedAt
        await sleep(20)
      }
      return Number.POSITIVE_INFINITY
    }),
  )
  const slowest = Math.max(...refusedAfter)
  return {
    check: `revoked key (DELETE ${revoke.status}) refused on each of ${nodeUrls.length} nodes within (ms; served before: ${warm.join(',')})`,
    expected: `≤ ${REVOCATION_BUDGET_MS}`,
    actual: refusedAfter.map((ms) => (Number.isFinite(ms) ? String(ms) : 'never')).join(', '),
    pass: revoke.status === 204 && warm.every((s) => s === 200) && slowest <= REVOCATION_BUDGET_MS,
  }
}
