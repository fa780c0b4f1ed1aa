import { eq } from 'drizzle-orm'
import type { Db } from '../db/client.ts'
import { orgs } from '../db/schema.ts'
import { invalid } from '../errors.ts'
import { requireOrg } from '../orgs/require-org.ts'
import { MAX_SPEND_CAP_CENTS } from './plans.ts'

export interface SpendCap {
  org_id: string
  /** The most billable usage per calendar month, in US cents; null = no cap. */
  spend_cap_cents: number | null
}

/** The org's self-set monthly cap on billable usage (Pro, Team, Business); once reached, billable sends answer 402. */
export async function setSpendCap(db: Db, orgId: string, cents: number | null): Promise<SpendCap> {
  if (cents !== null && (!Number.isInteger(cents) || cents < 0 || cents > MAX_SPEND_CAP_CENTS)) {
    throw invalid(`spend_cap_cents must be an integer from 0 to ${MAX_SPEND_CAP_CENTS}, or null for no cap.`)
  }
  await requireOrg(db, orgId)
  // The meter reads the cap under the org row's lock: a send in flight finishes under the old cap.
  await db.update(orgs).set({ spendCapCents: cents }).where(eq(orgs.id, orgId))
  return { org_id: orgId, spend_cap_cents: cents }
}

export async function getSpendCap(db: Db, orgId: string): Promise<SpendCap> {
  const org = await requireOrg(db, orgId)
  return { org_id: orgId, spend_cap_cents: org.spendCapCents }
}
