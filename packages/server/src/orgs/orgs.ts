import { eq } from 'drizzle-orm'
import type { Db } from '../db/client.ts'
import { orgs, type Plan } from '../db/schema.ts'
import { invalid } from '../errors.ts'
import { announcePrincipalsChanged, createApiKey } from '../api-keys/api-keys.ts'
import { requireOrg } from './require-org.ts'

export interface CreatedOrg {
  org_id: string
  api_key: string
}

/** Creates an org with its first API key (shown only in this result). */
export async function createOrg(db: Db, input: { name: string; plan: Plan }): Promise<CreatedOrg> {
  const name = input.name.trim()
  if (name.length === 0 || name.length > 200) throw invalid('Org name must be 1 to 200 characters.')
  return db.transaction(async (tx) => {
    const [org] = await tx.insert(orgs).values({ name, plan: input.plan }).returning({ id: orgs.id })
    if (!org) throw new Error('insert returned no row')
    const { api_key } = await createApiKey(tx, org.id)
    return { org_id: org.id, api_key }
  })
}

export async function setOrgPlan(db: Db, input: { orgId: string; plan: Plan }): Promise<{ org_id: string; plan: Plan }> {
  await requireOrg(db, input.orgId)
  await db.transaction(async (tx) => {
    await tx.update(orgs).set({ plan: input.plan }).where(eq(orgs.id, input.orgId))
    // Authenticated requests carry the plan: cached principals must see the new one.
    await announcePrincipalsChanged(tx)
  })
  return { org_id: input.orgId, plan: input.plan }
}
