import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { AppError } from '../../errors.ts'
import { getIdentityCheck, submitIdentityCheck } from '../../orgs/identity-checks.ts'
import {
  IDENTITY_DOCUMENT_TYPES,
  IdentityCheckView,
  IdentityDocumentBody,
  MAX_IDENTITY_DOCUMENT_BYTES,
  MAX_IDENTITY_DOCUMENT_MB,
  SubmitIdentityCheckQuery,
  type IdentityDocumentType,
} from '../../orgs/identity-checks.schemas.ts'
import type { Services } from '../../services.ts'
import { actorOf } from '../auth.ts'
import { binaryBodyParser } from '../binary-body.ts'
import { ErrorBody, withCommonErrors } from '../schemas.ts'

const tags = ['Identity check']
const ACCEPTS = 'application/pdf, image/png or image/jpeg'

/** The media type the body was sent as (its parser admitted only these three). */
function documentTypeOf(header: string | undefined): IdentityDocumentType {
  const type = header?.split(';')[0]?.trim().toLowerCase()
  const known = IDENTITY_DOCUMENT_TYPES.find((candidate) => candidate === type)
  if (!known) throw new AppError('unsupported_media_type', `Unsupported Content-Type: send the body as ${ACCEPTS}.`)
  return known
}

/**
 * Settings → Identity check: the one-time check of the workspace that sealing needs. The document
 * is the raw body (no base64, no JSON to parse), read into one buffer as it arrives.
 */
export const identityCheckRoutes: FastifyPluginAsyncTypebox<{ services: Services }> = async (app, { services }) => {
  app.removeAllContentTypeParsers()
  for (const type of IDENTITY_DOCUMENT_TYPES)
    app.addContentTypeParser(type, { bodyLimit: MAX_IDENTITY_DOCUMENT_BYTES }, binaryBodyParser(MAX_IDENTITY_DOCUMENT_BYTES))

  app.get(
    '/identity-check',
    {
      schema: {
        operationId: 'getIdentityCheck',
        tags,
        summary: "Where the workspace's identity check stands (any member may look)",
        response: withCommonErrors({ 200: IdentityCheckView }),
      },
    },
    async (request) => getIdentityCheck(services, actorOf(request)),
  )

  app.post(
    '/identity-check',
    {
      bodyLimit: MAX_IDENTITY_DOCUMENT_BYTES,
      config: { accepts: ACCEPTS, bodyLimitSetting: `an identity document is at most ${MAX_IDENTITY_DOCUMENT_MB} MB` },
      schema: {
        operationId: 'submitIdentityCheck',
        tags,
        summary: "Submit (or renew) the workspace's identity check: legal name and an ID document (the owner only)",
        description:
          `The document (PDF, PNG or JPEG, at most ${MAX_IDENTITY_DOCUMENT_MB} MB) is the request body, with its Content-Type. It must be, all of it, ` +
          'what that type says: a PDF that opens, or an image that decodes (what follows an image’s end is not kept). It is stored encrypted ' +
          'under a key of its own, shown only to the instance operator, and erased (its key destroyed) once the check is decided. Approval ' +
          'makes sealing work for 365 days.',
        consumes: [...IDENTITY_DOCUMENT_TYPES],
        querystring: SubmitIdentityCheckQuery,
        body: IdentityDocumentBody,
        response: withCommonErrors({
          201: IdentityCheckView,
          400: { ...ErrorBody, description: 'A legal name that is empty or too long, no document, or a file that is not what its Content-Type says' },
          403: { ...ErrorBody, description: "Only the workspace's owner submits the identity check" },
          409: { ...ErrorBody, description: 'A check is already waiting for a decision' },
          413: { ...ErrorBody, description: `The document is over ${MAX_IDENTITY_DOCUMENT_MB} MB, or over a limit of this server (PDF limits, image size)` },
          415: { ...ErrorBody, description: `The body is not ${ACCEPTS}` },
          503: { ...ErrorBody, description: 'The server is busy with other documents: try again after Retry-After seconds' },
        }),
      },
    },
    async (request, reply) => {
      const document = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0)
      const view = await submitIdentityCheck(services, actorOf(request), {
        legalName: request.query.legal_name,
        contentType: documentTypeOf(request.headers['content-type']),
        document,
      })
      return reply.status(201).send(view)
    },
  )
}
