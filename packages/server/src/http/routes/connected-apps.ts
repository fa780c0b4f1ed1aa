import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import { listConnectedApps, revokeConnectedApp } from '../../oauth/connected-apps.ts'
import { ConnectedAppIdParams, ConnectedAppList } from '../../oauth/oauth.schemas.ts'
import type { Services } from '../../services.ts'
import { actorOf } from '../auth.ts'
import { ErrorBody, withCommonErrors } from '../schemas.ts'

const tags = ['Connected apps']

/** Settings → Connected apps: the AI agents people allowed in with OAuth, and revoking them (signed-in people only, never a key). */
export const connectedAppRoutes: FastifyPluginAsyncTypebox<{ services: Services }> = async (app, { services }) => {
  app.get(
    '/connected-apps',
    {
      schema: {
        operationId: 'listConnectedApps',
        tags,
        summary: "The workspace's OAuth grants (apps such as AI agents connected with OAuth), newest first",
        response: withCommonErrors({ 200: ConnectedAppList }),
      },
    },
    async (request) => ({ data: await listConnectedApps(services.db, actorOf(request)) }),
  )

  app.delete(
    '/connected-apps/:id',
    {
      schema: {
        operationId: 'revokeConnectedApp',
        tags,
        summary: 'Revoke an OAuth grant: its access and refresh tokens stop working at once',
        params: ConnectedAppIdParams,
        response: withCommonErrors({
          204: Type.Null({ description: 'Revoked' }),
          403: { ...ErrorBody, description: "A member revoking someone else's grant: only owners and admins may" },
          404: { ...ErrorBody, description: 'No such connected app in this workspace' },
        }),
      },
    },
    async (request, reply) => {
      await revokeConnectedApp(services, actorOf(request), request.params.id)
      return reply.status(204).send(null)
    },
  )
}
