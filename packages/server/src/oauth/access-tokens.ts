import { and, eq, gt, sql } from 'drizzle-orm'
import type { Grant } from '../actors/principal.ts'
import type { Scope } from '../actors/scopes.ts'
import { refuseBrakedPresenter, type KeyPresenter } from '../api-keys/api-keys.ts'
import type { PrincipalCache } from '../api-keys/principal-cache.ts'
import type { Clock } from '../adapters/clock.ts'
import type { Config } from '../config.ts'
import type { Db } from '../db/client.ts'
import { connectedApps, memberships, oauthRecords, orgs, users } from '../db/schema.ts'
import { AppError } from '../errors.ts'
import { digestsEqual, sha256Hex } from '../lib/crypto.ts'
import { preparedPer } from '../lib/prepared.ts'
import { resourceUrlOf } from './oauth-urls.ts'

/** oidc-provider's opaque tokens: 256 random bits in base64url. */
const ACCESS_TOKEN_PATTERN = /^[A-Za-z0-9_-]{43}$/

/** Whether a presented bearer credential has the form of one of our access tokens (else it is taken for an API key). */
export const looksLikeAccessToken = (presented: string): boolean => ACCESS_TOKEN_PATTERN.test(presented)

/** A refused access token: the 401's WWW-Authenticate says error="invalid_token" (http/auth.ts). */
const invalidAccessToken = () =>
  new AppError('invalid_token', 'The access token is invalid, expired or revoked. Authorize again (your app does this by itself) or use an API key.')

const liveTokenByHash = preparedPer((db) =>
  db
    .select({
      idHash: oauthRecords.idHash,
      payload: oauthRecords.payload,
      expiresAt: oauthRecords.expiresAt,
      grantId: connectedApps.grantId,
      grantedScopes: connectedApps.scopes,
      clientName: connectedApps.clientName,
      orgId: orgs.id,
      orgName: orgs.name,
      plan: orgs.plan,
      userId: users.id,
      email: users.email,
      name: users.name,
      isOperator: users.isOperator,
      role: memberships.role,
    })
    .from(oauthRecords)
    .innerJoin(connectedApps, eq(connectedApps.grantId, oauthRecords.grantId))
    .innerJoin(orgs, eq(orgs.id, connectedApps.orgId))
    // The person must still belong to the workspace, with a role that may hold what was granted.
    .innerJoin(memberships, and(eq(memberships.orgId, connectedApps.orgId), eq(memberships.userId, connectedApps.userId)))
    .innerJoin(users, eq(users.id, connectedApps.userId))
    .where(and(eq(oauthRecords.model, 'AccessToken'), eq(oauthRecords.idHash, sql.placeholder('idHash')), gt(oauthRecords.expiresAt, sql.placeholder('now'))))
    .prepare('live_oauth_access_token'),
)

/** The scopes a token carries (its `scope`), narrowed to what its grant still allows and what the granting person's role may hold. */
function scopesOf(tokenScope: unknown, granted: readonly Scope[], role: string): Scope[] {
  const asked = typeof tokenScope === 'string' ? tokenScope.split(' ') : []
  return granted.filter((scope) => asked.includes(scope) && (scope === 'read' || role === 'owner' || role === 'admin'))
}

type TokenServices = { db: Db; principals: PrincipalCache; clock: Clock; config: Pick<Config, 'publicUrl'> }

/**
 * Resolves an OAuth access token presented at the MCP endpoint to the workspace and scopes its
 * grant holds. Refused (401 invalid_token): an unknown, expired or revoked token, one issued for
 * another audience (no passthrough), one whose granting person left the workspace. Cached like
 * keys (api-keys/principal-cache.ts, never past the token's expiry), and failed lookups brake the
 * presenter's address as for keys; revoking a grant NOTIFYs
 * every process, so the next call anywhere is refused.
 */
export async function authenticateAccessToken(services: TokenServices, presented: string, presenter: KeyPresenter): Promise<Grant> {
  if (!looksLikeAccessToken(presented)) throw invalidAccessToken()
  const tokenHash = sha256Hex(presented)
  const cached = services.principals.get(tokenHash)
  if (cached) return cached
  refuseBrakedPresenter(presenter, 'an invalid access token')
  const generation = services.principals.currentGeneration()
  const now = services.clock.now()
  const [row] = await liveTokenByHash(services.db).execute({ idHash: tokenHash, now })
  const audience = row?.payload.aud
  const resource = resourceUrlOf(services.config)
  if (!row || !digestsEqual(row.idHash, tokenHash) || (audience !== resource && !(Array.isArray(audience) && audience.includes(resource)))) {
    presenter.failedLookups.recordFailure(presenter.ip)
    throw invalidAccessToken()
  }
  const grant: Grant = {
    principal: { orgId: row.orgId, orgName: row.orgName, plan: row.plan },
    scopes: scopesOf(row.payload.scope, row.grantedScopes, row.role),
    oauth: {
      grantId: row.grantId,
      clientName: row.clientName,
      user: { id: row.userId, email: row.email, name: row.name, role: row.role, isOperator: row.isOperator },
    },
  }
  services.principals.set(tokenHash, grant, generation, row.expiresAt?.getTime())
  // At most once a minute or so per process (cache misses only): Connected apps' "last used".
  await services.db.update(connectedApps).set({ lastUsedAt: now }).where(eq(connectedApps.grantId, row.grantId))
  return grant
}
