import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { bulkSend } from '../../documents/bulk-send.ts'
import { invalid } from '../../errors.ts'
import type { Services } from '../../services.ts'
import { actorOf } from '../auth.ts'
import { rateLimit, RATE_LIMITS } from '../rate-limit.ts'
import { ErrorBody, PaymentRequiredBody, withCommonErrors } from '../schemas.ts'
import { BulkSendBody, BulkSendCreated, MAX_BULK_RECIPIENTS } from '../../documents/documents.schemas.ts'

/** 10,000 recipients of ~100 bytes each, with room to spare. */
const BULK_BODY_LIMIT = 4 * 1024 * 1024

const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,255}$/

export const bulkSendRoutes: FastifyPluginAsyncTypebox<{ services: Services }> = async (app, { services }) => {
  app.post(
    '/documents/bulk-send',
    {
      onRequest: rateLimit(services, RATE_LIMITS.bulkSend),
      bodyLimit: BULK_BODY_LIMIT,
      schema: {
        tags: ['Documents'],
        operationId: 'bulkSendDocuments',
        summary: 'Send one template to many recipients (Team plan and higher)',
        description: `One single-signer document per recipient (at most ${MAX_BULK_RECIPIENTS}; a repeated e-mail address is sent once). Send an \`Idempotency-Key\` header to make the request safe to repeat: a finished request is replayed, an interrupted one resumes without sending anyone twice.`,
        body: BulkSendBody,
        response: withCommonErrors({
          201: BulkSendCreated,
          400: ErrorBody,
          402: { ...PaymentRequiredBody, description: 'Below the Team plan, or the spend cap was already reached ({error, upgrade: true})' },
          409: { ...ErrorBody, description: 'The Idempotency-Key was used with another body, or its request is still running' },
        }),
      },
    },
    async (request, reply) => {
      const key = request.headers['idempotency-key']
      if (key !== undefined && (typeof key !== 'string' || !IDEMPOTENCY_KEY.test(key))) {
        throw invalid('Idempotency-Key must be 1 to 255 visible ASCII characters.')
      }
      const result = await bulkSend(services, actorOf(request), request.body, { idempotencyKey: key })
      return reply.status(201).send(result)
    },
  )
}
