import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { AppError } from '../../errors.ts'
import { binaryBodyParser } from '../binary-body.ts'
import { getSeal, requestSeal } from '../../seal/request-seal.ts'
import type { Services } from '../../services.ts'
import { actorOf, principalOf } from '../auth.ts'
import { rateLimit, RATE_LIMITS } from '../rate-limit.ts'
import { idempotencyConflict, IdempotencyKeyHeaders, idempotentRoute } from '../idempotency.ts'
import { DocumentIdParams, ErrorBody, PaymentRequiredBody, withCommonErrors } from '../schemas.ts'
import { PdfBody, SealQuery, SealView } from '../../seal/seal.schemas.ts'

const tags = ['Seals']
const PDF = 'application/pdf'

/**
 * Self-sealing over REST (an extension: the spec offers sealing through the agent
 * tools; both call requestSeal). The PDF is the raw body, so it is not inflated by base64.
 */
export const sealRoutes: FastifyPluginAsyncTypebox<{ services: Services }> = async (app, { services }) => {
  // This plugin's routes take PDFs, and only PDFs, up to PDF_MAX_MB.
  const bodyLimit = services.config.pdfLimits.maxBytes
  app.removeAllContentTypeParsers()
  app.addContentTypeParser(PDF, { bodyLimit }, binaryBodyParser(bodyLimit))

  app.post(
    '/seals',
    {
      onRequest: rateLimit(services, RATE_LIMITS.seal),
      ...idempotentRoute(services),
      bodyLimit,
      config: { accepts: PDF, bodyLimitSetting: 'PDF_MAX_MB' },
      schema: {
        tags,
        operationId: 'createSeal',
        summary: 'Seal a finished PDF: PAdES signature with an RFC 3161 timestamp, Verified Badge and certificate',
        description:
          "Needs the org's one-time identity check. Metered like a send. Answers 201 once sealed, or 202 with seal_status pending " +
          'when no time-stamp authority answered (the seal is retried in the background; GET /api/v1/seals/{id} shows it).',
        consumes: [PDF],
        headers: IdempotencyKeyHeaders,
        body: PdfBody,
        querystring: SealQuery,
        response: withCommonErrors({
          201: { ...SealView, description: 'Sealed' },
          202: { ...SealView, description: 'Accepted; the timestamp is pending' },
          400: { ...ErrorBody, description: 'Not a readable PDF, or invalid parameters' },
          402: { ...PaymentRequiredBody, description: "The plan's allowance or the spend cap is reached" },
          409: idempotencyConflict(),
          412: { ...ErrorBody, description: "The org's identity check is missing or expired" },
          413: {
            ...ErrorBody,
            description: 'The PDF is over a limit of this server: size (25 MB by default), pages, objects, image size or decompressed size',
          },
          503: { ...ErrorBody, description: 'The server is busy with other documents: try again after Retry-After seconds' },
          415: { ...ErrorBody, description: 'The body is not application/pdf' },
        }),
      },
    },
    async (request, reply) => {
      if (!Buffer.isBuffer(request.body) || request.body.byteLength === 0) throw new AppError('invalid_request', 'Send the PDF as the request body.')
      const { title, filename, certificate_mode } = request.query
      const seal = await requestSeal(services, actorOf(request), {
        pdf: request.body,
        title,
        filename,
        certificateMode: certificate_mode,
      })
      return reply.status(seal.seal_status === 'sealed' ? 201 : 202).send(seal)
    },
  )

  app.get(
    '/seals/:id',
    {
      onRequest: rateLimit(services, RATE_LIMITS.readDocument),
      schema: {
        tags,
        operationId: 'getSeal',
        summary: 'A self-sealed document and the state of its seal',
        params: DocumentIdParams,
        response: withCommonErrors({ 200: SealView, 404: { ...ErrorBody, description: 'No such self-sealed document in this org' } }),
      },
    },
    async (request) => getSeal(services.db, services.config.publicUrl, principalOf(request), request.params.id),
  )
}
