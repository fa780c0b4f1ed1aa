import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { configurePayments } from '../../billing/payments.ts'
import { CREDIT_PACK, formatUsd, PLAN_RULES, periodOf } from '../../billing/plans.ts'
import { getSpendCap, setSpendCap } from '../../billing/spend-cap.ts'
import { usageReport } from '../../billing/usage.ts'
import { isUuid } from '../../lib/ids.ts'
import type { Services } from '../../services.ts'
import { html } from '../../lib/html.ts'
import { requireManager } from '../../accounts/roles.ts'
import { actorOf, principalOf } from '../auth.ts'
import { rateLimit, RATE_LIMITS } from '../rate-limit.ts'
import { ErrorBody, withCommonErrors } from '../schemas.ts'
import { pageSecurityHeaders } from '../security-headers.ts'
import { SpendCapBody, SpendCapView, UsageQuery, UsageReport } from '../../billing/billing.schemas.ts'

const tags = ['Billing']

/** Usage and the spend cap, for the authenticated org (registered under /api/v1). */
export const billingRoutes: FastifyPluginAsyncTypebox<{ services: Services }> = async (app, { services }) => {
  // The 402s' upgrade_url is built by the process's payment provider (billing/payments.ts).
  configurePayments(services.config)

  app.get(
    '/usage',
    {
      onRequest: rateLimit(services, RATE_LIMITS.usage),
      schema: {
        tags,
        operationId: 'getUsage',
        summary: "The org's metered usage in a calendar month, and what is left of its allowance",
        querystring: UsageQuery,
        response: withCommonErrors({ 200: UsageReport, 400: { ...ErrorBody, description: 'Invalid query parameter' } }),
      },
    },
    async (request) => usageReport(services.db, principalOf(request).orgId, request.query.period ?? periodOf(services.clock.now())),
  )

  app.get(
    '/billing/spend-cap',
    {
      onRequest: rateLimit(services, RATE_LIMITS.spendCap),
      schema: { tags, operationId: 'getSpendCap', summary: "The org's monthly spend cap", response: withCommonErrors({ 200: SpendCapView }) },
    },
    async (request) => {
      const { spend_cap_cents } = await getSpendCap(services.db, principalOf(request).orgId)
      return { spend_cap_cents }
    },
  )

  app.put(
    '/billing/spend-cap',
    {
      onRequest: rateLimit(services, RATE_LIMITS.spendCap),
      schema: {
        tags,
        operationId: 'setSpendCap',
        summary: 'Set or remove the monthly spend cap on billable usage',
        description: 'Once the billable usage of the month reaches the cap, sends that would be billed answer 402.',
        body: SpendCapBody,
        response: withCommonErrors({ 200: SpendCapView, 400: { ...ErrorBody, description: 'Invalid body' } }),
      },
    },
    async (request) => {
      requireManager(actorOf(request), 'billing')
      const { spend_cap_cents } = await setSpendCap(services.db, principalOf(request).orgId, request.body.spend_cap_cents)
      return { spend_cap_cents }
    },
  )
}

const PAGE_HEADERS = { ...pageSecurityHeaders({ 'style-src': "'unsafe-inline'" }), 'cache-control': 'no-cache' }

/** The instance's billing page (public, no key): where a 402's upgrade_url leads when no payment provider is configured. */
export const billingPageRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get('/billing', { schema: { hide: true } }, async (request, reply) => {
    const query = request.query as Record<string, unknown>
    const orgId = typeof query.org === 'string' && isUuid(query.org) ? query.org : undefined
    const paid = PLAN_RULES.pro
    const page = html`<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Billing – Signet</title>
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:40rem;margin:2rem auto;padding:0 1rem;color:#1a1a1a}code{background:#f2f2f2;padding:.1rem .3rem;border-radius:3px;word-break:break-all}</style></head>
<body>
<h1>Billing</h1>
<p>This Signet instance takes no payments online. Credits and plans are managed by its operator.</p>
<h2>Credit packs (Free plan)</h2>
<p>The Free plan includes ${PLAN_RULES.free.includedPerMonth} documents per calendar month. A pack adds ${CREDIT_PACK.credits} credits
(${formatUsd(CREDIT_PACK.priceCents)}), used after the month's included documents; credits never expire.</p>
<p>To buy packs, ask the operator of this instance. They grant them with:</p>
<p><code>npm run -s admin -- credits grant --org ${orgId ?? '<org id>'} --packs 1</code></p>
<h2>Plans</h2>
<p>Pro and Team include ${paid.includedPerMonth} documents per month, then ${formatUsd(paid.unitPriceCents)} per document, up to the
spend cap you set (<code>PUT /api/v1/billing/spend-cap</code>). Team and Business add bulk send; Business sends through the REST API
without limit. The operator changes a plan with <code>org set-plan</code>.</p>
<p>Your usage this month: <code>GET /api/v1/usage</code>.</p>
</body>
</html>
`
    return reply.headers(PAGE_HEADERS).type('text/html; charset=utf-8').send(page.toString())
  })
}
