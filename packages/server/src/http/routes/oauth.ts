import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { FastifyReply, FastifyRequest } from 'fastify'
import { errors, type InteractionResults } from 'oidc-provider'
import { limitClientRegistrations } from '../../accounts/address-limits.ts'
import { authenticateSession, type SignedInSession } from '../../accounts/sessions.ts'
import { AppError } from '../../errors.ts'
import { createAuthorizationServer } from '../../oauth/authorization-server.ts'
import { answerConsent, describeConsent, type GrantMaker, type PendingAuthorization } from '../../oauth/consent.ts'
import { ConsentAnswerBody, ConsentDetailsView, ConsentParams, ConsentRedirect } from '../../oauth/oauth.schemas.ts'
import { CONSENT_PAGE_PREFIX, OAUTH_ROUTES, OAUTH_SCOPES, PROTECTED_RESOURCE_METADATA_PATH, resourceUrlOf, withDefaultScopes } from '../../oauth/oauth-urls.ts'
import { loadOAuthServerKeys } from '../../oauth/server-keys.ts'
import type { Services } from '../../services.ts'
import { ErrorBody } from '../schemas.ts'
import { requireSameOrigin, sessionTokenOf } from '../session-cookie.ts'

const hidden = { hide: true }

/**
 * The OAuth side of the MCP endpoint: RFC 9728 metadata naming the authorization server,
 * oidc-provider's endpoints under /oauth (handed the raw request: it parses its own bodies and
 * answers in OAuth's format), and the consent page's two JSON endpoints.
 */
