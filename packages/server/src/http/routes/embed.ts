import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { FastifyPluginAsync, FastifyRequest } from 'fastify'
import type { Actor } from '../../actors/actor.ts'
import { API_KEY_PREFIX } from '../../api-keys/api-keys.ts'
import { SignerParams } from '../../documents/documents.schemas.ts'
import type { Services } from '../../services.ts'
import { createEmbedUrl, EmbedRequest, EmbedUrl } from '../../signing/embed/embed-links.ts'
import { embedScript } from '../../signing/embed/embed-script.ts'
import { actorOf, presentedKey } from '../auth.ts'
import { rateLimit, RATE_LIMITS } from '../rate-limit.ts'
import { ErrorBody, withCommonErrors } from '../schemas.ts'
import { sendAsset } from '../send-asset.ts'

/** The public part of an API key (`sgn_live_` and 8 hex characters): the dashboard names keys by it, so the audit trail can too. */
const KEY_NAME_LENGTH = API_KEY_PREFIX.length + 8

/** The credential that asks for an embed URL, as the audit trail names who vouched for the signer. */
function vouchingCredential(request: FastifyRequest, actor: Actor): string {
  switch (actor.authMethod) {
    case 'api_key':
      return `api_key ${presentedKey(request)?.slice(0, KEY_NAME_LENGTH) ?? ''}`
    case 'session':
    case 'oauth':
    case 'operator':
      return `${actor.authMethod} ${actor.user?.email ?? actor.clientName ?? ''}`.trim()
  }
}

/** Embedded signing (extension): a signer's page inside the integrator's own app (signing/embed). */
export const embedRoutes: FastifyPluginAsyncTypebox<{ services: Services }> = async (app, { services }) => {
  app.post(
    '/documents/:id/signers/:signerId/embed',
    {
      onRequest: rateLimit(services, RATE_LIMITS.embed),
      schema: {
        tags: ['Documents'],
        operationId: 'createEmbedUrl',
        summary: "Extension: a single-use URL (5 minutes) that opens this signer's page inside your app, without the e-mailed link",
        description:
          "Extension: frame the URL (or give it to `<signet-signing url>`) on one of the workspace's embed origins (Settings → Embedded signing). " +
          'Refused for a signer who signed or declined, for a document that is not out for signature, and for a signer with auth_required unless `signer_authenticated` is true. ' +
          'Every event of the embedded page is recorded in the audit trail as embedded, with the credential that asked for the URL.',
        params: SignerParams,
        body: EmbedRequest,
        response: withCommonErrors({
          201: EmbedUrl,
          400: { ...ErrorBody, description: 'Invalid body, or parent_origin is not one of the workspace’s embed origins' },
          403: { ...ErrorBody, description: 'The signer has auth_required and signer_authenticated was not true' },
          404: { ...ErrorBody, description: 'No such document in this org, or no such signer on it' },
          409: { ...ErrorBody, description: 'The document is not out for signature, or the signer has signed, declined or signs at a later step' },
        }),
      },
    },
    async (request, reply) => {
      const actor = actorOf(request)
      const { id, signerId } = request.params
      const target = { documentId: id, signerId, vouchedBy: vouchingCredential(request, actor) }
      return reply.status(201).send(await createEmbedUrl(services, actor, target, request.body))
    },
  )
}

/**
 * The <signet-signing> element at /embed/signet-signing.js, for integrators who load it from their own
 * origin with `<script type="module">`: unlike our pages' assets it may be read cross-origin (a module
 * script is fetched with CORS; the file is public and no credentials are involved).
 */
export const embedScriptRoutes: FastifyPluginAsync = async (app) => {
  const script = await embedScript()
  app.addHook('onSend', async (_request, reply) => {
    reply.header('cross-origin-resource-policy', 'cross-origin').header('access-control-allow-origin', '*')
  })
  app.get('/embed/signet-signing.js', { schema: { hide: true } }, (request, reply) => sendAsset(request, reply, script))
}
