import { eq } from 'drizzle-orm'
import type { Db } from '../db/client.ts'
import { orgs } from '../db/schema.ts'
import { notFound } from '../errors.ts'
import { isUuid } from '../lib/ids.ts'

// Its own module: almost every domain module needs it, and orgs.ts imports api-keys/, which needs it too.
export async function requireOrg(db: Db, orgId: string): Promise<typeof orgs.$inferSelect> {
  const [org] = isUuid(orgId) ? await db.select().from(orgs).where(eq(orgs.id, orgId)) : []
  if (!org) throw notFound(`Org ${orgId} not found.`)
  return org
}
