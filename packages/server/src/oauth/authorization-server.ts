import { eq } from 'drizzle-orm'
import Provider, { errors, interactionPolicy, type Configuration, type KoaContextWithOIDC } from 'oidc-provider'
import type { MetadataFetcher } from '../adapters/metadata-fetcher.ts'
import type { Clock } from '../adapters/clock.ts'
import type { Config } from '../config.ts'
import type { Db } from '../db/client.ts'
import { users } from '../db/schema.ts'
import type { PrincipalCache } from '../api-keys/principal-cache.ts'
import type { Logger } from '../lib/logger.ts'
import { applyClientPolicy } from './client-policy.ts'
import { OAUTH_ROUTES, OAUTH_SCOPES, resourceUrlOf, consentPagePath } from './oauth-urls.ts'
import { renderOAuthError } from './error-page.ts'
import type { OAuthServerKeys } from './server-keys.ts'
import { DrizzleOAuthAdapter } from './storage-adapter.ts'

/** Access tokens live an hour (the MCP authorization spec asks for short-lived ones); refresh tokens rotate on every use. */
const ACCESS_TOKEN_TTL_SECONDS = 60 * 60
const REFRESH_TOKEN_TTL_SECONDS = 30 * 24 * 60 * 60
/** A grant outlives its refresh tokens a little; Connected apps lists grants until revoked or expired. */
const GRANT_TTL_SECONDS = 90 * 24 * 60 * 60
const INTERACTION_TTL_SECONDS = 60 * 60
const SESSION_TTL_SECONDS = 24 * 60 * 60
const AUTHORIZATION_CODE_TTL_SECONDS = 60
/** Ours, and OpenID's for clients that ask for an ID token or say they want refresh tokens. */
const SUPPORTED_SCOPES = ['openid', 'offline_access', ...OAUTH_SCOPES]

export interface AuthorizationServerDeps {
  config: Config
  db: Db
  clock: Clock
  logger: Logger
  principals: PrincipalCache
  keys: OAuthServerKeys
  fetchClientMetadata: MetadataFetcher
}

/**
 * Every authorization asks the person: the consent page is where they pick the workspace and
 * what to grant, and a grant narrower than the request (read-only) is an answer, not a reason to
 * ask again (oidc-provider's own consent checks would re-prompt for the scopes left out).
 */
function askEveryTime(supportedScopes: readonly string[]) {
  const policy = interactionPolicy.base()
  const consent = policy.get('consent')
  const login = policy.get('login')
  if (!consent || !login) throw new Error('oidc-provider has no login or consent prompt')
  // oidc-provider drops scopes it does not know; a client asking for one should hear so (invalid_scope, sent to its redirect URI).
  login.checks.add(
    new interactionPolicy.Check('signet_known_scopes', 'every scope asked for exists', (ctx: KoaContextWithOIDC) => {
      const asked = typeof ctx.oidc.params?.scope === 'string' ? ctx.oidc.params.scope.split(' ').filter(Boolean) : []
      const unknown = asked.filter((scope) => !supportedScopes.includes(scope))
      if (unknown.length > 0)
        throw new errors.InvalidScope(`unknown scope: ${unknown.join(' ')} (this server offers ${supportedScopes.join(', ')})`, unknown.join(' '))
      return interactionPolicy.Check.NO_NEED_TO_PROMPT
    }),
    0,
  )
  consent.checks.clear()
  consent.checks.add(
    new interactionPolicy.Check('signet_consent', 'the person chooses what to grant', (ctx: KoaContextWithOIDC) =>
      ctx.oidc.result?.consent ? interactionPolicy.Check.NO_NEED_TO_PROMPT : interactionPolicy.Check.REQUEST_PROMPT,
    ),
  )
  return policy
}

/**
 * The OAuth 2.1 authorization server agents sign in through (oidc-provider, certified; we only
 * configure it): authorization code with PKCE S256 only, public clients registered dynamically
 * (RFC 7591) or by metadata document, access tokens bound to the MCP endpoint (RFC 8707)
 * and stored as hashes, rotating refresh tokens, revocation (RFC 7009). The issuer is PUBLIC_URL.
 */
