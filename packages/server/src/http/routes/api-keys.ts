import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import { ApiKeyCreated, ApiKeyIdParams, ApiKeyList, CreateApiKeyBody } from '../../api-keys/api-keys.schemas.ts'
import { createNamedApiKey, listApiKeys, revokeApiKeyById } from '../../api-keys/manage-api-keys.ts'
import type { Services } from '../../services.ts'
import { actorOf } from '../auth.ts'
import { ErrorBody, withCommonErrors } from '../schemas.ts'

const tags = ['API keys']
const managersOnly = { ...ErrorBody, description: "Signed in as a member: only the workspace's owners and admins manage keys" }

/** Settings → Integration and API: the workspace's keys, managed by a signed-in owner or admin (never by a key). */
export const apiKeyRoutes: FastifyPluginAsyncTypebox<{ services: Services }> = async (app, { services }) => {
  app.get(
    '/keys',
    {
      schema: {
        operationId: 'listApiKeys',
        tags,
        summary: "The workspace's API keys, newest first (revoked ones included); never the keys themselves",
        response: withCommonErrors({ 200: ApiKeyList, 403: managersOnly }),
      },
    },
    async (request) => listApiKeys(services.db, actorOf(request)),
  )

  app.post(
    '/keys',
    {
      schema: {
        operationId: 'createApiKey',
        tags,
        summary: 'Create a named API key (the key is shown only in this response)',
        body: CreateApiKeyBody,
        response: withCommonErrors({ 201: ApiKeyCreated, 400: { ...ErrorBody, description: 'Invalid body' }, 403: managersOnly }),
      },
    },
    async (request, reply) => reply.status(201).send(await createNamedApiKey(services.db, actorOf(request), request.body)),
  )

  app.delete(
    '/keys/:id',
    {
      schema: {
        operationId: 'revokeApiKey',
        tags,
        summary: 'Revoke an API key: its next request is a 401',
        params: ApiKeyIdParams,
        response: withCommonErrors({
          204: Type.Null({ description: 'Revoked (or already revoked)' }),
          403: managersOnly,
          404: { ...ErrorBody, description: 'No such key in this workspace' },
        }),
      },
    },
    async (request, reply) => {
      await revokeApiKeyById(services, actorOf(request), request.params.id)
      return reply.status(204).send(null)
    },
  )
}
