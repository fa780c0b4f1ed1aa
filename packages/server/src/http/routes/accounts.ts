import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { FastifyReply } from 'fastify'
import { Type } from 'typebox'
import {
  ForgotPasswordBody,
  Instance,
  InvitationPreview,
  LogInBody,
  Me,
  Message,
  ResetPasswordBody,
  SetUpOperatorBody,
  SignUpBody,
  TokenBody,
  TokenParams,
} from '../../accounts/accounts.schemas.ts'
import { previewInvitation } from '../../accounts/invitations.ts'
import type { SignedIn } from '../../accounts/complete-sign-in.ts'
import { forgotPassword, logIn, resetPassword } from '../../accounts/log-in.ts'
import { SecondFactorNeeded } from '../../accounts/two-factor/two-factor.schemas.ts'
import { operatorExists, setUpOperator } from '../../accounts/operator-setup.ts'
import { refuseWhenPasswordQueueIsFull } from '../../accounts/passwords.ts'
import { endSessionByToken } from '../../accounts/sessions.ts'
import { signUp, verifyEmail } from '../../accounts/sign-up.ts'
import type { Services } from '../../services.ts'
import { ErrorBody } from '../schemas.ts'
import { clientOf } from '../client.ts'
import { clearSessionCookie, requireSameOrigin, sendSignedIn, sendSignInOutcome, sessionTokenOf } from '../session-cookie.ts'
import { twoFactorSignInRoutes } from './two-factor.ts'

const tags = ['Accounts']
/** These routes need no session or key. */
const security: [] = []

const badRequest = { ...ErrorBody, description: 'Invalid body, or a password that is too short, too long or too common' }
const crossSite = { ...ErrorBody, description: 'The request came from another site (Origin check)' }
const tooMany = { ...ErrorBody, description: 'Too many attempts from this address (or, on log-in, for this account); see Retry-After' }
const busy = { ...ErrorBody, description: 'The server has too many sign-ins or sign-ups to handle at once; see Retry-After' }
const unknownLink = { ...ErrorBody, description: 'Unknown link' }
const spentLink = { ...ErrorBody, description: 'The link expired or was already used' }

/** On the routes that hash or check a password: a full queue answers 503 before the body is read. */
const refuseWhenBusy = async () => refuseWhenPasswordQueueIsFull()

/**
 * The doors that need no session: instance facts, sign-up and its e-mail check, log-in and
 * log-out, forgotten passwords, the operator's first setup and the invitation preview. A
 * request that names its page (Origin) must come from the dashboard; every route that signs
 * someone in sets a brand-new session cookie.
 */
