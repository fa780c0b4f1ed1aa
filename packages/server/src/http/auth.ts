import type { FastifyReply, FastifyRequest } from 'fastify'
import { authenticateApiKey, type Principal } from '../api-keys/api-keys.ts'
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

/** onRequest hook for /api/v1: resolves the key to its org before anything else runs. */
export function apiKeyAuth(services: Pick<Services, 'db' | 'principals'>) {
  return async (request: FastifyRequest, _reply: FastifyReply): Promise<void> => {
    const key = presentedKey(request)
    if (!key) throw new AppError('missing_api_key', MISSING_KEY)
    request.principal = await authenticateApiKey(services, key)
  }
}

/** The authenticated org of a route behind apiKeyAuth. */
export function principalOf(request: FastifyRequest): Principal {
  if (!request.principal) throw new AppError('missing_api_key', MISSING_KEY)
  return request.principal
}
