import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type, type TSchema } from 'typebox'
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
  IdentityCheckQueue,
  IdentityCheckRecord,
  IdentityDecisionBody,
  ListIdentityChecksQuery,
} from '../../orgs/identity-checks.schemas.ts'
import type { Services } from '../../services.ts'
import { actorOf } from '../auth.ts'
import { ErrorBody, withCommonErrors } from '../schemas.ts'

const tags = ['Operator']
const operatorsOnly = { ...ErrorBody, description: 'Only instance operators use the Operator area' }
const invalidInput = { ...ErrorBody, description: 'Invalid parameters or body' }
const noOrg = { ...ErrorBody, description: 'No such org' }
const noUser = { ...ErrorBody, description: 'No such user' }
const noCheck = { ...ErrorBody, description: 'No such identity check' }

/** An Operator route's options: its tag, its own responses, and the 403 every Operator route gives anyone who is not an operator. */
const operatorOptions = <S extends { operationId: string; summary: string; response: Record<number, TSchema> }>({
  operationId,
  summary,
  response,
  ...inputs
}: S) => ({
  schema: {
    operationId,
    tags,
    summary,
    ...inputs,
    response: withCommonErrors<S['response'] & { 403: typeof operatorsOnly }>({ ...response, 403: operatorsOnly }),
  },
})

/** The Operator area: what only the admin CLI could do before (orgs, users, plans, credits, identity checks). */
export const operatorRoutes: FastifyPluginAsyncTypebox<{ services: Services }> = async (app, { services }) => {
  const { db } = services

  app.get(
    '/operator/orgs',
    operatorOptions({
      operationId: 'listOperatorOrgs',
      summary: "The instance's orgs with plan, members, identity check and credits",
      querystring: OperatorListQuery,
      response: { 200: OperatorOrgList, 400: invalidInput },
    }),
    async (request) => listOrgs(services, actorOf(request), request.query),
  )

  app.put(
    '/operator/orgs/:id/plan',
    operatorOptions({
      operationId: 'setOrgPlan',
      summary: "Change an org's plan (at once, for its keys and sessions too)",
      params: OrgIdParams,
      body: SetPlanBody,
      response: { 200: PlanSet, 400: invalidInput, 404: noOrg },
    }),
    async (request) => setPlanAsOperator(services, actorOf(request), request.params.id, request.body.plan),
  )

  app.post(
    '/operator/orgs/:id/credits',
    operatorOptions({
      operationId: 'grantCredits',
      summary: 'Grant credit packs (25 credits each) to an org',
      params: OrgIdParams,
      body: GrantCreditsBody,
      response: { 200: CreditsGranted, 400: invalidInput, 404: noOrg },
    }),
    async (request) => grantCreditsAsOperator(services, actorOf(request), request.params.id, request.body.packs),
  )

  app.get(
    '/operator/users',
    operatorOptions({
      operationId: 'listOperatorUsers',
      summary: "The instance's users with their workspaces",
      querystring: OperatorListQuery,
      response: { 200: OperatorUserList, 400: invalidInput },
    }),
    async (request) => listUsers(db, actorOf(request), request.query),
  )

  app.post(
    '/operator/users/:id/disable',
    operatorOptions({
      operationId: 'disableUser',
      summary: 'Disable a user: they cannot sign in, and their sessions end now',
      params: UserIdParams,
      response: {
        200: OperatorUser,
        404: noUser,
        409: { ...ErrorBody, description: 'An operator cannot disable their own account' },
      },
    }),
    async (request) => setUserDisabledAsOperator(services, actorOf(request), request.params.id, true),
  )

  app.post(
    '/operator/users/:id/enable',
    operatorOptions({
      operationId: 'enableUser',
      summary: 'Enable a disabled user again',
      params: UserIdParams,
      response: { 200: OperatorUser, 404: noUser },
    }),
    async (request) => setUserDisabledAsOperator(services, actorOf(request), request.params.id, false),
  )

  app.post(
    '/operator/users/:id/promote',
    operatorOptions({
      operationId: 'promoteUser',
      summary: 'Make a user an instance operator',
      params: UserIdParams,
      response: { 200: OperatorUser, 404: noUser },
    }),
    async (request) => promoteToOperator(db, actorOf(request), request.params.id),
  )

  app.get(
    '/operator/identity-checks',
    operatorOptions({
      operationId: 'listIdentityChecks',
      summary: 'Identity checks in one status, oldest first (pending by default: the queue)',
      querystring: ListIdentityChecksQuery,
      response: { 200: IdentityCheckQueue, 400: invalidInput },
    }),
    async (request) => listIdentityChecks(db, actorOf(request), request.query),
  )

  app.get(
    '/operator/identity-checks/:id/document',
    operatorOptions({
      operationId: 'getIdentityCheckDocument',
      summary: 'The ID document of a check awaiting a decision (decrypted; never cached; saved as identity-document-<id>.pdf, .png or .jpg)',
      params: IdentityCheckIdParams,
      response: {
        200: {
          description: 'the file as an attachment, with the Content-Type it was checked to be on submission',
          content: Object.fromEntries(IDENTITY_DOCUMENT_TYPES.map((type) => [type, { schema: Type.Unsafe<Uint8Array>({ type: 'string', format: 'binary' }) }])),
        },
        404: noCheck,
        410: { ...ErrorBody, description: 'The check was decided and its document erased' },
        412: { ...ErrorBody, description: "The document was stored under another server's key (IDENTITY_DOCUMENT_KEY)" },
      },
    }),
    async (request, reply) => {
      const document = await identityCheckDocument(services, actorOf(request), request.params.id)
      // Saved, never shown in the dashboard's origin: a file that is also HTML or script would run nowhere.
      return reply
        .type(document.contentType)
        .header('cache-control', 'no-store')
        .header('content-disposition', `attachment; filename="${document.filename}"`)
        .header('content-security-policy', "default-src 'none'; sandbox")
        .send(document.bytes)
    },
  )

  app.post(
    '/operator/identity-checks/:id/decision',
    operatorOptions({
      operationId: 'decideIdentityCheck',
      summary: 'Approve (sealing then works for 365 days) or reject a pending identity check; its document is erased either way',
      params: IdentityCheckIdParams,
      body: IdentityDecisionBody,
      response: {
        200: IdentityCheckRecord,
        400: invalidInput,
        404: noCheck,
        409: { ...ErrorBody, description: 'The check was already decided' },
      },
    }),
    async (request) => decideIdentityCheckAsOperator(services, actorOf(request), request.params.id, request.body),
  )
}