export const accountRoutes: FastifyPluginAsyncTypebox<{ services: Services; version: string }> = async (app, { services, version }) => {
  const { config } = services
  app.addHook('onRequest', async (request, reply) => {
    // Answers carry sessions, accounts and links: no cache (browser, proxy) keeps them.
    void reply.header('cache-control', 'no-store')
    requireSameOrigin(request, config, { whenAbsent: 'allow' })
  })

  const signIn = (reply: FastifyReply, signedIn: SignedIn) => sendSignedIn(reply, config, signedIn)

  app.get(
    '/instance',
    { schema: { operationId: 'getInstance', tags, security, summary: 'What the dashboard needs to know before anyone signs in', response: { 200: Instance } } },
    async () => ({ setup_required: !(await operatorExists(services.db)), signup_open: true, version }),
  )

  app.post(
    '/auth/signup',
    {
      onRequest: refuseWhenBusy,
      schema: {
        operationId: 'signUp',
        tags,
        security,
        summary: 'Create an account (the same answer whether or not the address already has one; the mail differs)',
        body: SignUpBody,
        response: { 202: Message, 400: badRequest, 403: crossSite, 404: unknownLink, 410: spentLink, 429: tooMany, 503: busy },
      },
    },
    async (request, reply) => reply.status(202).send(await signUp(services, request.body, clientOf(request))),
  )

  app.post(
    '/auth/verify-email',
    {
      schema: {
        operationId: 'verifyEmail',
        tags,
        security,
        summary: 'Confirm the address from the mailed link; signs in (Set-Cookie)',
        body: TokenBody,
        response: { 200: Me, 400: badRequest, 403: crossSite, 404: unknownLink, 410: spentLink },
      },
    },
    async (request, reply) => signIn(reply, await verifyEmail(services, request.body.token, clientOf(request))),
  )

  app.post(
    '/auth/login',
    {
      onRequest: refuseWhenBusy,
      schema: {
        operationId: 'logIn',
        tags,
        security,
        summary: 'Sign in with e-mail and password (Set-Cookie: a new session), or 202 when the account has a second factor: finish with /auth/second-factor/*',
        body: LogInBody,
        response: {
          200: Me,
          202: { ...SecondFactorNeeded, description: 'The password was right; the account asks for its second factor (Set-Cookie: the sign-in step)' },
          400: badRequest,
          401: { ...ErrorBody, description: 'Wrong e-mail or password' },
          403: { ...ErrorBody, description: 'The address is not verified yet (a new link is mailed), the account is disabled, or a cross-site request' },
          429: tooMany,
          503: busy,
        },
      },
    },
    async (request, reply) => sendSignInOutcome(reply, config, await logIn(services, request.body, clientOf(request))),
  )

  app.post(
    '/auth/logout',
    {
      schema: {
        operationId: 'logOut',
        tags,
        security,
        summary: "End this browser's session and clear its cookie",
        response: { 204: Type.Null({ description: 'Signed out' }), 403: crossSite },
      },
    },
    async (request, reply) => {
      const token = sessionTokenOf(request)
      if (token) await endSessionByToken(services.db, token)
      clearSessionCookie(reply, config)
      return reply.status(204).send(null)
    },
  )

  app.post(
    '/auth/forgot-password',
    {
      schema: {
        operationId: 'forgotPassword',
        tags,
        security,
        summary: 'Mail a password reset link (the same answer whether or not the address has an account)',
        body: ForgotPasswordBody,
        response: { 202: Message, 400: badRequest, 403: crossSite, 429: tooMany, 503: busy },
      },
    },
    async (request, reply) => reply.status(202).send(await forgotPassword(services, request.body, clientOf(request))),
  )

  app.post(
    '/auth/reset-password',
    {
      onRequest: refuseWhenBusy,
      schema: {
        operationId: 'resetPassword',
        tags,
        security,
        summary: 'Choose a new password from the mailed link (single use, one hour); ends every session and signs in (Set-Cookie)',
        body: ResetPasswordBody,
        response: {
          200: Me,
          202: { ...SecondFactorNeeded, description: 'The password was changed; the account asks for its second factor before a session starts' },
          400: badRequest,
          403: crossSite,
          404: unknownLink,
          410: spentLink,
          503: busy,
        },
      },
    },
    async (request, reply) => sendSignInOutcome(reply, config, await resetPassword(services, request.body, clientOf(request))),
  )

  app.post(
    '/auth/setup',
    {
      onRequest: refuseWhenBusy,
      schema: {
        operationId: 'setUpOperator',
        tags,
        security,
        summary: 'Create the instance operator with the one-time link `npm start` prints on a fresh instance; signs in (Set-Cookie)',
        body: SetUpOperatorBody,
        response: {
          200: Me,
          400: badRequest,
          403: crossSite,
          404: unknownLink,
          409: { ...ErrorBody, description: 'The address already has an account (promote it with the CLI)' },
          410: spentLink,
          503: busy,
        },
      },
    },
    async (request, reply) => signIn(reply, await setUpOperator(services, request.body, clientOf(request))),
  )

  app.get(
    '/invitations/:token',
    {
      schema: {
        operationId: 'getInvitation',
        tags: ['Members'],
        security,
        summary: 'What an invitation link offers (workspace, address, role, who invited)',
        params: TokenParams,
        response: { 200: InvitationPreview, 404: unknownLink, 410: spentLink },
      },
    },
    async (request) => previewInvitation(services, request.params.token),
  )

  // The second step of signing in, and passkey sign-in: the same Origin check, no-store and body limit.
  await app.register(twoFactorSignInRoutes, { services })
}
