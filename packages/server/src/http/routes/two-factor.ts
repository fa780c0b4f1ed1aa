import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import { Me } from '../../accounts/accounts.schemas.ts'
import { UserIdParams } from '../../operator/operator.schemas.ts'
import { requireOperator } from '../../accounts/roles.ts'
import {
  addPasskey,
  confirmTotpSetup,
  disableTotp,
  listAccountEvents,
  regenerateRecoveryCodes,
  removePasskey,
  startPasskeySetup,
  startTotpSetup,
  twoFactorStatus,
} from '../../accounts/two-factor/enrolment.ts'
import { resetTwoFactor } from '../../accounts/two-factor/operator-reset.ts'
import {
  finishPasskeySignIn,
  finishWithPasskey,
  finishWithRecoveryCode,
  finishWithTotp,
  passkeyOptionsForStep,
  startPasskeySignIn,
} from '../../accounts/two-factor/sign-in-steps.ts'
import type { TwoFactorServices } from '../../accounts/two-factor/two-factor-services.ts'
import {
  AccountEventList,
  AddedPasskey,
  AddPasskeyBody,
  CodeBody,
  ConfirmTotpBody,
  FactorAdded,
  PasskeyAnswerBody,
  PasskeyIdParams,
  PasskeyOptions,
  PasswordBody,
  RecoveryCodes,
  TotpSetup,
  TwoFactorStatus,
  WorkspaceSecurity,
  WorkspaceSecurityBody,
} from '../../accounts/two-factor/two-factor.schemas.ts'
import { setWorkspaceTwoFactor, workspaceSecurity } from '../../accounts/two-factor/workspace-rule.ts'
import { actorOf, sessionOf } from '../auth.ts'
import { ErrorBody, withCommonErrors } from '../schemas.ts'
import { clientOf } from '../client.ts'
import { sendSignedIn, setSignInStepCookie, signInStepTokenOf as stepTokenOf } from '../session-cookie.ts'

const tags = ['Two-factor sign-in']
const publicSecurity: [] = []
const sessionSecurity = [{ sessionCookie: [] }]
const error = (description: string) => ({ ...ErrorBody, description })
const wrongAnswer = error('The code or passkey was not accepted (it counts against the account’s lockout)')
const stepGone = error('No sign-in step, or it expired or ran out of answers: sign in again')
const crossSite = error('The request came from another site (Origin check)')
const wrongPassword = error('Invalid body, or your password is not right')
const tooMany = error('Too many failed sign-ins for this account; see Retry-After')

/** A route's options: its operation id, summary and schemas, with the tag and who may call it. */
const routeOptions =
  (security: typeof publicSecurity | typeof sessionSecurity, routeTags: string[] = tags) =>
  <S extends object>(operationId: string, summary: string, schemas: S) => ({ schema: { operationId, tags: routeTags, security, summary, ...schemas } })
const publicRoute = routeOptions(publicSecurity)
const sessionRoute = routeOptions(sessionSecurity)
const operatorRoute = routeOptions(sessionSecurity, ['Operator'])

/**
 * The second step of signing in (after /auth/login answered 202) and passkey-only sign-in.
 * Registered with the other /auth routes: no session needed, the Origin check applies.
 */
