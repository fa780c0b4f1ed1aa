import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import { IdParams, InviteMemberBody, Member, MemberList, PendingInvitation, UpdateMemberBody, UserIdParams } from '../../accounts/accounts.schemas.ts'
import { inviteMember, revokeInvitation } from '../../accounts/invitations.ts'
import { listMembers, removeMember, updateMember } from '../../accounts/members.ts'
import { requireSignedIn } from '../../accounts/roles.ts'
import type { Services } from '../../services.ts'
import { actorOf } from '../auth.ts'
import { ErrorBody, withCommonErrors } from '../schemas.ts'

const tags = ['Members']
const security = [{ sessionCookie: [] }]
const forbidden = {
  ...ErrorBody,
  description: "Only the workspace's owners and admins manage members (and only an owner makes or changes an owner); or a cross-site request",
}
const noMember = { ...ErrorBody, description: 'No such member in this workspace' }
const lastOwner = { ...ErrorBody, description: 'The last owner can neither leave, be removed nor be demoted' }

/** Settings → Members: who is in the selected workspace, invitations, roles. Sessions only. */
export const memberRoutes: FastifyPluginAsyncTypebox<{ services: Services }> = async (app, { services }) => {
  const { db } = services
  /** The session's user acting in their selected workspace (an API key gets 401, no workspace 403). */
  const signedInActor = (request: Parameters<typeof actorOf>[0]) => {
    const actor = actorOf(request)
    requireSignedIn(actor)
    return actor
  }

  app.get(
    '/members',
    {
      schema: {
        operationId: 'listMembers',
        tags,
        security,
        summary: "The workspace's members and pending invitations",
        response: withCommonErrors({ 200: MemberList, 403: forbidden }),
      },
    },
    async (request) => listMembers(db, signedInActor(request), services.clock.now()),
  )

  app.post(
    '/members/invitations',
    {
      schema: {
        operationId: 'inviteMember',
        tags,
        security,
        summary: 'Invite someone by e-mail (a single-use link valid 7 days)',
        body: InviteMemberBody,
        response: withCommonErrors({
          201: PendingInvitation,
          400: { ...ErrorBody, description: 'Invalid body' },
          403: forbidden,
          409: { ...ErrorBody, description: 'Already a member' },
        }),
      },
    },
    async (request, reply) => reply.status(201).send(await inviteMember(services, signedInActor(request), request.body)),
  )

  app.delete(
    '/members/invitations/:id',
    {
      schema: {
        operationId: 'revokeInvitation',
        tags,
        security,
        summary: 'Revoke a pending invitation (its link stops working)',
        params: IdParams,
        response: withCommonErrors({
          204: Type.Null({ description: 'Revoked' }),
          403: forbidden,
          404: { ...ErrorBody, description: 'No such pending invitation' },
        }),
      },
    },
    async (request, reply) => {
      await revokeInvitation(services, signedInActor(request), request.params.id)
      return reply.status(204).send(null)
    },
  )

  app.patch(
    '/members/:userId',
    {
      schema: {
        operationId: 'updateMember',
        tags,
        security,
        summary: "Change a member's role",
        params: UserIdParams,
        body: UpdateMemberBody,
        response: withCommonErrors({ 200: Member, 403: forbidden, 404: noMember, 409: lastOwner }),
      },
    },
    async (request) => updateMember(services, signedInActor(request), request.params.userId, request.body.role, services.clock.now()),
  )

  app.delete(
    '/members/:userId',
    {
      schema: {
        operationId: 'removeMember',
        tags,
        security,
        summary: 'Remove a member, or leave the workspace (your own user id)',
        params: UserIdParams,
        response: withCommonErrors({ 204: Type.Null({ description: 'Removed' }), 403: forbidden, 404: noMember, 409: lastOwner }),
      },
    },
    async (request, reply) => {
      await removeMember(services, signedInActor(request), request.params.userId, services.clock.now())
      return reply.status(204).send(null)
    },
  )
}
