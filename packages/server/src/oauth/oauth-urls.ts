import type { Config } from '../config.ts'
import { SCOPES, type Scope } from '../db/schema.ts'

/** The scopes a client may ask for: the same two as API keys (actors/scopes.ts). */
export const OAUTH_SCOPES: readonly Scope[] = SCOPES

/** Where oidc-provider's endpoints live, all under /oauth (the consent page is the dashboard's, under /app). */
export const OAUTH_ROUTES = {
  authorization: '/oauth/authorize',
  token: '/oauth/token',
  registration: '/oauth/register',
  revocation: '/oauth/revoke',
  jwks: '/oauth/jwks',
} as const

/** The protected resource: the MCP endpoint's canonical URL (no trailing slash), the audience of every access token. */
export const resourceUrlOf = (config: Pick<Config, 'publicUrl'>): string => `${config.publicUrl}/api/mcp`

/** RFC 9728 metadata for the MCP endpoint: the path-inserted form, which clients try first. */
export const PROTECTED_RESOURCE_METADATA_PATH = '/.well-known/oauth-protected-resource/api/mcp'
export const protectedResourceMetadataUrlOf = (config: Pick<Config, 'publicUrl'>): string => `${config.publicUrl}${PROTECTED_RESOURCE_METADATA_PATH}`

/** The dashboard page where a person signs in and consents; its JSON endpoints sit under it so oidc-provider's interaction cookie reaches them. */
export const CONSENT_PAGE_PREFIX = '/app/oauth/consent'
export const consentPagePath = (uid: string): string => `${CONSENT_PAGE_PREFIX}/${uid}`

/**
 * An authorization request that names neither of our scopes (none at all, or only OpenID's)
 * asks for the default, both: RFC 6749 §3.3 lets the server pick one, the consent page lets the
 * person narrow it, and the token's `scope` says what was granted. Otherwise oidc-provider would
 * refuse a request without `scope` and grant an "openid"-only one nothing.
 */
export function withDefaultScopes(pathAndQuery: string): string {
  const queryAt = pathAndQuery.indexOf('?')
  const path = queryAt === -1 ? pathAndQuery : pathAndQuery.slice(0, queryAt)
  if (path !== OAUTH_ROUTES.authorization) return pathAndQuery
  const params = new URLSearchParams(queryAt === -1 ? '' : pathAndQuery.slice(queryAt + 1))
  // A repeated parameter is oidc-provider's to refuse.
  if (params.getAll('scope').length > 1) return pathAndQuery
  const asked = (params.get('scope') ?? '').split(' ').filter(Boolean)
  if (OAUTH_SCOPES.some((scope) => asked.includes(scope))) return pathAndQuery
  params.set('scope', [...asked, ...OAUTH_SCOPES].join(' '))
  return `${path}?${params.toString()}`
}
