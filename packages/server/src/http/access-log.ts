import { LogController, type FastifyReply, type FastifyRequest } from 'fastify'

/**
 * One access-log line per request ("request completed", with the request, the status and the
 * time taken) instead of Fastify's two. The "incoming request" line moves to debug, where a
 * request that never completes can still be traced. Each line costs a JSON serialization, the
 * secret scan of lib/logger.ts and a write: a few µs of a read's ~180 (docs/benchmarks.md, issue 21).
 */
export class AccessLogController extends LogController {
  override incomingRequest(request: FastifyRequest): void {
    request.log.debug({ req: request }, 'incoming request')
  }

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    if (error) reply.log.error({ req: request, res: reply, err: error, responseTime: reply.elapsedTime }, 'request errored')
    else reply.log.info({ req: request, res: reply, responseTime: reply.elapsedTime }, 'request completed')
  }
}
