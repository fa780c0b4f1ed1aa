import Fastify, { type FastifyInstance, type FastifyPluginAsync, type FastifyReply, type onResponseHookHandler } from 'fastify'
import type { Config } from '../../config.ts'
import { AppError } from '../../errors.ts'
import { digestsEqual, sha256Hex } from '../../lib/crypto.ts'
import type { Logger } from '../../lib/logger.ts'
import type { Metrics } from '../../metrics/metrics.ts'
import { installErrorHandler } from '../error-handler.ts'
import { NosniffServerResponse } from '../security-headers.ts'

/** The route label of a request no route matched (never its URL: every scanned path would be a series of its own). */
export const UNMATCHED_ROUTE = 'unmatched'

/**
 * The onResponse hook that times every request: one histogram observation, labelled by the
 * route's pattern (`/api/v1/documents/:id`), never by the raw URL. A callback hook: it runs on
 * every response, and a promise each would be measurable.
 */
export function timeRequests(metrics: Metrics): onResponseHookHandler {
  return (request, reply, done) => {
    metrics.observeRequest(request.method, request.routeOptions.url ?? UNMATCHED_ROUTE, reply.statusCode, reply.elapsedTime / 1000)
    done()
  }
}

const WRONG_TOKEN = new AppError(
  'unauthenticated',
  'The metrics need the token set in METRICS_TOKEN, sent as "Authorization: Bearer <token>".',
  {},
  {
    'www-authenticate': 'Bearer realm="metrics"',
  },
)

/** Whether the request's Authorization header carries the token (compared as SHA-256 digests in constant time). */
function carriesToken(authorization: string | undefined, tokenDigest: string): boolean {
  const match = /^Bearer +(\S+)\s*$/i.exec(authorization ?? '')
  return match?.[1] !== undefined && digestsEqual(sha256Hex(match[1]), tokenDigest)
}

async function sendScrape(metrics: Metrics, reply: FastifyReply): Promise<FastifyReply> {
  const { contentType, text } = await metrics.scrape()
  return reply.header('content-type', contentType).header('cache-control', 'no-store').send(text)
}

/**
 * GET /metrics in Prometheus's text format. With `token` (METRICS_TOKEN, on the main port) a
 * request must present it, or gets 401; without (the METRICS_PORT listener) anyone who can reach
 * the listener reads it, which is why that listener is on 127.0.0.1 unless METRICS_HOST says otherwise.
 */
export const metricsRoutes: FastifyPluginAsync<{ metrics: Metrics; token?: string }> = async (app, { metrics, token }) => {
  // Only the digest stays in memory; comparing digests also makes the comparison's time independent of the token's length.
  const tokenDigest = token === undefined ? undefined : sha256Hex(token)
  app.get('/metrics', { schema: { hide: true } }, async (request, reply) => {
    if (tokenDigest && !carriesToken(request.headers.authorization, tokenDigest)) throw WRONG_TOKEN
    return sendScrape(metrics, reply)
  })
}

/**
 * METRICS_PORT: a listener of its own that serves only GET /metrics, without a token, so that
 * a scraper on the same host (or network, with METRICS_HOST) never holds a secret and the main
 * port need not expose the route at all. Resolves once it listens; close() it on shutdown.
 */
export async function listenForMetrics(
  metrics: Metrics,
  options: Pick<Config['metrics'], 'host'> & { port: number },
  logger: Logger,
): Promise<FastifyInstance> {
  const app = Fastify({
    loggerInstance: logger,
    // A scrape every few seconds would fill the access log.
    disableRequestLogging: true,
    forceCloseConnections: true,
    // A scrape is one small GET: nothing needs long.
    requestTimeout: 30_000,
    connectionTimeout: 60_000,
    http: { ServerResponse: NosniffServerResponse },
  })
  installErrorHandler(app, 1024)
  await app.register(metricsRoutes, { metrics })
  await app.listen({ port: options.port, host: options.host })
  return app
}
