import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify'
import { actorFor, type Actor } from '../actors/actor.ts'
import type { Grant, OAuthGrantHolder, Principal } from '../actors/principal.ts'
import { requireScope, SCOPES, type Scope } from '../actors/scopes.ts'
import { authenticateApiKey, cachedApiKeyGrant } from '../api-keys/api-keys.ts'
import { FailedKeyLookups } from '../api-keys/failed-key-lookups.ts'
import { authenticateSession, type SignedInSession } from '../accounts/sessions.ts'
import type { Services } from '../services.ts'
import { AppError } from '../errors.ts'
import { authenticateAccessToken, looksLikeAccessToken } from '../oauth/access-tokens.ts'
import { OAUTH_SCOPES, protectedResourceMetadataUrlOf } from '../oauth/oauth-urls.ts'
import { clearSessionCookie, requireSameOrigin, sessionTokenOf } from './session-cookie.ts'

declare module 'fastify' {
  interface FastifyRequest {
    principal: Principal | null
    /** The dashboard session the request came with (routes behind apiAuth), or null for a key. */
    userSession: SignedInSession | null
    /** What the caller may do: the key's scopes, or every scope for a dashboard session (null before authentication: nothing). */
    scopes: readonly Scope[] | null
    /** The client and granting person when an OAuth access token authenticated the request (the MCP endpoint). */
    oauthHolder: OAuthGrantHolder | null
  }
}

const MISSING_KEY = 'Missing API key. Pass it as a bearer header: Authorization: Bearer <API_KEY>.'
const SESSION_ENDED = 'Your session has ended. Sign in again.'
const SECOND_FACTOR_NEEDED = (workspace: string) =>
  `The workspace "${workspace}" requires a second sign-in step. Set up an authenticator app or a passkey in Account → Security (or sign in again with yours) to continue.`
const NO_WORKSPACE = 'You do not belong to any workspace any more. Create a workspace or accept an invitation to continue.'

/** The presented key: `Authorization: Bearer <key>`, or the `X-API-Key` header some clients of the original service use. */
export function presentedKey(request: FastifyRequest): string | undefined {
  const header = request.headers.authorization
  const match = header ? /^Bearer\s+(\S+)\s*$/i.exec(header) : null
  if (match?.[1]) return match[1]
  const alternative = request.headers['x-api-key']
  return typeof alternative === 'string' && alternative.length > 0 ? alternative : undefined
}

type AuthServices = Pick<Services, 'db' | 'principals' | 'clock' | 'config'>

/**
 * onRequest hook for keys only (apiAuth's key path): resolves the key to its org before anything
 * else runs. The client's address is request.ip: the socket's peer, or what a proxy trusted by
 * TRUST_PROXY says (so behind a proxy TRUST_PROXY must name it, or every client shares the proxy's address).
 */
function apiKeyAuth(services: AuthServices) {
  const failedLookups = new FailedKeyLookups(services.config.failedAuthPerMinute, () => services.clock.now().getTime())
  return async (request: FastifyRequest, _reply: FastifyReply): Promise<void> => {
    const key = presentedKey(request)
    if (!key) throw new AppError('missing_api_key', MISSING_KEY)
    request.userSession = null
    const grant = await authenticateApiKey(services, key, { ip: request.ip, failedLookups })
    request.principal = grant.principal
    request.scopes = grant.scopes
  }
}

/**
 * onRequest hook for the MCP endpoint: an API key, or an OAuth access token issued for it. A
 * refusal carries WWW-Authenticate (RFC 6750, RFC 9728) naming the protected resource metadata
 * and both scopes, so a client given only the endpoint's URL finds the authorization server.
 */
export function mcpAuth(services: AuthServices) {
  const failedLookups = new FailedKeyLookups(services.config.failedAuthPerMinute, () => services.clock.now().getTime())
  const metadata = `resource_metadata="${protectedResourceMetadataUrlOf(services.config)}"`
  const challenge = `Bearer ${metadata}, scope="${OAUTH_SCOPES.join(' ')}"`
  const invalidChallenge = `Bearer error="invalid_token", ${metadata}`
  const withChallenge = (error: unknown, value: string): unknown =>
    error instanceof AppError && error.status === 401
      ? new AppError(error.code, error.message, error.extra, { ...error.headers, 'www-authenticate': value })
      : error
  const grantTo = (request: FastifyRequest, grant: Grant): void => {
    request.userSession = null
    request.principal = grant.principal
    request.scopes = grant.scopes
    request.oauthHolder = grant.oauth ?? null
  }
  const authenticate = async (request: FastifyRequest, presented: string): Promise<void> => {
    try {
      const presenter = { ip: request.ip, failedLookups }
      const grant = looksLikeAccessToken(presented)
        ? await authenticateAccessToken(services, presented, presenter)
        : await authenticateApiKey(services, presented, presenter)
      grantTo(request, grant)
    } catch (error) {
      throw withChallenge(error, invalidChallenge)
    }
  }
  // Callback-style, as apiAuth: a key this process already knows is answered without a promise.
  return (request: FastifyRequest, _reply: FastifyReply, done: HookHandlerDoneFunction): void => {
    const presented = presentedKey(request)
    if (!presented) return done(withChallenge(new AppError('missing_api_key', MISSING_KEY), challenge) as Error)
    const known = looksLikeAccessToken(presented) ? undefined : cachedApiKeyGrant(services, presented)
    if (!known) {
      authenticate(request, presented).then(() => done(), done)
      return
    }
    grantTo(request, known)
    done()
  }
}

