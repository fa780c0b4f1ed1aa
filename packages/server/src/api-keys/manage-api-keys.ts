import { and, desc, eq, isNull } from 'drizzle-orm'
import type { Actor } from '../actors/actor.ts'
import { SCOPES, type Scope } from '../actors/scopes.ts'
import { requireManager, requireSignedIn } from '../accounts/roles.ts'
import { apiKeys, users } from '../db/schema.ts'
import { invalid, notFound, validationFailed } from '../errors.ts'
import { isUuid } from '../lib/ids.ts'
import type { Db } from '../db/client.ts'
import type { Services } from '../services.ts'
import { announcePrincipalsChanged, createApiKey } from './api-keys.ts'
import { MAX_KEY_NAME_LENGTH, type ApiKeyCreated, type ApiKeyList } from './api-keys.schemas.ts'

/*
 * The dashboard's Settings → Integration and API: named keys, listed by prefix, revoked by id.
 * A person manages them (a key cannot mint or revoke keys), and only an owner or admin.
 */

function requireKeyManager(actor: Actor) {
  const user = requireSignedIn(actor)
  requireManager(actor, 'API keys')
  return user
}

export async function listApiKeys(db: Db, actor: Actor): Promise<ApiKeyList> {
  requireKeyManager(actor)
  const rows = await db
    .select({ key: apiKeys, creatorName: users.name, creatorEmail: users.email })
    .from(apiKeys)
    .leftJoin(users, eq(users.id, apiKeys.createdByUserId))
    .where(eq(apiKeys.orgId, actor.orgId))
    .orderBy(desc(apiKeys.createdAt), desc(apiKeys.id))
  return {
    keys: rows.map(({ key, creatorName, creatorEmail }) => ({
      id: key.id,
      name: key.name,
      prefix: key.prefix,
      scopes: key.scopes,
      created_at: key.createdAt.toISOString(),
      last_used_at: key.lastUsedAt?.toISOString() ?? null,
      revoked_at: key.revokedAt?.toISOString() ?? null,
      created_by: creatorName !== null && creatorEmail !== null ? { name: creatorName, email: creatorEmail } : null,
    })),
  }
}

/**
 * A key reads, or reads and writes (the default, as every key did before scopes). A key that
 * writes but cannot read what it sent has no use; the schema has already refused unknown,
 * repeated and missing scopes. Stored in SCOPES' order.
 */
function keyScopes(requested: readonly Scope[] | undefined): Scope[] {
  if (requested === undefined) return [...SCOPES]
  if (!requested.includes('read')) throw validationFailed('scopes must include read: a key that can write can also read.', '/scopes')
  return SCOPES.filter((scope) => requested.includes(scope))
}

export async function createNamedApiKey(db: Db, actor: Actor, input: { name: string; scopes?: readonly Scope[] }): Promise<ApiKeyCreated> {
  const user = requireKeyManager(actor)
  const name = input.name.trim().replace(/\s+/g, ' ')
  if (name.length === 0 || name.length > MAX_KEY_NAME_LENGTH) throw invalid(`A key's name must be 1 to ${MAX_KEY_NAME_LENGTH} characters.`)
  const key = await createApiKey(db, actor.orgId, { named: { name, createdByUserId: user.id }, scopes: keyScopes(input.scopes) })
  return { id: key.id, name, prefix: key.prefix, api_key: key.api_key, scopes: key.scopes, created_at: key.createdAt.toISOString() }
}

/**
 * Revokes one key of the actor's org. Every process forgets its cached principals (NOTIFY on
 * commit); this one at once, so the key's next request here is a 401 without waiting for the
 * notification. Revoking a revoked key changes nothing.
 */
export async function revokeApiKeyById(services: Pick<Services, 'db' | 'clock' | 'principals'>, actor: Actor, keyId: string): Promise<void> {
  requireKeyManager(actor)
  const missing = () => notFound('No such API key in this workspace.')
  if (!isUuid(keyId)) throw missing()
  const ofThisOrg = and(eq(apiKeys.id, keyId), eq(apiKeys.orgId, actor.orgId))
  const revoked = await services.db.transaction(async (tx) => {
    const rows = await tx
      .update(apiKeys)
      .set({ revokedAt: services.clock.now() })
      .where(and(ofThisOrg, isNull(apiKeys.revokedAt)))
      .returning({ id: apiKeys.id })
    if (rows.length > 0) await announcePrincipalsChanged(tx)
    return rows.length > 0
  })
  if (revoked) {
    services.principals.clear()
    return
  }
  const [existing] = await services.db.select({ id: apiKeys.id }).from(apiKeys).where(ofThisOrg)
  if (!existing) throw missing()
}
