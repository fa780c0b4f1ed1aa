import { Type } from 'typebox'
import { UsageReport } from '../../billing/billing.schemas.ts'
import { periodOf } from '../../billing/plans.ts'
import { usageReport } from '../../billing/usage.ts'
import { defineTool } from '../tool.ts'

const UsageOutput = Type.Object(
  {
    ...UsageReport.properties,
    spend_cap_reached: Type.Boolean({
      description: 'true when billable sends and seals are refused until next month (or until the cap is raised in the dashboard)',
    }),
  },
  { additionalProperties: false },
)

export const getUsageTool = defineTool({
  name: 'get_usage',
  title: "Get this month's usage and allowance",
  description:
    "Read-only: the organization's plan, this calendar month's metered usage (UTC) and what is left: units included by the plan (used and remaining), " +
    'pack credits left, billable units and their amount, and the spend cap with whether it is reached. ' +
    'Call it before sending or sealing many documents to know whether they will be allowed or billed.',
  input: Type.Object({}, { additionalProperties: false }),
  output: UsageOutput,
  scope: 'read',
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  run: async ({ services, actor }) => {
    const report = await usageReport(services.db, actor.orgId, periodOf(services.clock.now()))
    return { structured: { ...report, spend_cap_reached: report.spend_cap_remaining_cents === 0 } }
  },
})