export const oauthRoutes: FastifyPluginAsyncTypebox<{ services: Services }> = async (app, { services }) => {
  const { config } = services
  const provider = createAuthorizationServer({ ...services, keys: await loadOAuthServerKeys(services.db) })
  const handle = provider.callback()
  const resource = resourceUrlOf(config)
  const publicUrl = new URL(config.publicUrl)

  const protectedResourceMetadata = {
    resource,
    authorization_servers: [config.publicUrl],
    scopes_supported: OAUTH_SCOPES,
    bearer_methods_supported: ['header'],
    resource_name: 'Signet',
    resource_documentation: `${config.publicUrl}/docs`,
  }
  const sendResourceMetadata = async (_request: FastifyRequest, reply: FastifyReply) =>
    reply.header('access-control-allow-origin', '*').header('cache-control', 'public, max-age=3600').send(protectedResourceMetadata)
  app.get(PROTECTED_RESOURCE_METADATA_PATH, { schema: hidden }, sendResourceMetadata)
  app.get('/.well-known/oauth-protected-resource', { schema: hidden }, sendResourceMetadata)

  /** Hands the request to oidc-provider before Fastify reads its body. */
  const toAuthorizationServer = async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
    if (request.method === 'POST' && request.url.split('?')[0] === OAUTH_ROUTES.registration) {
      try {
        await limitClientRegistrations(services, request.ip)
      } catch (error) {
        if (!(error instanceof AppError)) throw error
        await reply.status(error.status).headers(error.headers).send({ error: 'invalid_request', error_description: error.message })
        return
      }
    }
    // RFC 8414's well-known path serves the same document as OpenID discovery.
    if (request.raw.url?.startsWith('/.well-known/oauth-authorization-server')) request.raw.url = '/.well-known/openid-configuration'
    if (request.method === 'GET' && request.raw.url) request.raw.url = withDefaultScopes(request.raw.url)
    // oidc-provider builds its URLs from the request; these make them PUBLIC_URL's whatever
    // address the request came to (a proxy, an internal name), and give it the client address Fastify trusts.
    const headers = request.raw.headers
    headers['x-forwarded-proto'] = publicUrl.protocol.slice(0, -1)
    headers['x-forwarded-host'] = publicUrl.host
    headers['x-forwarded-for'] = request.ip
    reply.hijack()
    await handle(request.raw, reply.raw)
  }
  const handOver = { schema: hidden, onRequest: toAuthorizationServer }
  const methods = ['GET', 'POST', 'OPTIONS', 'HEAD', 'DELETE', 'PUT']
  app.route({ method: methods, url: '/oauth/*', ...handOver, handler: async () => undefined })
  app.route({ method: ['GET', 'OPTIONS', 'HEAD'], url: '/.well-known/openid-configuration', ...handOver, handler: async () => undefined })
  app.route({ method: ['GET', 'OPTIONS', 'HEAD'], url: '/.well-known/oauth-authorization-server', ...handOver, handler: async () => undefined })

  /** The signed-in person on the consent page; without a session the page sends them to the login. */
  const signedIn = async (request: FastifyRequest): Promise<SignedInSession> => {
    const token = sessionTokenOf(request)
    const session = token ? await authenticateSession(services, token) : null
    if (!session) throw new AppError('unauthenticated', 'Sign in to Signet to connect this app.')
    return session
  }

  /** The authorization request this browser started (oidc-provider's interaction cookie, scoped to this page's path, must match). */
  const pendingOf = async (request: FastifyRequest, reply: FastifyReply, uid: string) => {
    const expired = () =>
      new AppError('not_found', 'This connection request has expired or was started in another browser. Go back to your app and connect again.')
    let interaction
    let client
    try {
      interaction = await provider.interactionDetails(request.raw, reply.raw)
      // A metadata-document client is fetched again once its cache lapses; a failure there ends the request too.
      client = await provider.Client.find(String(interaction.params.client_id))
    } catch (error) {
      if (error instanceof errors.OIDCProviderError) throw expired()
      throw error
    }
    if (interaction.uid !== uid || !client) throw expired()
    const clientId = client.clientId
    const pending: PendingAuthorization = {
      clientId,
      clientName: client.clientName ?? null,
      clientUri: typeof client.clientUri === 'string' ? client.clientUri : null,
      metadataDocument: /^https:\/\//.test(clientId),
      redirectUri: String(interaction.params.redirect_uri),
      requestedScope: typeof interaction.params.scope === 'string' ? interaction.params.scope : '',
      answered: interaction.result !== undefined,
    }
    return pending
  }

  const makeGrant: GrantMaker = async ({ accountId, clientId, scopes, openIdScopes }) => {
    const grant = new provider.Grant({ accountId, clientId })
    grant.addResourceScope(resource, scopes.join(' '))
    if (openIdScopes.length > 0) grant.addOIDCScope(openIdScopes.join(' '))
    return grant.save()
  }

  app.get(
    `${CONSENT_PAGE_PREFIX}/:uid/details`,
    { schema: { ...hidden, params: ConsentParams, response: { 200: ConsentDetailsView, '4xx': ErrorBody } } },
    async (request, reply) => {
      void reply.header('cache-control', 'no-store')
      const session = await signedIn(request)
      return describeConsent(services.db, session, await pendingOf(request, reply, request.params.uid))
    },
  )

  app.post(
    `${CONSENT_PAGE_PREFIX}/:uid/decision`,
    { schema: { ...hidden, params: ConsentParams, body: ConsentAnswerBody, response: { 200: ConsentRedirect, '4xx': ErrorBody } } },
    async (request, reply) => {
      void reply.header('cache-control', 'no-store')
      requireSameOrigin(request, config, { whenAbsent: 'refuse' })
      const session = await signedIn(request)
      const answer = request.body
      const granted = await answerConsent(services.db, session, await pendingOf(request, reply, request.params.uid), answer, makeGrant)
      const result: InteractionResults = granted
        ? { login: { accountId: session.userId }, consent: { grantId: granted.grantId } }
        : { error: 'access_denied', error_description: 'The person declined to connect the app.' }
      try {
        return { redirect_to: await provider.interactionResult(request.raw, reply.raw, result, { mergeWithLastSubmission: false }) }
      } catch (error) {
        if (error instanceof errors.OIDCProviderError)
          throw new AppError('not_found', 'This connection request has expired. Go back to your app and connect again.')
        throw error
      }
    },
  )
}
