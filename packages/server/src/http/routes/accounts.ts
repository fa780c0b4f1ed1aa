import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { FastifyReply, FastifyRequest } from 'fastify'
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
import { forgotPassword, logIn, resetPassword, type SignedIn } from '../../accounts/log-in.ts'
import { operatorExists, setUpOperator } from '../../accounts/operator-setup.ts'
import { endSessionByToken } from '../../accounts/sessions.ts'
import { signUp, verifyEmail, type Client } from '../../accounts/sign-up.ts'
import type { Services } from '../../services.ts'
import { ErrorBody } from '../schemas.ts'
import { clearSessionCookie, requireSameOrigin, sessionTokenOf, setSessionCookie } from '../session-cookie.ts'

const tags = ['Accounts']
/** These routes need no session or key. */
const security: [] = []

const badRequest = { ...ErrorBody, description: 'Invalid body, or a password that is too short, too long or too common' }
const crossSite = { ...ErrorBody, description: 'The request came from another site (Origin check)' }
const tooMany = { ...ErrorBody, description: 'Too many attempts from this address (or, on log-in, for this account); see Retry-After' }
const unknownLink = { ...ErrorBody, description: 'Unknown link' }
const spentLink = { ...ErrorBody, description: 'The link expired or was already used' }

export const clientOf = (request: FastifyRequest): Client => ({ ip: request.ip, userAgent: request.headers['user-agent'] ?? null })

/**
 * The doors that need no session: instance facts, sign-up and its e-mail check, log-in and
 * log-out, forgotten passwords, the operator's first setup and the invitation preview. A
 * request that names its page (Origin) must come from the dashboard; every route that signs
 * someone in sets a brand-new session cookie.
 */
export const accountRoutes: FastifyPluginAsyncTypebox<{ services: Services; version: string }> = async (app, { services, version }) => {
  const { config } = services
  app.addHook('onRequest', async (request) => requireSameOrigin(request, config, { whenAbsent: 'allow' }))

  const signIn = (reply: FastifyReply, signedIn: SignedIn) => {
    setSessionCookie(reply, config, signedIn.session)
    return reply.send(signedIn.me)
  }

  app.get(
    '/instance',
    { schema: { operationId: 'getInstance', tags, security, summary: 'What the dashboard needs to know before anyone signs in', response: { 200: Instance } } },
    async () => ({ setup_required: !(await operatorExists(services.db)), signup_open: true, version }),
  )

  app.post(
    '/auth/signup',
    {
      schema: {
        operationId: 'signUp',
        tags,
        security,
        summary: 'Create an account (the same answer whether or not the address already has one; the mail differs)',
        body: SignUpBody,
        response: { 202: Message, 400: badRequest, 403: crossSite, 404: unknownLink, 410: spentLink, 429: tooMany },
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
        summary: "Confirm the address from the mailed link; signs in (Set-Cookie)",
        body: TokenBody,
        response: { 200: Me, 400: badRequest, 403: crossSite, 404: unknownLink, 410: spentLink },
      },
    },
    async (request, reply) => signIn(reply, await verifyEmail(services, request.body.token, clientOf(request))),
  )

  app.post(
    '/auth/login',
    {
      schema: {
        operationId: 'logIn',
        tags,
        security,
        summary: 'Sign in with e-mail and password (Set-Cookie: a new session)',
        body: LogInBody,
        response: {
          200: Me,
          400: badRequest,
          401: { ...ErrorBody, description: 'Wrong e-mail or password' },
          403: { ...ErrorBody, description: 'The address is not verified yet (a new link is mailed), the account is disabled, or a cross-site request' },
          429: tooMany,
        },
      },
    },
    async (request, reply) => signIn(reply, await logIn(services, request.body, clientOf(request))),
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
        response: { 202: Message, 400: badRequest, 403: crossSite, 429: tooMany },
      },
    },
    async (request, reply) => reply.status(202).send(await forgotPassword(services, request.body, clientOf(request))),
  )

  app.post(
    '/auth/reset-password',
    {
      schema: {
        operationId: 'resetPassword',
        tags,
        security,
        summary: 'Choose a new password from the mailed link (single use, one hour); ends every session and signs in (Set-Cookie)',
        body: ResetPasswordBody,
        response: { 200: Me, 400: badRequest, 403: crossSite, 404: unknownLink, 410: spentLink },
      },
    },
    async (request, reply) => signIn(reply, await resetPassword(services, request.body, clientOf(request))),
  )

  app.post(
    '/auth/setup',
    {
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
}
