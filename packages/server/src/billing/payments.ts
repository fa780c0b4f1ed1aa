import type { Config } from '../config.ts'

/**
 * Where an org pays. The service never takes money itself: a 402 names a URL (the spec's
 * `upgrade_url`), and credits arrive through `grantCredits` (billing/credits.ts), called by
 * the operator CLI or by a provider's payment webhook.
 *
 * The default instance has no payment provider: both URLs lead to the instance's own
 * billing page (GET /billing, http/routes/billing.ts), which tells the org to ask the
 * operator, who runs `admin credits grant --org <id> --packs N` (or `org set-plan`).
 *
 * Plugging in Stripe Checkout (a sketch; nothing here depends on Stripe):
 *
 * 1. Config: `STRIPE_SECRET_KEY`, `STRIPE_WEBHOOK_SECRET`, `STRIPE_PACK_PRICE_ID` (a one-time
 *    USD 5 price). `configurePayments` picks `stripeCheckout(config)` when the key is set.
 * 2. `checkoutUrl(org, {packs})` stays synchronous and cheap (a 402 must not call Stripe):
 *    it returns `${PUBLIC_URL}/billing/checkout?org=<id>&packs=<n>`. That route creates a
 *    Checkout Session — `mode: 'payment'`, `line_items: [{price: STRIPE_PACK_PRICE_ID,
 *    quantity: packs}]`, `client_reference_id: org id`, `metadata: {org_id, packs}`,
 *    `success_url`/`cancel_url` back to /billing — and answers 303 to `session.url`.
 * 3. A webhook route `POST /billing/stripe/webhook` (raw body) verifies the `Stripe-Signature`
 *    header with `STRIPE_WEBHOOK_SECRET`, and on `checkout.session.completed` with
 *    `payment_status: 'paid'` calls `grantCredits(services, {orgId: metadata.org_id, packs:
 *    metadata.packs, source: 'stripe', reference: session.id})`. Stripe retries webhooks;
 *    the unique (source, reference) makes a replay grant nothing.
 * 4. Plan subscriptions (Pro/Team/Business) and the monthly invoice of billable usage
 *    (`usageReport` per period, or Stripe metered prices fed from `usage_events`) are the
 *    same pattern: the provider owns the money, `setOrgPlan` and the ledger stay ours.
 */
export interface PaymentProvider {
  readonly name: string
  /** Where an org buys `packs` credit packs: the `upgrade_url` of a Free org's 402. */
  checkoutUrl(org: { id: string }, order: { packs: number }): string
  /** Where an org reads about plans and upgrades (the template limit's 402 points here). */
  billingPageUrl(org: { id: string }): string
}

/** No provider: every link leads to the instance's billing page, and the operator grants credits. */
export function instanceBillingPage(publicUrl: string): PaymentProvider {
  const page = (org: { id: string }) => `${publicUrl}/billing?org=${encodeURIComponent(org.id)}`
  return { name: 'instance', checkoutUrl: page, billingPageUrl: page }
}

/**
 * The process's provider. The metering seam (`quoteUsage(tx, principal, request)`) is called
 * deep inside domain transactions without the services bag, so the provider is installed once
 * per process when the HTTP app is built (`configurePayments`, from billingRoutes).
 */
let installed: PaymentProvider | undefined

export function configurePayments(config: Pick<Config, 'publicUrl'>): PaymentProvider {
  installed = instanceBillingPage(config.publicUrl)
  return installed
}

/** The installed provider; before any app is built (the operator CLI), the billing page of PUBLIC_URL. */
export function paymentProvider(): PaymentProvider {
  return installed ?? instanceBillingPage((process.env.PUBLIC_URL || `http://localhost:${process.env.PORT || 3000}`).replace(/\/+$/, ''))
}