export const twoFactorSignInRoutes: FastifyPluginAsyncTypebox<{ services: TwoFactorServices }> = async (app, { services }) => {
  const { config } = services
  const signIn = sendSignedIn
  const signedInResponses = { 200: Me, 400: error('Invalid body'), 401: wrongAnswer, 403: crossSite, 410: stepGone, 429: tooMany }

  app.post(
    '/auth/second-factor/totp',
    publicRoute('signInWithTotp', 'Finish signing in with a code from the authenticator app (Set-Cookie: a new session)', {
      body: CodeBody,
      response: signedInResponses,
    }),
    async (request, reply) => signIn(reply, config, await finishWithTotp(services, stepTokenOf(request), request.body.code, clientOf(request))),
  )

  app.post(
    '/auth/second-factor/recovery-code',
    publicRoute('signInWithRecoveryCode', 'Finish signing in with a one-time recovery code (the user is mailed)', {
      body: CodeBody,
      response: signedInResponses,
    }),
    async (request, reply) => signIn(reply, config, await finishWithRecoveryCode(services, stepTokenOf(request), request.body.code, clientOf(request))),
  )

  app.post(
    '/auth/second-factor/passkey/options',
    publicRoute('secondFactorPasskeyOptions', 'Options for answering the sign-in step with one of your passkeys', {
      response: { 200: PasskeyOptions, 403: crossSite, 410: stepGone },
    }),
    async (request) => passkeyOptionsForStep(services, stepTokenOf(request)),
  )

  app.post(
    '/auth/second-factor/passkey',
    publicRoute('signInWithSecondFactorPasskey', 'Finish signing in with one of your passkeys (Set-Cookie: a new session)', {
      body: PasskeyAnswerBody,
      response: { ...signedInResponses, 409: error('Ask for the options first') },
    }),
    async (request, reply) => signIn(reply, config, await finishWithPasskey(services, stepTokenOf(request), request.body.response, clientOf(request))),
  )

  app.post(
    '/auth/passkey/options',
    publicRoute('passkeySignInOptions', 'Start signing in with a passkey alone (no password): options for the browser', {
      response: { 200: PasskeyOptions, 403: crossSite },
    }),
    async (_request, reply) => {
      const started = await startPasskeySignIn(services)
      setSignInStepCookie(reply, config, started.token, started.expiresAt)
      return reply.send({ options: started.options })
    },
  )

  app.post(
    '/auth/passkey',
    publicRoute('signInWithPasskey', 'Sign in with a passkey alone (it must verify you on the device); Set-Cookie: a new session', {
      body: PasskeyAnswerBody,
      response: signedInResponses,
    }),
    async (request, reply) => signIn(reply, config, await finishPasskeySignIn(services, stepTokenOf(request), request.body.response, clientOf(request))),
  )
}

