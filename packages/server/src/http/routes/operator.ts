import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import { decideIdentityCheckAsOperator, identityCheckDocument, listIdentityChecks } from '../../operator/identity-checks.ts'
import {
  CreditsGranted,
  GrantCreditsBody,
  OperatorListQuery,
  OperatorOrgList,
  OperatorUser,
  OperatorUserList,
  OrgIdParams,
  PlanSet,
  SetPlanBody,
  UserIdParams,
} from '../../operator/operator.schemas.ts'
import { grantCreditsAsOperator, listOrgs, setPlanAsOperator } from '../../operator/orgs.ts'
import { listUsers, promoteToOperator, setUserDisabledAsOperator } from '../../operator/users.ts'
import {
  IDENTITY_DOCUMENT_TYPES,
  IdentityCheckIdParams,
  IdentityCheckQueue, IdentityCheckRecord, IdentityDecisionBody, ListIdentityChecksQuery } from '../../orgs/identity-checks.schemas.ts'
import type { Services } from '../../services.ts'
import { actorOf } from '../auth.ts'
import { ErrorBody, withCommonErrors } from '../schemas.ts'

const tags = ['Operator']
const operatorsOnly = { ...ErrorBody, description: 'Only instance operators use the Operator area' }
const invalidInput = { ...ErrorBody, description: 'Invalid parameters or body' }
const noOrg = { ...ErrorBody, description: 'No such org' }
const noUser = { ...ErrorBody, description: 'No such user' }
const noCheck = { ...ErrorBody, description: 'No such identity check' }

/** The Operator area: what only the admin CLI could do before (orgs, users, plans, credits, identity checks). */
export const operatorRoutes: FastifyPluginAsyncTypebox<{ services: Services }> = async (app, { services }) => {
  const { db } = services

  app.get(
    '/operator/orgs',
    {
      schema: {
        operationId: 'listOperatorOrgs',
        tags,
        summary: "The instance's orgs with plan, members, identity check and credits",
        querystring: OperatorListQuery,
        response: withCommonErrors({ 200: OperatorOrgList, 400: invalidInput, 403: operatorsOnly }),
      },
    },
    async (request) => listOrgs(services, actorOf(request), request.query),
  )

  app.put(
    '/operator/orgs/:id/plan',
    {
      schema: {
        operationId: 'setOrgPlan',
        tags,
        summary: "Change an org's plan (at once, for its keys and sessions too)",
        params: OrgIdParams,
        body: SetPlanBody,
        response: withCommonErrors({ 200: PlanSet, 400: invalidInput, 403: operatorsOnly, 404: noOrg }),
      },
    },
    async (request) => setPlanAsOperator(services, actorOf(request), request.params.id, request.body.plan),
  )

  app.post(
    '/operator/orgs/:id/credits',
    {
      schema: {
        operationId: 'grantCredits',
        tags,
        summary: 'Grant credit packs (25 credits each) to an org',
        params: OrgIdParams,
        body: GrantCreditsBody,
        response: withCommonErrors({ 200: CreditsGranted, 400: invalidInput, 403: operatorsOnly, 404: noOrg }),
      },
    },
    async (request) => grantCreditsAsOperator(services, actorOf(request), request.params.id, request.body.packs),
  )

  app.get(
    '/operator/users',
    {
      schema: {
        operationId: 'listOperatorUsers',
        tags,
        summary: "The instance's users with their workspaces",
        querystring: OperatorListQuery,
        response: withCommonErrors({ 200: OperatorUserList, 400: invalidInput, 403: operatorsOnly }),
      },
    },
    async (request) => listUsers(db, actorOf(request), request.query),
  )

  app.post(
    '/operator/users/:id/disable',
    {
      schema: {
        operationId: 'disableUser',
        tags,
        summary: 'Disable a user: they cannot sign in, and their sessions end now',
        params: UserIdParams,
        response: withCommonErrors({
          200: OperatorUser,
          403: operatorsOnly,
          404: noUser,
          409: { ...ErrorBody, description: 'An operator cannot disable their own account' },
        }),
      },
    },
    async (request) => setUserDisabledAsOperator(services, actorOf(request), request.params.id, true),
  )

  app.post(
    '/operator/users/:id/enable',
    {
      schema: {
        operationId: 'enableUser',
        tags,
        summary: 'Enable a disabled user again',
        params: UserIdParams,
        response: withCommonErrors({ 200: OperatorUser, 403: operatorsOnly, 404: noUser }),
      },
    },
    async (request) => setUserDisabledAsOperator(services, actorOf(request), request.params.id, false),
  )

  app.post(
    '/operator/users/:id/promote',
    {
      schema: {
        operationId: 'promoteUser',
        tags,
        summary: 'Make a user an instance operator',
        params: UserIdParams,
        response: withCommonErrors({ 200: OperatorUser, 403: operatorsOnly, 404: noUser }),
      },
    },
    async (request) => promoteToOperator(db, actorOf(request), request.params.id),
  )

  app.get(
    '/operator/identity-checks',
    {
      schema: {
        operationId: 'listIdentityChecks',
        tags,
        summary: 'Identity checks in one status, oldest first (pending by default: the queue)',
        querystring: ListIdentityChecksQuery,
        response: withCommonErrors({ 200: IdentityCheckQueue, 400: invalidInput, 403: operatorsOnly }),
      },
    },
    async (request) => listIdentityChecks(db, actorOf(request), request.query),
  )

  app.get(
    '/operator/identity-checks/:id/document',
    {
      schema: {
        operationId: 'getIdentityCheckDocument',
        tags,
        summary: 'The ID document of a check awaiting a decision (decrypted; never cached)',
        params: IdentityCheckIdParams,
        response: withCommonErrors({
          200: {
            description: 'the file, with the Content-Type it was submitted as',
            content: Object.fromEntries(IDENTITY_DOCUMENT_TYPES.map((type) => [type, { schema: Type.Unsafe<Uint8Array>({ type: 'string', format: 'binary' }) }])),
          },
          403: operatorsOnly,
          404: noCheck,
          410: { ...ErrorBody, description: 'The check was decided and its document erased' },
          412: { ...ErrorBody, description: "The document was stored under another server's key (IDENTITY_DOCUMENT_KEY)" },
        }),
      },
    },
    async (request, reply) => {
      const document = await identityCheckDocument(services, actorOf(request), request.params.id)
      const ascii = document.filename.replace(/[^\x20-\x7e]|["\\]/g, '_')
      return reply
        .type(document.contentType)
        .header('cache-control', 'no-store')
        .header('content-disposition', `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(document.filename)}`)
        .send(document.bytes)
    },
  )

  app.post(
    '/operator/identity-checks/:id/decision',
    {
      schema: {
        operationId: 'decideIdentityCheck',
        tags,
        summary: 'Approve (sealing then works for 365 days) or reject a pending identity check; its document is erased either way',
        params: IdentityCheckIdParams,
        body: IdentityDecisionBody,
        response: withCommonErrors({
          200: IdentityCheckRecord,
          400: invalidInput,
          403: operatorsOnly,
          404: noCheck,
          409: { ...ErrorBody, description: 'The check was already decided' },
        }),
      },
    },
    async (request) => decideIdentityCheckAsOperator(services, actorOf(request), request.params.id, request.body),
  )
}
