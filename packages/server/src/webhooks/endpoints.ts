import { and, desc, eq, isNull } from 'drizzle-orm'
import type { Config } from '../config.ts'
import type { Db } from '../db/client.ts'
import { orgs, webhookDeliveries, webhookEndpoints } from '../db/schema.ts'
import { AppError, invalid, notFound } from '../errors.ts'
import { isUuid } from '../lib/ids.ts'
import { requireOrg } from '../orgs/require-org.ts'
import type { Services } from '../services.ts'
import { assertWebhookPlan } from './plan.ts'
import { newWebhookSecret } from './signature.ts'
import { parseWebhookUrl, resolveWebhookAddresses, WebhookUrlError, type Resolver } from './ssrf-guard.ts'
import type { WebhookEndpointView, WebhookList } from './webhooks.schemas.ts'

/** Endpoints per org (the original service's limit too). */
export const MAX_WEBHOOK_ENDPOINTS = 20

/** What managing endpoints needs; the operator CLI has these too. */
export type EndpointServices = Pick<Services, 'db' | 'clock'> & { config: Pick<Config, 'webhookAllowPrivate'> }

type EndpointRow = typeof webhookEndpoints.$inferSelect

/** An endpoint as the API shows it: never its secret. */
export const presentEndpoint = (row: EndpointRow): WebhookEndpointView => ({
  id: row.id,
  url: row.url,
  enabled: row.enabled,
  created_at: row.createdAt.toISOString(),
})

export const endpointNotFound = (): AppError => notFound('Webhook endpoint not found.')

/**
 * Checks a URL for registration (form, then every address its host resolves to, unless
 * the operator allows private ones) and returns it normalised. The same check runs again
 * at each delivery, since DNS answers change.
 */
export async function checkWebhookUrl(config: Pick<Config, 'webhookAllowPrivate'>, raw: string, resolve?: Resolver): Promise<string> {
  try {
    const url = parseWebhookUrl(raw.trim())
    await resolveWebhookAddresses(url, { allowPrivate: config.webhookAllowPrivate, ...(resolve ? { resolve } : {}) })
    return url.href
  } catch (error) {
    if (error instanceof WebhookUrlError) throw invalid(error.message)
    throw error
  }
}

/** The org's live (not deleted) endpoint, or the same 404 whether it is missing, malformed, deleted or another org's. */
export async function findEndpoint(db: Db, orgId: string, endpointId: string): Promise<EndpointRow> {
  const [row] = isUuid(endpointId)
    ? await db
        .select()
        .from(webhookEndpoints)
        .where(and(eq(webhookEndpoints.id, endpointId), eq(webhookEndpoints.orgId, orgId), isNull(webhookEndpoints.deletedAt)))
    : []
  if (!row) throw endpointNotFound()
  return row
}

/** The org's plan, read now (not from a cached principal): the CLI has none, and a downgrade applies at once. */
async function requireWebhookPlan(db: Db, orgId: string): Promise<void> {
  assertWebhookPlan((await requireOrg(db, orgId)).plan)
}

/**
 * Registers an endpoint and creates its signing secret, returned only here (and on
 * rotation). Pro and higher (402 upgrade), at most MAX_WEBHOOK_ENDPOINTS, one endpoint
 * per URL: the org row is locked, so concurrent registrations count exactly.
 */
export async function registerWebhookEndpoint(
  services: EndpointServices,
  input: { orgId: string; url: string },
): Promise<WebhookEndpointView & { secret: string }> {
  const { db, clock } = services
  await requireWebhookPlan(db, input.orgId)
  const url = await checkWebhookUrl(services.config, input.url)
  const secret = newWebhookSecret()
  return db.transaction(async (tx) => {
    const [org] = await tx.select({ plan: orgs.plan }).from(orgs).where(eq(orgs.id, input.orgId)).for('update')
    if (!org) throw notFound(`Org ${input.orgId} not found.`)
    assertWebhookPlan(org.plan)
    const live = await tx
      .select({ id: webhookEndpoints.id, url: webhookEndpoints.url })
      .from(webhookEndpoints)
      .where(and(eq(webhookEndpoints.orgId, input.orgId), isNull(webhookEndpoints.deletedAt)))
    const same = live.find((endpoint) => endpoint.url === url)
    if (same) {
      throw new AppError('conflict', `${url} is already registered (webhook ${same.id}); rotate its secret if you need a new one.`)
    }
    if (live.length >= MAX_WEBHOOK_ENDPOINTS) {
      throw new AppError('conflict', `This org already has ${MAX_WEBHOOK_ENDPOINTS} webhook endpoints, the most allowed; delete one to add another.`)
    }
    const [row] = await tx.insert(webhookEndpoints).values({ orgId: input.orgId, url, secret, createdAt: clock.now() }).returning()
    if (!row) throw new Error('insert returned no row')
    return { ...presentEndpoint(row), secret }
  })
}