export function createAuthorizationServer(deps: AuthorizationServerDeps): Provider {
  const { config, db, clock, logger, keys, principals } = deps
  const resource = resourceUrlOf(config)
  const secureCookies = config.publicUrl.startsWith('https:')
  const cookie = { signed: true, httpOnly: true, sameSite: 'lax' as const, secure: secureCookies }

  const configuration: Configuration = {
    adapter: (model: string) =>
      new DrizzleOAuthAdapter(
        model,
        db,
        () => clock.now(),
        () => principals.clear(),
      ),
    jwks: { keys: [keys.signingJwk] },
    cookies: { keys: keys.cookieKeys, long: cookie, short: cookie },
    routes: OAUTH_ROUTES,
    scopes: SUPPORTED_SCOPES,
    responseTypes: ['code'],
    clientAuthMethods: ['none'],
    pkce: { required: () => true },
    clientDefaults: { grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'], token_endpoint_auth_method: 'none' },
    extraClientMetadata: {
      // Declared only so the validator sees every client's metadata (it rewrites and checks it; see client-policy.ts).
      properties: ['signet_policy'],
      validator: (_ctx, key, _value, metadata) => {
        if (key === 'signet_policy') applyClientPolicy(metadata)
      },
    },
    allowOmittingSingleRegisteredRedirectUri: false,
    clientBasedCORS: () => true,
    findAccount: async (_ctx, sub) => {
      const [user] = await db.select({ id: users.id }).from(users).where(eq(users.id, sub))
      return user ? { accountId: user.id, claims: () => ({ sub: user.id }) } : undefined
    },
    interactions: { url: (_ctx, interaction) => consentPagePath(interaction.uid), policy: askEveryTime(SUPPORTED_SCOPES) },
    issueRefreshToken: (_ctx, client) => client.grantTypeAllowed('refresh_token'),
    rotateRefreshToken: true,
    expiresWithSession: () => false,
    ttl: {
      AccessToken: ACCESS_TOKEN_TTL_SECONDS,
      AuthorizationCode: AUTHORIZATION_CODE_TTL_SECONDS,
      RefreshToken: REFRESH_TOKEN_TTL_SECONDS,
      Grant: GRANT_TTL_SECONDS,
      Interaction: INTERACTION_TTL_SECONDS,
      Session: SESSION_TTL_SECONDS,
      IdToken: ACCESS_TOKEN_TTL_SECONDS,
    },
    features: {
      devInteractions: { enabled: false },
      registration: { enabled: true },
      // Every client is public: one may revoke only the tokens issued to it.
      revocation: { enabled: true, allowedPolicy: (_ctx, client, token) => token.clientId === client.clientId },
      userinfo: { enabled: false },
      rpInitiatedLogout: { enabled: false },
      pushedAuthorizationRequests: { enabled: false },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => resource,
        useGrantedResource: () => true,
        getResourceServerInfo: (_ctx, indicator) => {
          if (indicator !== resource && indicator !== `${resource}/`) {
            throw new errors.InvalidTarget(`this server issues tokens only for ${resource}`)
          }
          return { scope: OAUTH_SCOPES.join(' '), audience: resource, accessTokenTTL: ACCESS_TOKEN_TTL_SECONDS, accessTokenFormat: 'opaque' }
        },
      },
      clientIdMetadataDocument: { enabled: true, ack: 'draft-02' },
    },
    fetch: (url, options) =>
      deps.fetchClientMetadata(typeof url === 'string' ? url : url instanceof URL ? url.href : url.url, {
        headers: new Headers(options?.headers),
        signal: options?.signal ?? null,
      }),
    renderError: (ctx, out) => {
      ctx.type = 'html'
      ctx.body = renderOAuthError(out)
    },
  }

  const provider = new Provider(config.publicUrl, configuration)
  // The HTTP layer sets X-Forwarded-Proto/-Host from PUBLIC_URL on every request it hands over (http/routes/oauth.ts).
  provider.proxy = true
  provider.on('server_error', (_ctx, error) => logger.error({ err: error }, 'OAuth server error'))
  return provider
}
