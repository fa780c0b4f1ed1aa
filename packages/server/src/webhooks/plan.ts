import type { Plan } from '../db/schema.ts'
import { AppError } from '../errors.ts'

/** The plans with webhooks (spec: "Pro and higher"). */
export const WEBHOOK_PLANS = ['pro', 'team', 'business'] as const satisfies readonly Plan[]

export const hasWebhooks = (plan: Plan): boolean => (WEBHOOK_PLANS as readonly Plan[]).includes(plan)

/** 402 with `upgrade: true` (the spec's body for a feature above the org's plan). */
export function assertWebhookPlan(plan: Plan): void {
  if (!hasWebhooks(plan)) {
    throw new AppError('payment_required', `Webhooks are available on the Pro plan and higher; this org is on the ${plan} plan.`, { upgrade: true })
  }
}