/** For the operator CLI (`webhook add --org <id> --url <url>`): the same rules as the API. */
export async function addWebhookEndpoint(services: EndpointServices, input: { orgId: string; url: string }): Promise<{ id: string; secret: string }> {
  const { id, secret } = await registerWebhookEndpoint(services, input)
  return { id, secret }
}

/** The org's live endpoints, newest first (at most MAX_WEBHOOK_ENDPOINTS, so no paging). */
export async function listWebhookEndpoints(services: EndpointServices, orgId: string): Promise<WebhookList> {
  const rows = await services.db
    .select()
    .from(webhookEndpoints)
    .where(and(eq(webhookEndpoints.orgId, orgId), isNull(webhookEndpoints.deletedAt)))
    .orderBy(desc(webhookEndpoints.createdAt), desc(webhookEndpoints.id))
  return { webhooks: rows.map(presentEndpoint), private_addresses_allowed: services.config.webhookAllowPrivate }
}

/**
 * Soft-deletes an endpoint: it leaves the API, gets no new deliveries, and its queued
 * ones are settled as failed ("endpoint deleted"); an attempt already in flight finishes
 * but is not retried. Allowed on every plan, so a downgraded org can clean up.
 */
export async function deleteWebhookEndpoint(services: Pick<Services, 'db' | 'clock'>, orgId: string, endpointId: string): Promise<{ success: true }> {
  const { db, clock } = services
  if (!isUuid(endpointId)) throw endpointNotFound()
  const deleted = await db.transaction(async (tx) => {
    const [row] = await tx
      .update(webhookEndpoints)
      .set({ deletedAt: clock.now() })
      .where(and(eq(webhookEndpoints.orgId, orgId), eq(webhookEndpoints.id, endpointId), isNull(webhookEndpoints.deletedAt)))
      .returning({ id: webhookEndpoints.id })
    if (!row) return false
    await tx
      .update(webhookDeliveries)
      .set({ status: 'failed', lastError: 'endpoint deleted' })
      .where(and(eq(webhookDeliveries.endpointId, row.id), eq(webhookDeliveries.status, 'pending')))
    return true
  })
  if (!deleted) throw endpointNotFound()
  return { success: true }
}

/**
 * Replaces the endpoint's secret at once: every attempt from now on (retries and queued
 * deliveries too) is signed with the new one. There is no overlap period in which both
 * are valid; receivers accept both while they switch if they need one.
 */
export async function rotateWebhookSecret(services: EndpointServices, orgId: string, endpointId: string): Promise<{ id: string; secret: string }> {
  await requireWebhookPlan(services.db, orgId)
  const endpoint = await findEndpoint(services.db, orgId, endpointId)
  const secret = newWebhookSecret()
  const [row] = await services.db
    .update(webhookEndpoints)
    .set({ secret })
    .where(and(eq(webhookEndpoints.id, endpoint.id), isNull(webhookEndpoints.deletedAt)))
    .returning({ id: webhookEndpoints.id })
  if (!row) throw endpointNotFound()
  return { id: row.id, secret }
}

/** Turns deliveries to an endpoint on or off; while off, events queue nothing for it. Enabling needs Pro. */
export async function setWebhookEnabled(services: EndpointServices, orgId: string, endpointId: string, enabled: boolean): Promise<WebhookEndpointView> {
  if (enabled) await requireWebhookPlan(services.db, orgId)
  const endpoint = await findEndpoint(services.db, orgId, endpointId)
  const [row] = await services.db
    .update(webhookEndpoints)
    .set({ enabled })
    .where(and(eq(webhookEndpoints.id, endpoint.id), isNull(webhookEndpoints.deletedAt)))
    .returning()
  if (!row) throw endpointNotFound()
  return presentEndpoint(row)
}
