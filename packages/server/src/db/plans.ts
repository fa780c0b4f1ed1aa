/** The plans an org can be on, cheapest first. (No imports: the CLI loads this at start-up.) */
export const PLANS = ['free', 'pro', 'team', 'business'] as const
export type Plan = (typeof PLANS)[number]
