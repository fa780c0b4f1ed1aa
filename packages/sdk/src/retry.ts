import { retryAfterSeconds } from './errors.ts'
import type { Sendable } from './outgoing.ts'

export interface RetryPolicy {
  /** Retries after the first attempt (3 by default). */
  maxRetries: number
  /** Waits `ms`, or rejects when the signal aborts. Tests pass one that returns at once and records the waits. */
  sleep: (ms: number, signal?: AbortSignal) => Promise<void>
  /** A number in [0, 1) for the jitter. */
  random: () => number
}

const BASE_DELAY_MS = 500
const MAX_DELAY_MS = 8_000

/** The default sleep: a timer that an AbortSignal cancels. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason as Error)
    const onAbort = () => {
      clearTimeout(timer)
      reject(signal?.reason as Error)
    }
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort)
      resolve()
    }, ms)
    signal?.addEventListener('abort', onAbort, { once: true })
  })
}

/** Exponential back-off with jitter: 500 ms, 1 s, 2 s… (capped at 8 s), each between half and all of it, so clients that failed together spread out. */
export const backoffMs = (attempt: number, random: () => number): number => {
  const ceiling = Math.min(MAX_DELAY_MS, BASE_DELAY_MS * 2 ** attempt)
  return Math.round(ceiling / 2 + (random() * ceiling) / 2)
}

/**
 * A request is safe to send again after the connection failed when repeating it cannot do the
 * thing twice: a read, or a POST carrying an Idempotency-Key (the server answers the repeat from
 * the first answer). Anything else might have reached the server, so it is not repeated.
 */
const safeToRepeat = (request: Sendable) => request.method === 'GET' || request.method === 'HEAD' || request.headers.has('idempotency-key')

const MAYBE_TEMPORARY = new Set([409, 429, 503])

/**
 * Whether the API asked to come back later: 429 (rate limit), 503 (busy), or 409 because the
 * first request with this Idempotency-Key is still running (its answer will be replayed).
 */
async function isTemporary(response: Response): Promise<boolean> {
  if (response.status === 429 || response.status === 503) return true
  const body = (await response
    .clone()
    .json()
    .catch(() => null)) as { code?: unknown } | null
  return body?.code === 'idempotency_key_in_progress'
}

/** Sends the request, trying again as the policy allows; returns the last answer (an error answer included). */
export async function fetchWithRetries(fetchOnce: (request: Sendable) => Promise<Response>, request: Sendable, policy: RetryPolicy): Promise<Response> {
  for (let attempt = 0; ; attempt++) {
    const last = attempt >= policy.maxRetries
    let response: Response
    try {
      // A body can be read once: each attempt sends a copy, so the original stays whole for the next.
      response = await fetchOnce(request.body === null ? request : request.clone())
    } catch (error) {
      if (last || request.signal?.aborted || !safeToRepeat(request)) throw error
      await policy.sleep(backoffMs(attempt, policy.random), request.signal)
      continue
    }
    // Only these statuses can ask to come back later; every other answer skips the await.
    if (last || !MAYBE_TEMPORARY.has(response.status) || !(await isTemporary(response))) return response
    const asked = retryAfterSeconds(response)
    await response.body?.cancel()
    await policy.sleep(asked === undefined ? backoffMs(attempt, policy.random) : asked * 1000, request.signal)
  }
}