/** Account → Security, the workspace's rule and the operator's reset: behind the session (an API key gets 401). */
export const twoFactorRoutes: FastifyPluginAsyncTypebox<{ services: TwoFactorServices }> = async (app, { services }) => {
  const { db } = services
  const confirmed = (description: string) => withCommonErrors({ 204: Type.Null({ description }), 400: wrongPassword, 403: crossSite })

  app.get(
    '/me/two-factor',
    sessionRoute('getTwoFactor', 'Your second factors, recovery codes left, and the workspaces that require one', {
      response: withCommonErrors({ 200: TwoFactorStatus }),
    }),
    async (request) => twoFactorStatus(db, sessionOf(request)),
  )

  app.post(
    '/me/two-factor/totp',
    sessionRoute('startTotpSetup', 'Start setting up an authenticator app: a new secret and its QR code (confirm with a code)', {
      response: withCommonErrors({ 200: TotpSetup, 403: crossSite }),
    }),
    async (request) => startTotpSetup(services, sessionOf(request)),
  )

  app.post(
    '/me/two-factor/totp/confirm',
    sessionRoute('confirmTotpSetup', 'Turn the authenticator app on with its first code and your password (recovery codes come with a first second factor)', {
      body: ConfirmTotpBody,
      response: withCommonErrors({
        200: FactorAdded,
        400: error('Invalid body, a wrong code, or your password is not right'),
        403: crossSite,
        410: error('The set-up step expired: start again'),
      }),
    }),
    async (request) => confirmTotpSetup(services, sessionOf(request), request.body, clientOf(request)),
  )

  app.post(
    '/me/two-factor/totp/disable',
    sessionRoute('disableTotp', 'Remove the authenticator app (needs your password)', {
      body: PasswordBody,
      response: { ...confirmed('Removed'), 409: error('No app is set up, or a workspace of yours requires a second factor and this is your last') },
    }),
    async (request, reply) => {
      await disableTotp(services, sessionOf(request), request.body, clientOf(request))
      return reply.status(204).send(null)
    },
  )

  app.post(
    '/me/passkeys/options',
    sessionRoute('startPasskeySetup', 'Options for the browser to make a new passkey (needs your password)', {
      body: PasswordBody,
      response: withCommonErrors({ 200: PasskeyOptions, 400: wrongPassword, 403: crossSite }),
    }),
    async (request) => startPasskeySetup(services, sessionOf(request), request.body, clientOf(request)),
  )

  app.post(
    '/me/passkeys',
    sessionRoute('addPasskey', 'Add the passkey the browser made for the options this session asked for', {
      body: AddPasskeyBody,
      response: withCommonErrors({
        201: AddedPasskey,
        400: error('Invalid body, or a passkey that does not check out'),
        403: crossSite,
        409: error('Already registered'),
        410: error('The set-up step expired: start again'),
      }),
    }),
    async (request, reply) => reply.status(201).send(await addPasskey(services, sessionOf(request), request.body, clientOf(request))),
  )

  app.post(
    '/me/passkeys/:id/remove',
    sessionRoute('removePasskey', 'Remove one of your passkeys (needs your password)', {
      params: PasskeyIdParams,
      body: PasswordBody,
      response: {
        ...confirmed('Removed'),
        404: error('No such passkey of yours'),
        409: error('A workspace of yours requires a second factor and this is your last'),
      },
    }),
    async (request, reply) => {
      await removePasskey(services, sessionOf(request), request.params.id, request.body, clientOf(request))
      return reply.status(204).send(null)
    },
  )

  app.post(
    '/me/recovery-codes',
    sessionRoute('regenerateRecoveryCodes', 'Ten new recovery codes (the old ones stop working; needs your password)', {
      body: PasswordBody,
      response: withCommonErrors({ 200: RecoveryCodes, 400: wrongPassword, 403: crossSite, 409: error('No second factor is set up') }),
    }),
    async (request) => regenerateRecoveryCodes(services, sessionOf(request), request.body, clientOf(request)),
  )

  app.get(
    '/me/security-events',
    sessionRoute('listSecurityEvents', 'Your security log: password and second-factor changes, newest first', {
      response: withCommonErrors({ 200: AccountEventList }),
    }),
    async (request) => listAccountEvents(db, sessionOf(request)),
  )

  app.get(
    '/workspace/security',
    sessionRoute('getWorkspaceSecurity', 'Whether the workspace requires a second factor (owners and admins also see who has none)', {
      response: withCommonErrors({ 200: WorkspaceSecurity, 403: crossSite }),
    }),
    async (request) => workspaceSecurity(db, actorOf(request)),
  )

  app.put(
    '/workspace/security',
    sessionRoute('setWorkspaceSecurity', 'Require a second factor of every member, or stop requiring it (owners; every member is mailed)', {
      body: WorkspaceSecurityBody,
      response: withCommonErrors({
        200: WorkspaceSecurity,
        403: error('Only owners, or a cross-site request'),
        409: error('You have no second factor yourself'),
      }),
    }),
    async (request) => setWorkspaceTwoFactor(services, actorOf(request), request.body, clientOf(request)),
  )

  app.post(
    '/operator/users/:id/reset-two-factor',
    operatorRoute('resetUserTwoFactor', "Remove a user's second factors and recovery codes and end their sessions (they lost them; the user is mailed)", {
      params: UserIdParams,
      response: withCommonErrors({ 204: Type.Null({ description: 'Reset' }), 403: error('Only instance operators'), 404: error('No such user') }),
    }),
    async (request, reply) => {
      const operator = requireOperator(actorOf(request))
      await resetTwoFactor(services, { userId: request.params.id }, { operatorId: operator.id, origin: clientOf(request) })
      return reply.status(204).send(null)
    },
  )
}
