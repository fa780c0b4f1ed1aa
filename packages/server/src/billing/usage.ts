import { and, eq, sql } from 'drizzle-orm'
import type { Db } from '../db/client.ts'
import { usageEvents } from '../db/schema.ts'
import { invalid } from '../errors.ts'
import { requireOrg } from '../orgs/require-org.ts'
import type { UsageReport } from './billing.schemas.ts'
import { PERIOD_PATTERN, PLAN_RULES } from './plans.ts'

const periodPattern = new RegExp(PERIOD_PATTERN)

export async function usageReport(db: Db, orgId: string, period: string): Promise<UsageReport> {
  if (!periodPattern.test(period)) throw invalid('period must be a calendar month, YYYY-MM (e.g. 2025-03).')
  const org = await requireOrg(db, orgId)
  const rows = await db
    .select({
      billing: usageEvents.billing,
      kind: usageEvents.kind,
      channel: usageEvents.channel,
      units: sql<number>`count(*)`.mapWith(Number),
      cents: sql<number>`coalesce(sum(${usageEvents.unitPriceCents}), 0)`.mapWith(Number),
    })
    .from(usageEvents)
    .where(and(eq(usageEvents.orgId, orgId), eq(usageEvents.period, period)))
    .groupBy(usageEvents.billing, usageEvents.kind, usageEvents.channel)
  const sum = (match: (row: (typeof rows)[number]) => boolean) =>
    rows.filter(match).reduce((total, row) => ({ units: total.units + row.units, cents: total.cents + row.cents }), { units: 0, cents: 0 })
  const by = (billing: string) => sum((r) => r.billing === billing)
  const units = (kind: string, channel?: string) => sum((r) => r.kind === kind && (channel === undefined || r.channel === channel)).units
  const rules = PLAN_RULES[org.plan]
  const included = by('included').units
  const amount = by('billable').cents
  return {
    org_id: orgId,
    plan: org.plan,
    period,
    included_allowance: rules.includedPerMonth,
    included_used: included,
    included_remaining: Math.max(0, rules.includedPerMonth - included),
    credits_used: by('credit').units,
    credit_balance: org.creditBalance,
    billable_units: by('billable').units,
    unit_price_cents: rules.unitPriceCents,
    amount_cents: amount,
    unlimited_units: by('unlimited').units,
    spend_cap_cents: org.spendCapCents,
    spend_cap_remaining_cents: org.spendCapCents === null ? null : Math.max(0, org.spendCapCents - amount),
    units_by_source: {
      rest_sends: units('send', 'rest'),
      bulk_sends: units('send', 'bulk'),
      agent_tool_sends: units('send', 'mcp'),
      seals: units('seal'),
    },
  }
}
