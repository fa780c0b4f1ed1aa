import { randomBytes } from 'node:crypto'
import { and, eq, isNull, sql } from 'drizzle-orm'
import type { Db } from '../db/client.ts'
import { apiKeys, orgs } from '../db/schema.ts'
import { AppError, notFound } from '../errors.ts'
import { digestsEqual, sha256Hex } from '../lib/crypto.ts'
import { preparedPer } from '../lib/prepared.ts'
import { requireOrg } from '../orgs/require-org.ts'
import type { Grant } from '../actors/principal.ts'
import type { Scope } from '../actors/scopes.ts'
import type { FailedKeyLookups } from './failed-key-lookups.ts'
import { PRINCIPALS_CHANGED_CHANNEL, type PrincipalCache } from './principal-cache.ts'

/**
 * Keys look like `sgn_live_` + 64 hex characters (256 bits). The fixed prefix lets
 * secret scanners recognise a leaked key; the first 8 hex characters after it are
 * the key's public prefix, used to name it when revoking.
 */
export const API_KEY_PREFIX = 'sgn_live_'
const API_KEY_PATTERN = /^sgn_live_[0-9a-f]{64}$/
const PUBLIC_PREFIX_LENGTH = API_KEY_PREFIX.length + 8

export interface IssuedApiKey {
  id: string
  api_key: string
  prefix: string
  createdAt: Date
  scopes: Scope[]
}

/**
 * Issues a key for the org; `named` says what it is for and who made it (keys made in the dashboard).
 * Without `scopes` the key may read and write, as every key could before scopes existed.
 */
export async function createApiKey(
  db: Db,
  orgId: string,
  options: { named?: { name: string; createdByUserId: string }; scopes?: readonly Scope[] | undefined } = {},
): Promise<IssuedApiKey> {
  const apiKey = API_KEY_PREFIX + randomBytes(32).toString('hex')
  const prefix = apiKey.slice(0, PUBLIC_PREFIX_LENGTH)
  const { named } = options
  const [row] = await db
    .insert(apiKeys)
    .values({
      orgId,
      prefix,
      keyHash: sha256Hex(apiKey),
      name: named?.name ?? null,
      createdByUserId: named?.createdByUserId ?? null,
      ...(options.scopes ? { scopes: [...options.scopes] } : {}),
    })
    .returning({ id: apiKeys.id, createdAt: apiKeys.createdAt, scopes: apiKeys.scopes })
  if (!row) throw new Error('insert returned no row')
  return { id: row.id, api_key: apiKey, prefix, createdAt: row.createdAt, scopes: row.scopes }
}

/** Creates an additional key for an existing org (the operator CLI). */
export async function createOrgApiKey(db: Db, orgId: string, scopes?: readonly Scope[]): Promise<IssuedApiKey> {
  await requireOrg(db, orgId)
  return createApiKey(db, orgId, { scopes })
}

/** Tells every server process (on commit of `tx`) to forget the principals it has cached. */
export async function announcePrincipalsChanged(tx: Db): Promise<void> {
  await tx.execute(sql`select pg_notify(${PRINCIPALS_CHANGED_CHANNEL}, '')`)
}

/** Revokes every active key of the org whose public prefix matches (with or without `sgn_live_`). */
export async function revokeApiKey(db: Db, input: { orgId: string; prefix: string }, now: Date): Promise<{ revoked: number }> {
  await requireOrg(db, input.orgId)
  const prefix = input.prefix.startsWith(API_KEY_PREFIX) ? input.prefix : API_KEY_PREFIX + input.prefix
  if (prefix.length < PUBLIC_PREFIX_LENGTH) {
    throw new AppError('invalid_request', `A key prefix has ${PUBLIC_PREFIX_LENGTH - API_KEY_PREFIX.length} hex characters after ${API_KEY_PREFIX}.`)
  }
  const revoked = await db.transaction(async (tx) => {
    const rows = await tx
      .update(apiKeys)
      .set({ revokedAt: now })
      .where(and(eq(apiKeys.orgId, input.orgId), eq(apiKeys.prefix, prefix.slice(0, PUBLIC_PREFIX_LENGTH)), isNull(apiKeys.revokedAt)))
      .returning({ id: apiKeys.id })
    if (rows.length > 0) await announcePrincipalsChanged(tx)
    return rows.length
  })
  if (revoked === 0) throw notFound(`No active key with prefix ${prefix} in this org.`)
  return { revoked }
}

