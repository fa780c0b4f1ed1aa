import type { Config } from '../config.ts'

/**
 * Fastify's server options for Config.connections. Without them a client could hold a
 * connection forever by trickling its body a byte at a time (Fastify disables Node's request
 * timeout) or by never reading the response.
 */
export function connectionOptions(limits: Config['connections']) {
  return {
    requestTimeout: limits.requestTimeoutMs,
    connectionTimeout: limits.idleTimeoutMs,
    keepAliveTimeout: limits.keepAliveTimeoutMs,
    maxRequestsPerSocket: limits.maxRequestsPerSocket,
    http: {
      // Node's 60 s for the headers, but never above the request timeout: Node would then swap the two.
      headersTimeout: Math.min(60_000, limits.requestTimeoutMs),
      // Node looks for timed-out requests every 30 s by default; a shorter timeout is checked at a tenth of itself, so it holds within 10 %.
      connectionsCheckingInterval: Math.min(30_000, Math.ceil(limits.requestTimeoutMs / 10)),
    },
  }
}
