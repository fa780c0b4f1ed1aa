import type { FastifyPluginAsync, FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify'
import { AppError } from '../../errors.ts'
import { INVALID_REQUEST, isSealCall, isToolCall, MAX_BATCH_MESSAGES, messagesOf, replyIdOf } from '../../mcp/json-rpc.ts'
import { startMcpServer } from '../../mcp/mcp-server.ts'
import { buildToolbox } from '../../mcp/toolbox.ts'
import { maxBase64Length } from '../../mcp/tools/seal.ts'
import type { Services } from '../../services.ts'
import { actorOf, mcpAuth, principalOf } from '../auth.ts'
import { rateLimitCounter, RATE_LIMITS } from '../rate-limit.ts'

/** JSON-RPC's code for errors of the server's own (the range -32000 to -32099); our 429 body uses it. */
const SERVER_ERROR = -32000
/** Room for the JSON around a seal_document call's base64 PDF. */
const JSON_ENVELOPE_BYTES = 64 * 1024

/**
 * The agent-tool endpoint: MCP over Streamable HTTP, stateless (JSON responses, no sessions).
 * Authentication, the Origin check, the body's size (BODY_LIMIT but for one seal_document
 * call), the batch size and the rate limits (agent-tools, agent-protocol) happen here, before
 * the SDK sees the request; then the app's one MCP server (mcp/mcp-server.ts) answers it
 * through mcp/json-transport.ts, with the caller this request authenticated. The tools
 * delegate to the same domain functions as the REST routes (mcp/tools).
 */
export const mcpRoutes: FastifyPluginAsync<{ services: Services; version: string }> = async (app, { services, version }) => {
  const mcp = await startMcpServer(buildToolbox(services.config), version)
  const allowedOrigin = new URL(services.config.publicUrl).origin
  const countToolCall = rateLimitCounter(services, RATE_LIMITS.agentTools)
  const countOtherMessage = rateLimitCounter(services, RATE_LIMITS.agentProtocol)
  // Only a seal_document call may be this large; any other body gets BODY_LIMIT (the JSON parser's largeJsonBody check).
  const sealBodyLimit = maxBase64Length(services.config.pdfLimits.maxBytes) + JSON_ENVELOPE_BYTES
  const largeJsonBody = {
    allows: isSealCall,
    refusal: `The request body is larger than ${services.config.bodyLimit} bytes (BODY_LIMIT): only a seal_document call, not in a batch, may be larger (up to ${sealBodyLimit} bytes, from PDF_MAX_MB).`,
  }

  /**
   * A browser page of another site must not drive the tools with a key it learned (DNS rebinding).
   * Callback-style, as every hook of this route that can answer at once: no promise per request.
   */
  const checkOrigin = (request: FastifyRequest, _reply: FastifyReply, done: HookHandlerDoneFunction): void => {
    const origin = request.headers.origin
    if (origin !== undefined && origin !== allowedOrigin) {
      return done(new AppError('forbidden', `Requests from the web origin ${origin} are not allowed on this endpoint.`))
    }
    done()
  }

  /** 429 with a JSON-RPC error, for a rate limit's refusal; anything else is thrown on. */
  const refuseOverLimit = (reply: FastifyReply, error: unknown, id: string | number | null): void => {
    if (!(error instanceof AppError) || error.code !== 'rate_limited') throw error
    void reply.status(429).send({ jsonrpc: '2.0', id, error: { code: SERVER_ERROR, message: error.message } })
  }

  /**
   * A body larger than BODY_LIMIT can only be one seal_document call: it is counted against
   * agent-tools before it is read, so that an org past its limit cannot have 37 MB bodies read
   * and parsed only to be told so. (The JSON parser refuses a larger body that does not declare its size.)
   */
  const countedBeforeReading = new WeakSet<FastifyRequest>()
  const countLargeCall = (request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction): void => {
    if (!(Number(request.headers['content-length']) > services.config.bodyLimit)) return done()
    const counted = () => {
      countedBeforeReading.add(request)
      done()
    }
    // Answered with the 429 (and `done` not called) when over the limit.
    const refused = (error: unknown) => {
      try {
        refuseOverLimit(reply, error, null)
      } catch (other) {
        done(other as Error)
      }
    }
    let pending: Promise<void> | undefined
    try {
      pending = countToolCall(reply, principalOf(request).orgId)
    } catch (error) {
      return refused(error)
    }
    if (pending) pending.then(counted, refused)
    else counted()
  }

  /**
   * Every message of the body counts against one of the org's limits: a tools/call against
   * agent-tools (unless countLargeCall counted it already), anything else (initialize,
   * tools/list, ping, notifications) against agent-protocol; over either, 429 with a JSON-RPC
   * error. A batch longer than MAX_BATCH_MESSAGES is refused (400) before anything is counted.
   * False once the request is answered with a refusal. A promise only when a count must ask
   * the database (rateLimitCounter): nearly every request is counted without one.
   */
  const countMessages = (request: FastifyRequest, reply: FastifyReply, messages: unknown[]): boolean | Promise<boolean> => {
    const id = replyIdOf(messages)
    if (messages.length > MAX_BATCH_MESSAGES) {
      const message = `A batch may hold at most ${MAX_BATCH_MESSAGES} messages; this one holds ${messages.length}.`
      void reply.status(400).send({ jsonrpc: '2.0', id, error: { code: INVALID_REQUEST, message } })
      return false
    }
    const { orgId } = principalOf(request)
    let counted = countedBeforeReading.has(request)
    const refused = (error: unknown): false => {
      refuseOverLimit(reply, error, id)
      return false
    }
    /** Counts messages[from…], in order, stopping at the first refusal. */
    const countFrom = (from: number): boolean | Promise<boolean> => {
      for (let index = from; index < messages.length; index++) {
        const message = messages[index]
        if (isToolCall(message) && counted) {
          counted = false
          continue
        }
        let pending: Promise<void> | undefined
        try {
          pending = (isToolCall(message) ? countToolCall : countOtherMessage)(reply, orgId)
        } catch (error) {
          return refused(error)
        }
        if (pending) return pending.then(() => countFrom(index + 1), refused)
      }
      return true
    }
    return countFrom(0)
  }

  app.post(
    '/api/mcp',
    {
      bodyLimit: sealBodyLimit,
      onRequest: [checkOrigin, mcpAuth(services), countLargeCall],
      config: { bodyLimitSetting: 'PDF_MAX_MB', largeJsonBody },
      schema: { hide: true },
    },
    async (request, reply) => {
      const counted = countMessages(request, reply, messagesOf(request.body))
      if (counted === false || (counted !== true && !(await counted))) return reply
      const answer = await mcp.answer(request.headers, request.body, { services, actor: actorOf(request, 'mcp') })
      if (answer.body !== undefined) void reply.header('content-type', 'application/json')
      return reply.status(answer.status).header('cache-control', 'no-store').send(answer.body)
    },
  )

  const stateless = async (_request: FastifyRequest, reply: FastifyReply) =>
    reply
      .status(405)
      .header('allow', 'POST')
      .send(
        new AppError(
          'method_not_allowed',
          'This MCP endpoint is stateless: send each JSON-RPC request with POST; there is no stream to open or session to end.',
        ).body,
      )
  app.get('/api/mcp', { schema: { hide: true } }, stateless)
  app.delete('/api/mcp', { schema: { hide: true } }, stateless)
}
