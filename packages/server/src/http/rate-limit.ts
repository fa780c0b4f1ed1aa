import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify'
import { AppError } from '../errors.ts'
import {
  consumeRateLimit,
  consumeRateLimitNow,
  limitOf,
  RATE_LIMIT_WINDOW_SECONDS,
  type RateLimitDecision,
  type RateLimitPolicy,
} from '../rate-limits/consume-rate-limit.ts'
import type { Services } from '../services.ts'
import { principalOf } from './auth.ts'

export { RATE_LIMITS } from '../rate-limits/consume-rate-limit.ts'

type RateLimitServices = Pick<Services, 'db' | 'clock' | 'config' | 'logger'>

/**
 * Counts one request of an org against a policy (rate-limits/consume-rate-limit.ts), sets the
 * headers on the reply, and throws the 429 once the limit is spent.
 *
 * Headers follow draft-ietf-httpapi-ratelimit-headers (-10): every response of a limited route
 * carries `RateLimit-Policy: "create";q=60;w=3600` and `RateLimit: "create";r=<left>;t=<seconds
 * to reset>`; a 429 adds `Retry-After` with the same number of seconds.
 *
 * The returned function answers synchronously when this process's lease decides (nearly every
 * request: no promise, no await), and returns a promise only when the database must be asked.
 * A refusal is thrown (synchronously, or as the promise's rejection).
 */
export function rateLimitCounter(services: RateLimitServices, policy: RateLimitPolicy) {
  const limit = limitOf(services.config, policy)
  const policyHeader = `"${policy.name}";q=${limit};w=${RATE_LIMIT_WINDOW_SECONDS}`
  const apply = (reply: FastifyReply, decision: RateLimitDecision): void => {
    reply.header('ratelimit-policy', policyHeader)
    reply.header('ratelimit', `"${policy.name}";r=${decision.remaining};t=${decision.resetSeconds}`)
    if (!decision.allowed) {
      reply.header('retry-after', String(decision.resetSeconds))
      throw new AppError('rate_limited', `Rate limit exceeded. Try again in ${describeWait(decision.resetSeconds)}.`)
    }
  }

  return (reply: FastifyReply, orgId: string): Promise<void> | undefined => {
    if (limit === null) return undefined
    const decision = consumeRateLimitNow(services, policy, orgId)
    if (decision) return void apply(reply, decision)
    return consumeRateLimit(services, policy, orgId).then((leased) => apply(reply, leased))
  }
}

/**
 * An onRequest hook for a route behind API-key auth (route-level hooks run after the
 * /api/v1 scope's auth hook, so the principal is known): one request of the org against the policy.
 * Callback-style, so that a request the lease answers costs no promise.
 */
export function rateLimit(services: RateLimitServices, policy: RateLimitPolicy) {
  const count = rateLimitCounter(services, policy)
  return (request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction): void => {
    let pending: Promise<void> | undefined
    try {
      pending = count(reply, principalOf(request).orgId)
    } catch (error) {
      return done(error as Error)
    }
    if (pending) pending.then(() => done(), done)
    else done()
  }
}

/** "45 seconds", "1 minute", "12 minutes" */
function describeWait(seconds: number): string {
  if (seconds < 60) return `${seconds} second${seconds === 1 ? '' : 's'}`
  const minutes = Math.ceil(seconds / 60)
  return `${minutes} minute${minutes === 1 ? '' : 's'}`
}
