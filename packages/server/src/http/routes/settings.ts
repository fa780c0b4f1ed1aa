import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { setWorkspaceReminders, WorkspaceReminders, workspaceReminders } from '../../documents/reminders.ts'
import type { Services } from '../../services.ts'
import { actorOf } from '../auth.ts'
import { ErrorBody, withCommonErrors } from '../schemas.ts'

const tags = ['Settings']

/** Workspace settings that shape documents sent from it (extension). */
export const settingsRoutes: FastifyPluginAsyncTypebox<{ services: Services }> = async (app, { services }) => {
  app.get(
    '/settings/reminders',
    {
      schema: {
        operationId: 'getReminderSettings',
        tags,
        summary: "Extension: the workspace's default reminder schedule for documents it sends",
        response: withCommonErrors({ 200: WorkspaceReminders }),
      },
    },
    async (request) => workspaceReminders(services.db, actorOf(request)),
  )

  app.put(
    '/settings/reminders',
    {
      schema: {
        operationId: 'setReminderSettings',
        tags,
        summary: "Extension: set the workspace's default reminder schedule (null: none); documents already sent keep theirs",
        body: WorkspaceReminders,
        response: withCommonErrors({
          200: WorkspaceReminders,
          400: { ...ErrorBody, description: 'Invalid body' },
          403: { ...ErrorBody, description: "A member: only the workspace's owners and admins change its settings" },
        }),
      },
    },
    async (request) => setWorkspaceReminders(services.db, actorOf(request), request.body),
  )
}