/**
 * The scope a key needs for a /api/v1 route: read for GET and HEAD, write for any other method.
 * Decided here for every route, so a new route cannot forget it; no POST of the API only reads
 * (one that did would need a per-route exception here).
 */
const keyScopeOf = (request: FastifyRequest): Scope => (request.method === 'GET' || request.method === 'HEAD' ? 'read' : 'write')

/**
 * onRequest hook for /api/v1: an API key when one is presented (the key wins, so a key-using
 * client on a browser with a dashboard cookie acts as the key's org), else the dashboard's
 * session cookie. A key must hold the route's scope (keyScopeOf), checked before the body is
 * read. With a session the principal is the session's selected workspace, it has every scope,
 * and a state-changing request must pass the Origin check (CSRF).
 */
export function apiAuth(services: AuthServices) {
  const keyAuth = apiKeyAuth(services)
  const requireKeyScope = (request: FastifyRequest) =>
    requireScope({ authMethod: 'api_key', scopes: request.scopes ?? [] }, keyScopeOf(request), `${request.method} ${request.routeOptions.url ?? request.url}`)
  const authenticate = async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
    const sessionToken = presentedKey(request) ? undefined : sessionTokenOf(request)
    if (!sessionToken) {
      await keyAuth(request, reply)
      requireKeyScope(request)
      return
    }
    // What a session sees is the person's: no cache (browser, proxy) keeps it.
    void reply.header('cache-control', 'no-store')
    const session = await authenticateSession(services, sessionToken)
    if (!session) {
      clearSessionCookie(reply, services.config)
      throw new AppError('unauthenticated', SESSION_ENDED)
    }
    requireSameOrigin(request, services.config, { whenAbsent: 'refuse' })
    request.userSession = session
    request.scopes = SCOPES
    request.principal = session.workspace ? { orgId: session.workspace.orgId, orgName: session.workspace.orgName, plan: session.workspace.plan } : null
  }
  // Callback-style: a key this process already knows is answered without a promise (every request of a busy client).
  return (request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction): void => {
    const key = presentedKey(request)
    const known = key === undefined ? undefined : cachedApiKeyGrant(services, key)
    if (!known) {
      authenticate(request, reply).then(() => done(), done)
      return
    }
    request.userSession = null
    request.principal = known.principal
    request.scopes = known.scopes
    try {
      requireKeyScope(request)
    } catch (error) {
      return done(error as Error)
    }
    done()
  }
}

/** The authenticated org of a route behind apiAuth: the key's, or the session's selected workspace. */
export function principalOf(request: FastifyRequest): Principal {
  const workspace = request.userSession?.workspace
  if (workspace?.requireTwoFactor && !request.userSession?.secondFactor) throw new AppError('forbidden', SECOND_FACTOR_NEEDED(workspace.orgName))
  if (request.principal) return request.principal
  if (request.userSession) throw new AppError('forbidden', NO_WORKSPACE)
  throw new AppError('missing_api_key', MISSING_KEY)
}

/** The signed-in dashboard user of a session-only route; an API key gets 401. */
export function sessionOf(request: FastifyRequest): SignedInSession {
  if (!request.userSession) throw new AppError('unauthenticated', 'Sign in to the dashboard for this; API keys cannot use it.')
  return request.userSession
}

/**
 * Who acts in an authenticated request: a key's org through the given door (REST callers are
 * never counted as agents; every MCP call is one), or a dashboard user in their selected workspace.
 */
export function actorOf(request: FastifyRequest, channel: 'rest' | 'mcp' = 'rest'): Actor {
  const principal = principalOf(request)
  const scopes = request.scopes ?? []
  const client = { ip: request.ip, userAgent: request.headers['user-agent'] ?? null, clientName: null }
  const holder = request.oauthHolder
  if (holder) {
    // An agent acting with what a person granted it: audited as the client, for that person.
    return actorFor(principal, {
      channel,
      authMethod: 'oauth',
      agentTriggered: true,
      ...client,
      clientName: holder.clientName,
      user: holder.user,
      scopes,
    })
  }
  const session = request.userSession
  if (session?.workspace) {
    const { role } = session.workspace
    const user = { id: session.userId, email: session.email, name: session.name, role, isOperator: session.isOperator }
    return actorFor(principal, { channel: 'dashboard', authMethod: 'session', agentTriggered: false, ...client, user, scopes })
  }
  return actorFor(principal, { channel, authMethod: 'api_key', agentTriggered: channel === 'mcp', ...client, user: null, scopes })
}
