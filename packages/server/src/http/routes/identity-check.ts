import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { getIdentityCheck, submitIdentityCheck } from '../../orgs/identity-checks.ts'
import { IdentityCheckView, MAX_IDENTITY_DOCUMENT_MB, SubmitIdentityCheckBody } from '../../orgs/identity-checks.schemas.ts'
import type { Services } from '../../services.ts'
import { actorOf } from '../auth.ts'
import { ErrorBody, withCommonErrors } from '../schemas.ts'

const tags = ['Identity check']

/** The document in base64 (4 characters per 3 bytes) with room for the rest of the JSON. */
const SUBMISSION_BODY_LIMIT = Math.ceil((MAX_IDENTITY_DOCUMENT_MB * 1024 * 1024) / 3) * 4 + 64 * 1024

/** Settings → Identity check: the one-time check of the workspace that sealing needs. */
export const identityCheckRoutes: FastifyPluginAsyncTypebox<{ services: Services }> = async (app, { services }) => {
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
      bodyLimit: SUBMISSION_BODY_LIMIT,
      config: { bodyLimitSetting: `an identity document is at most ${MAX_IDENTITY_DOCUMENT_MB} MB` },
      schema: {
        operationId: 'submitIdentityCheck',
        tags,
        summary: "Submit (or renew) the workspace's identity check: legal name and an ID document (the owner only)",
        description:
          'The document (PDF, PNG or JPEG, at most 10 MB) is stored encrypted, shown only to the instance operator, and erased once the ' +
          'check is decided. Approval makes sealing work for 365 days.',
        body: SubmitIdentityCheckBody,
        response: withCommonErrors({
          201: IdentityCheckView,
          400: { ...ErrorBody, description: 'Invalid body: a legal name that is empty or too long, data that is not base64, or a file that is not what content_type says' },
          403: { ...ErrorBody, description: "Only the workspace's owner submits the identity check" },
          409: { ...ErrorBody, description: 'A check is already waiting for a decision' },
          413: { ...ErrorBody, description: 'The document is over 10 MB' },
        }),
      },
    },
    async (request, reply) => reply.status(201).send(await submitIdentityCheck(services, actorOf(request), request.body)),
  )
}
