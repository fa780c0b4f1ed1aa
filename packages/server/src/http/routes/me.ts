import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import {
  ChangePasswordBody,
  CreateWorkspaceBody,
  IdParams,
  Me,
  SessionList,
  SwitchWorkspaceBody,
  TokenParams,
  UpdateMeBody,
} from '../../accounts/accounts.schemas.ts'
import { acceptInvitation } from '../../accounts/invitations.ts'
import { changePassword } from '../../accounts/log-in.ts'
import { createWorkspace, meOf, switchWorkspace, updateMe } from '../../accounts/me.ts'
import { endOwnSession, listSessions } from '../../accounts/sessions.ts'
import type { Services } from '../../services.ts'
import { sessionOf } from '../auth.ts'
import { ErrorBody, withCommonErrors } from '../schemas.ts'
import { clearSessionCookie } from '../session-cookie.ts'
import { clientOf } from '../client.ts'

const tags = ['Accounts']
const security = [{ sessionCookie: [] }]
const crossSite = { ...ErrorBody, description: 'A state-changing request from another site (Origin check)' }
const badRequest = { ...ErrorBody, description: 'Invalid body' }

/** The signed-in person's own things: profile, password, sessions, workspaces. Sessions only (an API key gets 401). */
export const meRoutes: FastifyPluginAsyncTypebox<{ services: Services }> = async (app, { services }) => {
  const { db } = services

  app.get(
    '/me',
    {
      schema: {
        operationId: 'getMe',
        tags,
        security,
        summary: 'The signed-in user, the selected workspace and all of theirs',
        response: withCommonErrors({ 200: Me }),
      },
    },
    async (request) => meOf(db, sessionOf(request)),
  )

  app.patch(
    '/me',
    {
      schema: {
        operationId: 'updateMe',
        tags,
        security,
        summary: 'Change your name',
        body: UpdateMeBody,
        response: withCommonErrors({ 200: Me, 400: badRequest, 403: crossSite }),
      },
    },
    async (request) => updateMe(db, sessionOf(request), request.body),
  )

  app.post(
    '/me/password',
    {
      schema: {
        operationId: 'changePassword',
        tags,
        security,
        summary: 'Change your password (needs the current one); ends your other sessions',
        body: ChangePasswordBody,
        response: withCommonErrors({
          204: Type.Null({ description: 'Changed' }),
          400: { ...ErrorBody, description: 'Wrong current password, or a new one that is too short, too long or too common' },
          403: crossSite,
          503: { ...ErrorBody, description: 'The server has too many passwords to check at once; see Retry-After' },
        }),
      },
    },
    async (request, reply) => {
      await changePassword(services, sessionOf(request), request.body, clientOf(request))
      return reply.status(204).send(null)
    },
  )

  app.get(
    '/me/sessions',
    {
      schema: {
        operationId: 'listSessions',
        tags,
        security,
        summary: 'Your sessions, most recently used first',
        response: withCommonErrors({ 200: SessionList }),
      },
    },
    async (request) => listSessions(db, sessionOf(request)),
  )

  app.delete(
    '/me/sessions/:id',
    {
      schema: {
        operationId: 'endSession',
        tags,
        security,
        summary: 'End one of your sessions (ending the current one signs this browser out)',
        params: IdParams,
        response: withCommonErrors({
          204: Type.Null({ description: 'Ended' }),
          403: crossSite,
          404: { ...ErrorBody, description: 'No such session of yours' },
        }),
      },
    },
    async (request, reply) => {
      const session = sessionOf(request)
      await endOwnSession(db, session, request.params.id)
      if (request.params.id === session.sessionId) clearSessionCookie(reply, services.config)
      return reply.status(204).send(null)
    },
  )

  app.post(
    '/me/workspace',
    {
      schema: {
        operationId: 'switchWorkspace',
        tags,
        security,
        summary: 'Make this session act in another of your workspaces',
        body: SwitchWorkspaceBody,
        response: withCommonErrors({ 200: Me, 403: crossSite, 404: { ...ErrorBody, description: 'You do not belong to that workspace' } }),
      },
    },
    async (request) => switchWorkspace(db, sessionOf(request), request.body.workspace_id),
  )

  app.post(
    '/workspaces',
    {
      schema: {
        operationId: 'createWorkspace',
        tags,
        security,
        summary: 'Create a Free workspace you own, and switch to it',
        body: CreateWorkspaceBody,
        response: withCommonErrors({
          201: Me,
          400: badRequest,
          403: crossSite,
          409: { ...ErrorBody, description: 'You already own the most Free workspaces one person may (429: the most created in 24 hours)' },
        }),
      },
    },
    async (request, reply) => reply.status(201).send(await createWorkspace(db, sessionOf(request), request.body)),
  )

  app.post(
    '/invitations/:token/accept',
    {
      schema: {
        operationId: 'acceptInvitation',
        tags: ['Members'],
        security,
        summary: 'Join the inviting workspace (the invitation must be for your address) and switch to it',
        params: TokenParams,
        response: withCommonErrors({
          200: Me,
          403: { ...ErrorBody, description: 'The invitation is for another address, or a cross-site request' },
          404: { ...ErrorBody, description: 'Unknown invitation' },
          410: { ...ErrorBody, description: 'The invitation expired, was revoked or was already used, or its sender can no longer invite' },
        }),
      },
    },
    async (request) => acceptInvitation(services, sessionOf(request), request.params.token),
  )
}
