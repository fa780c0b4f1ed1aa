import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { Static, TSchema } from 'typebox'
import type { FastifyInstance } from 'fastify'
import type { Actor } from '../../actors/actor.ts'
import type { Db } from '../../db/client.ts'
import { setWorkspaceReminders, WorkspaceReminders, workspaceReminders } from '../../documents/reminders.ts'
import type { Services } from '../../services.ts'
import { setWorkspaceSignerLanguage, WorkspaceSignerLanguage, workspaceSignerLanguage } from '../../signing/i18n/signer-language-setting.ts'
import { setWorkspaceEmbedOrigins, WorkspaceEmbedOrigins, workspaceEmbedOrigins } from '../../signing/embed/embed-origins.ts'
import { actorOf } from '../auth.ts'
import { ErrorBody, withCommonErrors } from '../schemas.ts'

const tags = ['Settings']

/** One workspace setting: read by every member, written by owners and admins, the same schema both ways. */
interface WorkspaceSetting<Schema extends TSchema> {
  path: string
  /** The operationIds' stem: getXSettings, setXSettings. */
  name: string
  schema: Schema
  readSummary: string
  writeSummary: string
  read(db: Db, actor: Actor): Promise<Static<Schema>>
  write(db: Db, actor: Actor, value: Static<Schema>): Promise<Static<Schema>>
}

function settingRoutes<Schema extends TSchema>(app: FastifyInstance, services: Services, setting: WorkspaceSetting<Schema>): void {
  app.get(
    setting.path,
    { schema: { operationId: `get${setting.name}Settings`, tags, summary: setting.readSummary, response: withCommonErrors({ 200: setting.schema }) } },
    async (request) => setting.read(services.db, actorOf(request)),
  )
  app.put(
    setting.path,
    {
      schema: {
        operationId: `set${setting.name}Settings`,
        tags,
        summary: setting.writeSummary,
        body: setting.schema,
        response: withCommonErrors({
          200: setting.schema,
          400: { ...ErrorBody, description: 'Invalid body' },
          403: { ...ErrorBody, description: "A member: only the workspace's owners and admins change its settings" },
        }),
      },
    },
    // Fastify validated the body against `schema` (a generic schema is beyond the type provider's inference).
    async (request) => setting.write(services.db, actorOf(request), request.body as Static<Schema>),
  )
}

/** Workspace settings that shape documents sent from it (extension). */
export const settingsRoutes: FastifyPluginAsyncTypebox<{ services: Services }> = async (app, { services }) => {
  settingRoutes(app, services, {
    path: '/settings/reminders',
    name: 'Reminder',
    schema: WorkspaceReminders,
    readSummary: "Extension: the workspace's default reminder schedule for documents it sends",
    writeSummary: "Extension: set the workspace's default reminder schedule (null: none); documents already sent keep theirs",
    read: workspaceReminders,
    write: setWorkspaceReminders,
  })
  settingRoutes(app, services, {
    path: '/settings/signer-language',
    name: 'SignerLanguage',
    schema: WorkspaceSignerLanguage,
    readSummary: "Extension: the workspace's default language for signer pages and e-mails",
    writeSummary:
      "Extension: set the workspace's default language for signer pages and e-mails (null: none); a document's own language, and on its pages the signer's browser, come first",
    read: workspaceSignerLanguage,
    write: setWorkspaceSignerLanguage,
  })
  settingRoutes(app, services, {
    path: '/settings/embed',
    name: 'Embed',
    schema: WorkspaceEmbedOrigins,
    readSummary: "Extension: the origins allowed to frame the workspace's embedded signer pages",
    writeSummary:
      "Extension: set the origins allowed to frame the workspace's embedded signer pages (scheme://host[:port], https or http on localhost, at most 20; empty: none)",
    read: workspaceEmbedOrigins,
    write: setWorkspaceEmbedOrigins,
  })
}
