import { and, inArray, isNull, lt, or } from 'drizzle-orm'
import type { Clock } from '../adapters/clock.ts'
import type { Db } from '../db/client.ts'
import { apiKeys } from '../db/schema.ts'

/** api_keys.last_used_at is kept to this precision: a key's use is written at most once per interval. */
export const KEY_USE_PRECISION_MS = 60_000
/** How often noted uses are written. */
export const KEY_USE_FLUSH_MS = 1_000
/** Keys remembered at once; past this the memory is dropped (at worst a key's use is written twice in a minute). */
const MAX_REMEMBERED = 10_000
/** Keys per UPDATE. */
const FLUSH_BATCH = 500

/**
 * Which keys authenticated requests lately, so that api_keys.last_used_at can be written off
 * the request path: authentication only notes the key's hash in memory (a map lookup), and a
 * background loop (flushKeyUses) writes the noted keys in one UPDATE. Each process notes a key
 * at most once a minute; the UPDATE's own condition keeps several processes to one write a
 * minute per key as well.
 */
export class KeyUses {
  private readonly notedAt = new Map<string, number>()
  private pending = new Set<string>()

  constructor(private readonly now: () => number) {}

  note(keyHash: string): void {
    const now = this.now()
    const last = this.notedAt.get(keyHash)
    if (last !== undefined && now - last < KEY_USE_PRECISION_MS) return
    if (this.notedAt.size >= MAX_REMEMBERED) this.notedAt.clear()
    this.notedAt.set(keyHash, now)
    this.pending.add(keyHash)
  }

  /** The keys noted since the last call. */
  take(): string[] {
    if (this.pending.size === 0) return []
    const taken = [...this.pending]
    this.pending = new Set()
    return taken
  }
}

/**
 * Writes last_used_at for the keys noted since the last flush. A failed write is not retried
 * (the background loop logs it): the next use after a minute writes it again, and the time is
 * informational, never a credential check.
 */
export async function flushKeyUses(db: Db, clock: Clock, uses: KeyUses): Promise<void> {
  const keyHashes = uses.take()
  if (keyHashes.length === 0) return
  const now = clock.now()
  const staleBefore = new Date(now.getTime() - KEY_USE_PRECISION_MS)
  for (let start = 0; start < keyHashes.length; start += FLUSH_BATCH) {
    await db
      .update(apiKeys)
      .set({ lastUsedAt: now })
      .where(and(inArray(apiKeys.keyHash, keyHashes.slice(start, start + FLUSH_BATCH)), or(isNull(apiKeys.lastUsedAt), lt(apiKeys.lastUsedAt, staleBefore))))
  }
}