const activeKeyByHash = preparedPer((db) =>
  db
    .select({ keyHash: apiKeys.keyHash, scopes: apiKeys.scopes, orgId: orgs.id, orgName: orgs.name, plan: orgs.plan })
    .from(apiKeys)
    .innerJoin(orgs, eq(orgs.id, apiKeys.orgId))
    .where(and(eq(apiKeys.keyHash, sql.placeholder('keyHash')), isNull(apiKeys.revokedAt)))
    .prepare('active_api_key_by_hash'),
)

/** Who presents the key (its address, as the HTTP layer trusts it) and the brake on that address's failed lookups. */
export interface KeyPresenter {
  ip: string
  failedLookups: FailedKeyLookups
}

/** 429 for a presenter whose lookups keep failing, before the database is asked (`what`: "an invalid API key"). */
export function refuseBrakedPresenter(presenter: KeyPresenter, what: string): void {
  const waitSeconds = presenter.failedLookups.refusedForSeconds(presenter.ip)
  if (waitSeconds === undefined) return
  throw new AppError(
    'rate_limited',
    `Too many requests with ${what} from your address. Try again in ${waitSeconds} second${waitSeconds === 1 ? '' : 's'}.`,
    {},
    { 'retry-after': String(waitSeconds) },
  )
}

/**
 * Resolves a presented key to its org and scopes; any unknown, malformed or revoked key is the same 401.
 * A presenter whose lookups keep failing gets 429 before the database is asked; a key this
 * process recently authenticated (the cache) still works, so valid clients sharing that
 * address (a NAT, an office) are not locked out by a misconfigured neighbour.
 */
/**
 * The grant of a key this process has already looked up (the principal cache), without a
 * promise: the hot path of every request with a known key. Undefined: ask authenticateApiKey.
 */
export function cachedApiKeyGrant(services: { principals: PrincipalCache }, presented: string): Grant | undefined {
  if (!API_KEY_PATTERN.test(presented)) return undefined
  return cachedGrantOf(services.principals, sha256Hex(presented))
}

function cachedGrantOf(principals: PrincipalCache, presentedHash: string): Grant | undefined {
  const cached = principals.get(presentedHash)
  if (cached) principals.uses.note(presentedHash)
  return cached
}

export async function authenticateApiKey(services: { db: Db; principals: PrincipalCache }, presented: string, presenter: KeyPresenter): Promise<Grant> {
  // Built only when thrown: an Error's stack trace costs more than the cached lookup.
  const invalidKey = () => new AppError('invalid_api_key', 'Invalid API key.')
  if (!API_KEY_PATTERN.test(presented)) throw invalidKey()
  const presentedHash = sha256Hex(presented)
  const cached = cachedGrantOf(services.principals, presentedHash)
  if (cached) return cached
  refuseBrakedPresenter(presenter, 'an invalid API key')
  const generation = services.principals.currentGeneration()
  const [row] = await activeKeyByHash(services.db).execute({ keyHash: presentedHash })
  // The lookup is by hash; the constant-time check guards against any index-side shortcut.
  if (!row || !digestsEqual(row.keyHash, presentedHash)) {
    presenter.failedLookups.recordFailure(presenter.ip)
    throw invalidKey()
  }
  const grant = { principal: { orgId: row.orgId, orgName: row.orgName, plan: row.plan }, scopes: row.scopes }
  services.principals.set(presentedHash, grant, generation)
  services.principals.uses.note(presentedHash)
  return grant
}
