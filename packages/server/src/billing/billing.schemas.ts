import { Type, type Static } from 'typebox'
import { PLANS } from '../db/schema.ts'
import { MAX_SPEND_CAP_CENTS, PERIOD_PATTERN } from './plans.ts'

const Cents = (description: string) => Type.Integer({ minimum: 0, description })
const NullableCents = (description: string) => Type.Union([Type.Integer({ minimum: 0 }), Type.Null()], { description })

export const UsageQuery = Type.Object(
  { period: Type.Optional(Type.String({ pattern: PERIOD_PATTERN, description: 'calendar month (UTC), YYYY-MM; default the current one' })) },
  { additionalProperties: false },
)

export const UsageReport = Type.Object(
  {
    org_id: Type.String(),
    plan: Type.Enum(PLANS),
    period: Type.String({ description: 'YYYY-MM (UTC)' }),
    included_allowance: Type.Integer({ description: 'metered units included per month (Business: bulk and agent-tool sends; REST is unlimited)' }),
    included_used: Type.Integer(),
    included_remaining: Type.Integer(),
    credits_used: Type.Integer({ description: 'units paid with credit-pack credits this period (Free)' }),
    credit_balance: Type.Integer({ description: 'credits left now; they never expire' }),
    billable_units: Type.Integer(),
    unit_price_cents: Cents('price of one billable unit, US cents'),
    amount_cents: Cents('what the billable units of this period cost, US cents'),
    unlimited_units: Type.Integer({ description: 'unmetered units (Business REST sends and seals)' }),
    spend_cap_cents: NullableCents('self-set monthly cap on billable usage; null = none'),
    spend_cap_remaining_cents: NullableCents('billable spend left under the cap this period; null = no cap'),
    units_by_source: Type.Object(
      {
        rest_sends: Type.Integer({ minimum: 0 }),
        bulk_sends: Type.Integer({ minimum: 0 }),
        agent_tool_sends: Type.Integer({ minimum: 0, description: 'documents sent through the agent-tool endpoint (MCP)' }),
        seals: Type.Integer({ minimum: 0 }),
      },
      { additionalProperties: false, description: "this period's units by where they came from, whatever paid for them" },
    ),
  },
  { additionalProperties: false },
)

export const SpendCapBody = Type.Object(
  {
    spend_cap_cents: Type.Union([Type.Integer({ minimum: 0, maximum: MAX_SPEND_CAP_CENTS }), Type.Null()], {
      description: 'the most billable usage per calendar month, in US cents; null removes the cap',
    }),
  },
  { additionalProperties: false },
)

export const SpendCapView = Type.Object(
  { spend_cap_cents: NullableCents('the most billable usage per calendar month, in US cents; null = no cap') },
  { additionalProperties: false },
)

export type UsageReport = Static<typeof UsageReport>
