import { createHash } from 'node:crypto'
import type { FastifyReply, FastifyRequest, onSendAsyncHookHandler, preHandlerAsyncHookHandler, preValidationAsyncHookHandler } from 'fastify'
import { Type } from 'typebox'
import { validationFailed } from '../errors.ts'
import { claimKey, releaseKey, storeAnswer, type KeyedRequest } from '../idempotency/idempotent-requests.ts'
import type { Services } from '../services.ts'
import { principalOf } from './auth.ts'
import { ErrorBody } from './schemas.ts'

const HEADER = 'idempotency-key'
/** 1 to 255 visible ASCII characters: no space, no control character, nothing beyond ASCII. */
const KEY_PATTERN = '^[\\x21-\\x7e]{1,255}$'
const KEY_SHAPE = new RegExp(KEY_PATTERN)

/** The request header, for a route's schema: it documents the key's shape in the OpenAPI document (keyCheck refuses a malformed one first). */
export const IdempotencyKeyHeaders = Type.Object({
  [HEADER]: Type.Optional(
    Type.String({
      pattern: KEY_PATTERN,
      description:
        'Extension: makes the request safe to repeat (1 to 255 visible ASCII characters, e.g. a UUID). For 24 hours, a repeat with the same key and ' +
        'the same request gets the first successful answer again, with the header Idempotent-Replayed: true, and changes nothing. ' +
        'The same key with another request is 409 idempotency_key_reused; a repeat while the first still runs is 409 idempotency_key_in_progress ' +
        'with Retry-After. A failed request keeps no answer: its repeat runs again. A first request that never answered (its server stopped) ' +
        'is reported after two minutes as 409 conflict: whether it took effect is unknown, so check, then use a new key.',
    }),
  ),
})

/** The 409 an idempotent route adds to its responses (a route that has a 409 of its own names both in one description). */
export const idempotencyConflict = (otherwise?: string) => ({
  ...ErrorBody,
  description:
    (otherwise ? `${otherwise}; or ` : '') +
    'Extension: the Idempotency-Key was used with another request (idempotency_key_reused), or its first request is still running (idempotency_key_in_progress, see Retry-After), ' +
    'or never answered because its server stopped (conflict: check whether it took effect, then use a new key)',
})

/*
 * The schema's pattern would refuse a malformed key too, but its error names the regex; this check
 * runs before the schema's (preValidation) and says what a key must be, in words.
 */
const MALFORMED_KEY = 'Idempotency-Key must be 1 to 255 printable ASCII characters (no spaces), such as a UUID.'

const keyCheck: preValidationAsyncHookHandler = async (request) => {
  const key = request.headers[HEADER]
  if (key !== undefined && (typeof key !== 'string' || !KEY_SHAPE.test(key))) throw validationFailed(MALFORMED_KEY, `/${HEADER}`)
}

const held = new WeakMap<FastifyRequest, KeyedRequest>()

/** What identifies "the same request": the query string and the body, byte for byte for a file, as parsed JSON otherwise. */
function requestHash(request: FastifyRequest): string {
  const hash = createHash('sha256')
    .update(JSON.stringify(request.query ?? {}))
    .update('\n')
  return (Buffer.isBuffer(request.body) ? hash.update(request.body) : hash.update(JSON.stringify(request.body ?? null))).digest('hex')
}

/**
 * Extension: the `Idempotency-Key` header on a create route. Spread into the route's options:
 * a malformed key is refused before the body is validated; before the handler, the key is claimed (or the stored answer is replayed); on the way out, a
 * successful answer is stored for the repeats and a failure frees the key.
 */
export function idempotentRoute(services: Services): {
  preValidation: preValidationAsyncHookHandler
  preHandler: preHandlerAsyncHookHandler
  onSend: onSendAsyncHookHandler
} {
  const { db, clock, logger } = services
  const store = { db, secrets: services.secrets }

  const preHandler = async (request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply | undefined> => {
    const key = request.headers[HEADER]
    if (typeof key !== 'string') return undefined
    const keyed = { orgId: principalOf(request).orgId, route: `${request.method} ${request.routeOptions.url}`, key, requestHash: requestHash(request) }
    const stored = await claimKey(store, keyed, clock.now())
    if (!stored) {
      held.set(request, keyed)
      return undefined
    }
    // The stored body is the JSON text first sent: it goes out as it is, not through the response schema again.
    return reply.status(stored.status).header('content-type', 'application/json; charset=utf-8').header('idempotent-replayed', 'true').send(stored.body)
  }

  const onSend = async (request: FastifyRequest, reply: FastifyReply, payload: unknown): Promise<unknown> => {
    const keyed = held.get(request)
    if (!keyed) return payload
    held.delete(request)
    const succeeded = reply.statusCode >= 200 && reply.statusCode < 300 && typeof payload === 'string'
    try {
      if (succeeded) await storeAnswer(store, keyed, { status: reply.statusCode, body: payload })
      else await releaseKey(db, keyed)
    } catch (error) {
      // The answer still goes out; a repeat of this key is then told the request is in progress until the key expires.
      logger.error({ err: error, route: keyed.route }, 'could not record the answer of an idempotent request')
    }
    return payload
  }

  return { preValidation: keyCheck, preHandler, onSend }
}
