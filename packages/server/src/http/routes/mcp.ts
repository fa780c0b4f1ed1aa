import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js'
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify'
import { AppError } from '../../errors.ts'
import { mcpServerFor } from '../../mcp/mcp-server.ts'
import { buildToolbox } from '../../mcp/toolbox.ts'
import { maxBase64Length } from '../../mcp/tools/seal.ts'
import type { Services } from '../../services.ts'
import { actorOf, apiKeyAuth, principalOf } from '../auth.ts'
import { rateLimitCounter, RATE_LIMITS } from '../rate-limit.ts'

/** JSON-RPC's code for errors of the server's own (the range -32000 to -32099); our 429 body uses it. */
const SERVER_ERROR = -32000
/** Room for the JSON around a seal_document call's base64 PDF. */
const JSON_ENVELOPE_BYTES = 64 * 1024

interface JsonRpcMessage {
  id?: string | number | null
  method?: unknown
}

/** The messages of a body: one JSON-RPC message, or a batch (clients of protocol 2025-03-26 may send one). */
const messagesOf = (body: unknown): JsonRpcMessage[] =>
  (Array.isArray(body) ? body : [body]).filter((m): m is JsonRpcMessage => typeof m === 'object' && m !== null)

/** The headers the SDK's transport reads; the rest (authorization above all) stay with Fastify. */
const TRANSPORT_HEADERS = ['accept', 'content-type', 'mcp-protocol-version', 'mcp-session-id', 'last-event-id'] as const

/** The Fastify request as the SDK's web-standard transport reads it (the body is already parsed). */
function webRequestOf(request: FastifyRequest): Request {
  const headers = new Headers()
  for (const name of TRANSPORT_HEADERS) {
    const value = request.headers[name]
    if (typeof value === 'string') headers.set(name, value)
  }
  return new Request(ENDPOINT_URL, { method: request.method, headers })
}
const ENDPOINT_URL = 'http://signet.invalid/api/mcp'

/**
 * The agent-tool endpoint: MCP over Streamable HTTP, stateless (a server per request, JSON
 * responses, no sessions). Authentication, the Origin check and the agent-tools rate limit
 * happen here, before the SDK sees the request; the tools delegate to the same domain
 * functions as the REST routes (mcp/tools).
 */
export const mcpRoutes: FastifyPluginAsync<{ services: Services; version: string }> = async (app, { services, version }) => {
  const toolbox = buildToolbox(services.config)
  const allowedOrigin = new URL(services.config.publicUrl).origin
  const countToolCall = rateLimitCounter(services, RATE_LIMITS.agentTools)
  const bodyLimit = maxBase64Length(services.config.pdfLimits.maxBytes) + JSON_ENVELOPE_BYTES

  /** A browser page of another site must not drive the tools with a key it learned (DNS rebinding). */
  const checkOrigin = async (request: FastifyRequest): Promise<void> => {
    const origin = request.headers.origin
    if (origin !== undefined && origin !== allowedOrigin) {
      throw new AppError('forbidden', `Requests from the web origin ${origin} are not allowed on this endpoint.`)
    }
  }

  /** Every tools/call counts against the org's agent-tools limit; initialize and tools/list do not. Over it: 429 with a JSON-RPC error. */
  const countToolCalls = async (request: FastifyRequest, reply: FastifyReply, messages: JsonRpcMessage[]): Promise<boolean> => {
    const calls = messages.filter((m) => m.method === 'tools/call')
    try {
      for (let i = 0; i < calls.length; i++) await countToolCall(reply, principalOf(request).orgId)
      return true
    } catch (error) {
      if (!(error instanceof AppError) || error.code !== 'rate_limited') throw error
      const id = calls.length === 1 ? (calls[0]?.id ?? null) : null
      await reply.status(429).send({ jsonrpc: '2.0', id, error: { code: SERVER_ERROR, message: error.message } })
      return false
    }
  }

  app.post(
    '/api/mcp',
    { bodyLimit, onRequest: [checkOrigin, apiKeyAuth(services)], config: { bodyLimitSetting: 'PDF_MAX_MB' }, schema: { hide: true } },
    async (request, reply) => {
      if (!(await countToolCalls(request, reply, messagesOf(request.body)))) return reply
      const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true })
      const server = mcpServerFor(toolbox, { services, actor: actorOf(request, 'mcp') }, version)
      // Not closed afterwards: both live for this request only and hold no timer or socket, and
      // closing would cost an error object per request for the handlers that are already done.
      await server.connect(transport)
      const response = await transport.handleRequest(webRequestOf(request), { parsedBody: request.body })
      response.headers.forEach((value, name) => void reply.header(name, value))
      const body = await response.text()
      return reply.status(response.status).header('cache-control', 'no-store').send(body === '' ? undefined : body)
    },
  )

  const stateless = async (_request: FastifyRequest, reply: FastifyReply) =>
    reply
      .status(405)
      .header('allow', 'POST')
      .send({ error: 'This MCP endpoint is stateless: send each JSON-RPC request with POST; there is no stream to open or session to end.' })
  app.get('/api/mcp', { schema: { hide: true } }, stateless)
  app.delete('/api/mcp', { schema: { hide: true } }, stateless)
}
