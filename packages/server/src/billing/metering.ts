import type { Principal } from '../api-keys/api-keys.ts'
import type { Db } from '../db/client.ts'
import type { AppError } from '../errors.ts'

/** What is being metered: documents sent (REST, bulk, agent tools) or seals. */
export interface UsageRequest {
  kind: 'send' | 'seal'
  channel: 'rest' | 'bulk' | 'mcp'
  /** How many units the caller wants to create now. */
  wanted: number
  now: Date
}

export interface UsageQuote {
  /** How many of the wanted units the org's plan, credits and spend cap allow (0 … wanted). */
  allowed: number
  /** The 402 to answer when fewer than wanted are allowed (spec bodies: upgrade_url or upgrade: true). */
  refusal: AppError | undefined
  /** Records the allowed units (one usage row each, credits spent) for the documents created. */
  record(documentIds: string[]): Promise<void>
}

/**
 * Quotes and reserves usage inside the caller's transaction. Implementations lock the
 * org's row, so concurrent creates of one org are metered one after another (exact).
 * PLACEHOLDER until billing lands: everything is allowed and nothing recorded.
 */
export async function quoteUsage(_tx: Db, _principal: Principal, request: UsageRequest): Promise<UsageQuote> {
  return { allowed: request.wanted, refusal: undefined, record: async () => undefined }
}
