import type { Plan } from '../db/plans.ts'

/**
 * What each plan includes and what it costs: the one table the metering, the usage report,
 * the template limit and the billing page read. Prices are US cents.
 */
export interface PlanRules {
  /** Metered units (document sends, seals) included per calendar month (UTC). */
  includedPerMonth: number
  /**
   * What a metered unit beyond the included ones is paid with: credits from one-time packs
   * (refused with 402 + upgrade_url once none are left), or billed per unit (stopped by the
   * org's spend cap).
   */
  overage: 'credits' | 'billable'
  /** Price of one billable unit. */
  unitPriceCents: number
  /** Bulk-send is allowed (Team and higher). */
  bulkSend: boolean
  /** REST sends and seals are unlimited (not metered, still recorded). Bulk and agent-tool sends stay metered. */
  unlimitedRest: boolean
  /** How many templates an org may have; null = unlimited. */
  maxTemplates: number | null
  /** Outbound webhooks (Pro and higher). */
  webhooks: boolean
}

/** The price of one billable document on Pro, Team and Business (the original's 0.20 USD). */
export const UNIT_PRICE_CENTS = 20

export const PLAN_RULES: Record<Plan, PlanRules> = {
  free: { includedPerMonth: 3, overage: 'credits', unitPriceCents: 0, bulkSend: false, unlimitedRest: false, maxTemplates: 1, webhooks: false },
  pro: {
    includedPerMonth: 100,
    overage: 'billable',
    unitPriceCents: UNIT_PRICE_CENTS,
    bulkSend: false,
    unlimitedRest: false,
    maxTemplates: null,
    webhooks: true,
  },
  team: {
    includedPerMonth: 100,
    overage: 'billable',
    unitPriceCents: UNIT_PRICE_CENTS,
    bulkSend: true,
    unlimitedRest: false,
    maxTemplates: null,
    webhooks: true,
  },
  business: {
    includedPerMonth: 100,
    overage: 'billable',
    unitPriceCents: UNIT_PRICE_CENTS,
    bulkSend: true,
    unlimitedRest: true,
    maxTemplates: null,
    webhooks: true,
  },
}

/** A one-time credit pack: 25 metered units on the Free plan, never expiring, USD 5. */
export const CREDIT_PACK = { credits: 25, priceCents: 500 } as const

/** The highest spend cap an org can set (USD 1,000,000): keeps sums far inside integer range. */
export const MAX_SPEND_CAP_CENTS = 100_000_000

/** The calendar month (UTC) an instant falls in, as usage periods are keyed: 'YYYY-MM'. */
export function periodOf(instant: Date): string {
  return instant.toISOString().slice(0, 7)
}

export const PERIOD_PATTERN = '^[0-9]{4}-(0[1-9]|1[0-2])$'

/** "$25.00" */
export function formatUsd(cents: number): string {
  return `$${(cents / 100).toFixed(2)}`
}
