import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { setWorkspaceReminders, WorkspaceReminders, workspaceReminders } from '../../documents/reminders.ts'
import type { Services } from '../../services.ts'
import { setWorkspaceSignerLanguage, WorkspaceSignerLanguage, workspaceSignerLanguage } from '../../signing/i18n/signer-language-setting.ts'
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

  app.get(
    '/settings/signer-language',
    {
      schema: {
        operationId: 'getSignerLanguageSettings',
        tags,
        summary: "Extension: the workspace's default language for signer pages and e-mails",
        response: withCommonErrors({ 200: WorkspaceSignerLanguage }),
      },
    },
    async (request) => workspaceSignerLanguage(services.db, actorOf(request)),
  )

  app.put(
    '/settings/signer-language',
    {
      schema: {
        operationId: 'setSignerLanguageSettings',
        tags,
        summary:
          "Extension: set the workspace's default language for signer pages and e-mails (null: none); a document's own language, and on its pages the signer's browser, come first",
        body: WorkspaceSignerLanguage,
        response: withCommonErrors({
          200: WorkspaceSignerLanguage,
          400: { ...ErrorBody, description: 'Invalid body' },
          403: { ...ErrorBody, description: "A member: only the workspace's owners and admins change its settings" },
        }),
      },
    },
    async (request) => setWorkspaceSignerLanguage(services.db, actorOf(request), request.body),
  )
}
