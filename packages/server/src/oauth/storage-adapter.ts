import { and, eq, gt, isNull, lt, or, type SQL } from 'drizzle-orm'
import { errors, type Adapter, type AdapterPayload } from 'oidc-provider'
import { announcePrincipalsChanged } from '../api-keys/api-keys.ts'
import type { Db } from '../db/client.ts'
import { oauthRecords } from '../db/schema.ts'
import { sha256Hex } from '../lib/crypto.ts'

/** A JSON.stringify replacer that throws at the first key or string holding U+0000. */
function refuseNul(key: string, value: unknown): unknown {
  if (key.includes('\0') || (typeof value === 'string' && value.includes('\0'))) {
    throw new errors.InvalidRequest('values must not contain NUL characters (U+0000)')
  }
  return value
}

/** Models whose removal must reach every process's cache of authenticated callers at once. */
const CACHED_MODELS = new Set(['AccessToken', 'Grant'])

/**
 * oidc-provider's storage on our database (PGlite or PostgreSQL alike), so every process sees
 * the same codes, tokens, grants, clients and interactions. Ids are stored as SHA-256 only: for
 * codes and tokens the id is the credential (an opaque access token is its own id), and the
 * payload's copy of it (`jti`) is dropped on the way in and put back from the presented id.
 */
export class DrizzleOAuthAdapter implements Adapter {
  constructor(
    private readonly model: string,
    private readonly db: Db,
    private readonly now: () => Date,
    /** Forgets this process's cached callers at once; the NOTIFY reaches the others (and this one, later). */
    private readonly forgetCachedCallers: () => void,
  ) {}

  private key(id: string) {
    return and(eq(oauthRecords.model, this.model), eq(oauthRecords.idHash, sha256Hex(id)))
  }

  async upsert(id: string, payload: AdapterPayload, expiresIn: number | undefined): Promise<void> {
    const stored: Record<string, unknown> = { ...payload }
    if (stored.jti === id) delete stored.jti
    // jsonb cannot hold U+0000; whatever carried one (a client name, a state) gets the OAuth error oidc-provider sends for any bad value.
    JSON.stringify(stored, refuseNul)
    const row = {
      payload: stored,
      grantId: payload.grantId ?? null,
      uidHash: payload.uid ? sha256Hex(payload.uid) : null,
      expiresAt: expiresIn ? new Date(this.now().getTime() + expiresIn * 1000) : null,
    }
    await this.db
      .insert(oauthRecords)
      .values({ model: this.model, idHash: sha256Hex(id), ...row })
      .onConflictDoUpdate({ target: [oauthRecords.model, oauthRecords.idHash], set: row })
  }

  async find(id: string): Promise<AdapterPayload | undefined> {
    const [row] = await this.db
      .select()
      .from(oauthRecords)
      .where(and(this.key(id), this.unexpired()))
    return row ? this.payloadOf(row, id) : undefined
  }

  async findByUid(uid: string): Promise<AdapterPayload | undefined> {
    const [row] = await this.db
      .select()
      .from(oauthRecords)
      .where(and(eq(oauthRecords.model, this.model), eq(oauthRecords.uidHash, sha256Hex(uid)), this.unexpired()))
    // A session's id is its cookie: not known here, and oidc-provider reads it from the payload's jti only for sessions it found by id.
    return row ? this.payloadOf(row, undefined) : undefined
  }

  /** Device codes are not offered (features.deviceFlow is off). */
  findByUserCode(): Promise<undefined> {
    return Promise.resolve(undefined)
  }

  async consume(id: string): Promise<void> {
    await this.db
      .update(oauthRecords)
      .set({ consumedAt: this.now() })
      .where(and(this.key(id), isNull(oauthRecords.consumedAt)))
  }

  async destroy(id: string): Promise<void> {
    await this.deleteAndAnnounce(this.key(id))
  }

  async revokeByGrantId(grantId: string): Promise<void> {
    await this.deleteAndAnnounce(and(eq(oauthRecords.model, this.model), eq(oauthRecords.grantId, grantId)))
  }

  private async deleteAndAnnounce(which: SQL | undefined): Promise<void> {
    const cached = CACHED_MODELS.has(this.model)
    await this.db.transaction(async (tx) => {
      await tx.delete(oauthRecords).where(which)
      if (cached) await announcePrincipalsChanged(tx)
    })
    if (cached) this.forgetCachedCallers()
  }

  private unexpired() {
    return or(isNull(oauthRecords.expiresAt), gt(oauthRecords.expiresAt, this.now()))
  }

  private payloadOf(row: typeof oauthRecords.$inferSelect, id: string | undefined): AdapterPayload {
    const payload: AdapterPayload = { ...row.payload }
    if (id !== undefined && this.model !== 'Client') payload.jti = id
    if (row.consumedAt) payload.consumed = Math.floor(row.consumedAt.getTime() / 1000)
    return payload
  }
}

/** How often a process deletes the authorization server's expired records (finds ignore them before that). */
export const OAUTH_SWEEP_MS = 10 * 60 * 1000

/** Deletes expired sessions, interactions, codes, tokens and grants, so the table holds only what can still be used. */
export async function deleteExpiredOAuthRecords(db: Db, now: Date): Promise<void> {
  await db.delete(oauthRecords).where(lt(oauthRecords.expiresAt, now))
}
