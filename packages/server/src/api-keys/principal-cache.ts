import type { Grant } from '../actors/principal.ts'
import { KeyUses } from './key-uses.ts'

/** The NOTIFY channel on which any process announces that cached principals may be stale. */
export const PRINCIPALS_CHANGED_CHANNEL = 'signet_principals_changed'

const TTL_MS = 60_000
const MAX_ENTRIES = 10_000

/**
 * Key (or OAuth access token) hash → what it grants (its org and scopes), so most authenticated requests skip the key lookup. Correctness
 * comes from invalidation, not the TTL: every change to keys or orgs NOTIFYs
 * PRINCIPALS_CHANGED_CHANNEL in its transaction and every process clears its cache on it.
 * While notifications cannot be received (listener connection down) nothing is cached.
 */
export class PrincipalCache {
  private readonly entries = new Map<string, { grant: Grant; expiresAt: number }>()
  private live = false
  /** Bumped on every invalidation, so a lookup that raced one cannot store what it read before it. */
  private generation = 0
  /** Keys that authenticated lately, for api_keys.last_used_at (written by a background loop, not by requests). */
  readonly uses: KeyUses

  constructor(private readonly now: () => number) {
    this.uses = new KeyUses(now)
  }

  get(keyHash: string): Grant | undefined {
    const entry = this.entries.get(keyHash)
    if (!entry) return undefined
    if (entry.expiresAt <= this.now()) {
      this.entries.delete(keyHash)
      return undefined
    }
    return entry.grant
  }

  /** Call before reading the database; pass the value to set(). */
  currentGeneration(): number {
    return this.generation
  }

  /** `notAfter` (epoch ms) ends the entry sooner than the TTL: an OAuth access token's own expiry. */
  set(keyHash: string, grant: Grant, readAtGeneration: number, notAfter = Infinity): void {
    if (!this.live || readAtGeneration !== this.generation) return
    if (this.entries.size >= MAX_ENTRIES) this.entries.clear()
    this.entries.set(keyHash, { grant, expiresAt: Math.min(this.now() + TTL_MS, notAfter) })
  }

  clear(): void {
    this.generation++
    this.entries.clear()
  }

  setLive(live: boolean): void {
    this.live = live
    this.clear()
  }
}
