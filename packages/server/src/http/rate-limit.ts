import type { FastifyReply, FastifyRequest } from 'fastify'
import { AppError } from '../errors.ts'
import { consumeRateLimit, limitOf, RATE_LIMIT_WINDOW_SECONDS, type RateLimitPolicy } from '../rate-limits/consume-rate-limit.ts'
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
 */
export function rateLimitCounter(services: RateLimitServices, policy: RateLimitPolicy) {
  const limit = limitOf(services.config, policy)
  const policyHeader = `"${policy.name}";q=${limit};w=${RATE_LIMIT_WINDOW_SECONDS}`

  return async (reply: FastifyReply, orgId: string): Promise<void> => {
    if (limit === null) return
    const decision = await consumeRateLimit(services, policy, orgId)
    reply.header('ratelimit-policy', policyHeader)
    reply.header('ratelimit', `"${policy.name}";r=${decision.remaining};t=${decision.resetSeconds}`)
    if (!decision.allowed) {
      reply.header('retry-after', String(decision.resetSeconds))
      throw new AppError('rate_limited', `Rate limit exceeded. Try again in ${describeWait(decision.resetSeconds)}.`)
    }
  }
}

/**
 * An onRequest hook for a route behind API-key auth (route-level hooks run after the
 * /api/v1 scope's auth hook, so the principal is known): one request of the org against the policy.
 */
export function rateLimit(services: RateLimitServices, policy: RateLimitPolicy) {
  const count = rateLimitCounter(services, policy)
  return (request: FastifyRequest, reply: FastifyReply): Promise<void> => count(reply, principalOf(request).orgId)
}

/** "45 seconds", "1 minute", "12 minutes" */
function describeWait(seconds: number): string {
  if (seconds < 60) return `${seconds} second${seconds === 1 ? '' : 's'}`
  const minutes = Math.ceil(seconds / 60)
  return `${minutes} minute${minutes === 1 ? '' : 's'}`
}
