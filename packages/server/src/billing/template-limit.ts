import { and, count, eq, isNull } from 'drizzle-orm'
import type { Db } from '../db/client.ts'
import { orgs, templates } from '../db/schema.ts'
import { AppError, notFound } from '../errors.ts'
import { paymentProvider } from './payments.ts'
import { PLAN_RULES } from './plans.ts'

/**
 * Refuses a template beyond the plan's limit (Free: one) with 402 `{error, upgrade_url}`.
 * Call inside the transaction that inserts the template: it locks the org's row, so two
 * concurrent creates cannot both see room for one.
 */
export async function assertTemplateAllowed(tx: Db, orgId: string): Promise<void> {
  const [org] = await tx.select({ plan: orgs.plan }).from(orgs).where(eq(orgs.id, orgId)).for('no key update')
  if (!org) throw notFound(`Org ${orgId} not found.`)
  const max = PLAN_RULES[org.plan].maxTemplates
  if (max === null) return
  // Deleted templates do not count: deleting the one a Free org has makes room for another.
  const [existing] = await tx
    .select({ n: count() })
    .from(templates)
    .where(and(eq(templates.orgId, orgId), isNull(templates.deletedAt)))
  if ((existing?.n ?? 0) < max) return
  throw new AppError(
    'payment_required',
    `A ${org.plan === 'free' ? 'Free' : org.plan} org can have ${max === 1 ? 'one template' : `${max} templates`}; upgrade the plan to add more.`,
    { upgrade_url: paymentProvider().billingPageUrl({ id: orgId }) },
  )
}
