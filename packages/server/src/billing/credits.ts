import { eq, sql } from 'drizzle-orm'
import { creditGrants, orgs } from '../db/schema.ts'
import { invalid } from '../errors.ts'
import { requireOrg } from '../orgs/require-org.ts'
import type { Services } from '../services.ts'
import { CREDIT_PACK } from './plans.ts'

export const MAX_PACKS_PER_GRANT = 1000

export interface GrantCreditsInput {
  orgId: string
  packs: number
  /** Who grants: 'operator' (the CLI) or a payment provider's name ('stripe'). */
  source: string
  /** The payment's id at the source (e.g. a Checkout Session id): a second grant with it grants nothing. */
  reference?: string
}

export interface GrantResult {
  org_id: string
  /** 0 when this (source, reference) was granted before. */
  credits_granted: number
  credit_balance: number
}

/**
 * Adds `packs` packs of 25 credits to the org's balance, with a ledger row, in one
 * transaction. Idempotent per (source, reference): a replayed payment webhook grants once.
 * Credits never expire; the meter spends them on the Free plan after the month's 3 included sends.
 */
export async function grantCredits(services: Pick<Services, 'db'>, input: GrantCreditsInput): Promise<GrantResult> {
  if (!Number.isInteger(input.packs) || input.packs < 1 || input.packs > MAX_PACKS_PER_GRANT) {
    throw invalid(`packs must be an integer from 1 to ${MAX_PACKS_PER_GRANT}.`)
  }
  await requireOrg(services.db, input.orgId)
  const credits = input.packs * CREDIT_PACK.credits
  return services.db.transaction(async (tx) => {
    const inserted = await tx
      .insert(creditGrants)
      .values({ orgId: input.orgId, packs: input.packs, credits, source: input.source, reference: input.reference ?? null })
      .onConflictDoNothing({ target: [creditGrants.source, creditGrants.reference] })
      .returning({ id: creditGrants.id })
    const granted = inserted.length > 0 ? credits : 0
    const [org] = await tx
      .update(orgs)
      .set({ creditBalance: sql`${orgs.creditBalance} + ${granted}` })
      .where(eq(orgs.id, input.orgId))
      .returning({ creditBalance: orgs.creditBalance })
    return { org_id: input.orgId, credits_granted: granted, credit_balance: org?.creditBalance ?? 0 }
  })
}
