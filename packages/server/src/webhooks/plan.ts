import { PLAN_RULES } from '../billing/plans.ts'
import { PLANS, type Plan } from '../db/schema.ts'
import { AppError } from '../errors.ts'

/** The plans with webhooks (spec: "Pro and higher"), from the one plan table. */
export const WEBHOOK_PLANS: Plan[] = PLANS.filter((plan) => PLAN_RULES[plan].webhooks)

const hasWebhooks = (plan: Plan): boolean => PLAN_RULES[plan].webhooks

/** 402 with `upgrade: true` (the spec's body for a feature above the org's plan). */
export function assertWebhookPlan(plan: Plan): void {
  if (!hasWebhooks(plan)) {
    throw new AppError('payment_required', `Webhooks are available on the Pro plan and higher; this org is on the ${plan} plan.`, { upgrade: true })
  }
}
