import { errors } from 'oidc-provider'

/** The longest redirect URI a client may register. */
const MAX_REDIRECT_URI_LENGTH = 2000

/** Schemes that are never a place to send an authorization code (they run code, read files or leave the device). */
const FORBIDDEN_SCHEMES = new Set([
  'javascript:',
  'data:',
  'file:',
  'vbscript:',
  'about:',
  'blob:',
  'filesystem:',
  'ftp:',
  'ws:',
  'wss:',
  'mailto:',
  'tel:',
  'sms:',
])
const LOOPBACK_HOSTS = new Set(['127.0.0.1', '[::1]', 'localhost'])
const PRIVATE_USE_SCHEME = /^[a-z][a-z0-9+.-]*:$/

/** Where a redirect URI leads: a web site (https), the client's own machine (loopback http), or an app (a private-use scheme). */
type RedirectKind = 'web' | 'loopback' | 'app'

/**
 * Checks one redirect URI the way RFC 8252 and the MCP authorization spec want: https; http only
 * to a loopback address (any port: native clients pick one at run time); or an app's own
 * private-use scheme (cursor://…, vscode://…). Throws the OAuth error the client sees.
 */
function redirectKindOf(uri: unknown): RedirectKind {
  const refuse = (why: string) => new errors.InvalidRedirectUri(why)
  if (typeof uri !== 'string') throw refuse('redirect_uris must only contain strings')
  if (uri.length > MAX_REDIRECT_URI_LENGTH) throw refuse(`redirect_uris must be at most ${MAX_REDIRECT_URI_LENGTH} characters long`)
  const url = URL.parse(uri)
  if (!url) throw refuse('redirect_uris must only contain absolute URIs')
  if (uri.includes('#')) throw refuse('redirect_uris must not contain fragments')
  if (url.username || url.password) throw refuse('redirect_uris must not contain a user name or password')
  if (url.protocol === 'https:') return 'web'
  if (url.protocol === 'http:') {
    if (LOOPBACK_HOSTS.has(url.hostname)) return 'loopback'
    throw refuse('redirect_uris using http must point to a loopback address (127.0.0.1, [::1] or localhost); use https otherwise')
  }
  if (FORBIDDEN_SCHEMES.has(url.protocol) || !PRIVATE_USE_SCHEME.test(url.protocol)) {
    throw refuse(`redirect_uris must not use the ${url.protocol.slice(0, -1)} scheme`)
  }
  return 'app'
}

/**
 * Applied to every client's metadata (registration and metadata documents) before oidc-provider
 * validates it. Clients are public (no secret to store or leak; PKCE protects the code), get
 * the code flow with refresh tokens whatever they asked for (RFC 7591 lets the server replace
 * values; the registration response says what was kept), and a client with loopback or app
 * redirect URIs is a native one, so a loopback URI matches on any port (RFC 8252 §7.3).
 */
export function applyClientPolicy(metadata: Record<string, unknown>): void {
  const uris = metadata.redirect_uris
  if (!Array.isArray(uris) || uris.length === 0) throw new errors.InvalidRedirectUri('redirect_uris must contain at least one URI')
  const kinds = uris.map(redirectKindOf)
  metadata.token_endpoint_auth_method = 'none'
  delete metadata.client_secret
  metadata.grant_types = ['authorization_code', 'refresh_token']
  metadata.response_types = ['code']
  if (kinds.some((kind) => kind !== 'web')) metadata.application_type = 'native'
}
