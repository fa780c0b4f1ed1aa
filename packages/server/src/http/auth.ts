import type { FastifyReply, FastifyRequest } from 'fastify'
import { actorFor, type Actor } from '../actors/actor.ts'
import { authenticateApiKey, type Principal } from '../api-keys/api-keys.ts'
import { FailedKeyLookups } from '../api-keys/failed-key-lookups.ts'
import type { Services } from '../services.ts'
import { AppError } from '../errors.ts'

declare module 'fastify' {
  interface FastifyRequest {
    principal: Principal | null
  }
}

const MISSING_KEY = 'Missing API key. Pass it as a bearer header: Authorization: Bearer <API_KEY>.'

/** The presented key: `Authorization: Bearer <key>`, or the `X-API-Key` header some clients of the original service use. */
function presentedKey(request: FastifyRequest): string | undefined {
  const header = request.headers.authorization
  const match = header ? /^Bearer\s+(\S+)\s*$/i.exec(header) : null
  if (match?.[1]) return match[1]
  const alternative = request.headers['x-api-key']
  return typeof alternative === 'string' && alternative.length > 0 ? alternative : undefined
}

/**
 * onRequest hook for /api/v1: resolves the key to its org before anything else runs. The
 * client's address is request.ip: the socket's peer, or what a proxy trusted by TRUST_PROXY
 * says (so behind a proxy TRUST_PROXY must name it, or every client shares the proxy's address).
 */
export function apiKeyAuth(services: Pick<Services, 'db' | 'principals' | 'clock' | 'config'>) {
  const failedLookups = new FailedKeyLookups(services.config.failedAuthPerMinute, () => services.clock.now().getTime())
  return async (request: FastifyRequest, _reply: FastifyReply): Promise<void> => {
    const key = presentedKey(request)
    if (!key) throw new AppError('missing_api_key', MISSING_KEY)
    request.principal = await authenticateApiKey(services, key, { ip: request.ip, failedLookups })
  }
}

/** The authenticated org of a route behind apiKeyAuth. */
export function principalOf(request: FastifyRequest): Principal {
  if (!request.principal) throw new AppError('missing_api_key', MISSING_KEY)
  return request.principal
}

/**
 * Who acts in a request authenticated by an API key: the key's org, through the given door.
 * REST callers are never counted as agents; every MCP call is one.
 */
export function actorOf(request: FastifyRequest, channel: 'rest' | 'mcp' = 'rest'): Actor {
  return actorFor(principalOf(request), {
    channel,
    authMethod: 'api_key',
    agentTriggered: channel === 'mcp',
    clientName: null,
    ip: request.ip,
    userAgent: request.headers['user-agent'] ?? null,
    user: null,
  })
}
