import { and, eq, inArray, sql } from 'drizzle-orm'
import type { Actor } from '../actors/actor.ts'
import type { Principal } from '../actors/principal.ts'
import { insertMany } from '../db/bulk-insert.ts'
import type { Db } from '../db/client.ts'
import { orgs, usageEvents, type Plan, type UsageChannel } from '../db/schema.ts'
import { AppError } from '../errors.ts'
import { paymentProvider } from './payments.ts'
import { CREDIT_PACK, formatUsd, PLAN_RULES, periodOf } from './plans.ts'

/** What is being metered: documents sent (REST, bulk, agent tools) or seals. */
export interface UsageRequest {
  kind: 'send' | 'seal'
  channel: UsageChannel
  /** How many units the caller wants to create now. */
  wanted: number
  now: Date
}

export interface UsageQuote {
  /** How many of the wanted units the org's plan, credits and spend cap allow (0 … wanted). */
  allowed: number
  /** The 402 to answer when fewer than wanted are allowed (spec bodies: upgrade_url or upgrade: true). */
  refusal: AppError | undefined
  /** Records the allowed units (one usage row each, credits spent) for the documents created. */
  record(documentIds: string[]): Promise<void>
}

/** How one unit is paid for (usage_events.billing). */
export type Billing = 'included' | 'credit' | 'billable' | 'unlimited'

/** The org's state that decides a quote: its row (read under the lock) and this period's ledger. */
export interface MeterState {
  orgId: string
  plan: Plan
  creditBalance: number
  spendCapCents: number | null
  /** Units already paid for by the month's allowance, this period. */
  includedUsed: number
  /** Sum of billable units' prices, this period. */
  billedCents: number
}

/**
 * The ledger's channel of a single send or seal: agent-tool calls are metered as such on every
 * plan; the dashboard and the operator's CLI count as REST (bulk-send names its own channel).
 */
export function usageChannelOf(actor: Pick<Actor, 'channel'>): UsageChannel {
  switch (actor.channel) {
    case 'mcp':
      return 'mcp'
    case 'rest':
    case 'dashboard':
    case 'cli':
      return 'rest'
  }
}

/** REST sends and seals are unmetered on Business; bulk and agent-tool sends are metered on every plan. */
function isUnlimited(plan: Plan, request: Pick<UsageRequest, 'kind' | 'channel'>): boolean {
  if (!PLAN_RULES[plan].unlimitedRest) return false
  return request.kind === 'seal' || request.channel === 'rest'
}

/** How each wanted unit would be paid, in order, stopping at the first that cannot be. Pure. */
export function allocate(state: MeterState, request: Pick<UsageRequest, 'kind' | 'channel' | 'wanted'>): Billing[] {
  const rules = PLAN_RULES[state.plan]
  if (request.channel === 'bulk' && !rules.bulkSend) return []
  if (isUnlimited(state.plan, request)) return Array.from({ length: request.wanted }, () => 'unlimited' as const)
  const units: Billing[] = []
  let included = Math.max(0, rules.includedPerMonth - state.includedUsed)
  let credits = rules.overage === 'credits' ? Math.max(0, state.creditBalance) : 0
  let billable =
    rules.overage !== 'billable'
      ? 0
      : state.spendCapCents === null
        ? Number.POSITIVE_INFINITY
        : Math.max(0, Math.floor((state.spendCapCents - state.billedCents) / rules.unitPriceCents))
  while (units.length < request.wanted) {
    if (included > 0) {
      included--
      units.push('included')
    } else if (credits > 0) {
      credits--
      units.push('credit')
    } else if (billable > 0) {
      billable--
      units.push('billable')
    } else {
      break
    }
  }
  return units
}

/** The 402 for a request that got fewer units than it wanted (spec: upgrade_url for Free, upgrade: true for bulk). */
export function refusalFor(state: MeterState, request: Pick<UsageRequest, 'channel'>): AppError {
  const rules = PLAN_RULES[state.plan]
  if (request.channel === 'bulk' && !rules.bulkSend) {
    return new AppError('payment_required', 'Bulk send is available on the Team plan and higher.', { upgrade: true })
  }
  if (rules.overage === 'credits') {
    const upgradeUrl = paymentProvider().checkoutUrl({ id: state.orgId }, { packs: 1 })
    return new AppError(
      'payment_required',
      `This org has used the ${rules.includedPerMonth} documents the Free plan includes this month and has no credits left. ` +
        `Buy a pack of ${CREDIT_PACK.credits} credits (they never expire) or upgrade the plan.`,
      { upgrade_url: upgradeUrl },
    )
  }
  const cap = formatUsd(state.spendCapCents ?? 0)
  const message = `This org's monthly spend cap of ${cap} is reached. Raise it (PUT /api/v1/billing/spend-cap) to send more this month.`
  // The spec: bulk-send's 402 carries upgrade: true; elsewhere a reached spend cap is a plain error.
  return new AppError('spend_cap_reached', message, request.channel === 'bulk' ? { upgrade: true } : {})
}

type LockMode = 'none' | 'no key update'

async function readOrg(tx: Db, orgId: string, lock: LockMode) {
  const query = tx.select({ plan: orgs.plan, creditBalance: orgs.creditBalance, spendCapCents: orgs.spendCapCents }).from(orgs).where(eq(orgs.id, orgId))
  const [row] = lock === 'none' ? await query : await query.for(lock)
  if (!row) throw new AppError('not_found', `Org ${orgId} not found.`)
  return row
}

/**
 * This period's included units and billed cents. A statement of its own, after the lock:
 * under READ COMMITTED it then sees everything the previous holder of the lock committed
 * (a subquery in the locking statement would still read that statement's older snapshot).
 */
async function periodTotals(tx: Db, orgId: string, period: string): Promise<{ includedUsed: number; billedCents: number }> {
  const [row] = await tx
    .select({
      includedUsed: sql<number>`count(*) filter (where ${usageEvents.billing} = 'included')`.mapWith(Number),
      billedCents: sql<number>`coalesce(sum(${usageEvents.unitPriceCents}) filter (where ${usageEvents.billing} = 'billable'), 0)`.mapWith(Number),
    })
    .from(usageEvents)
    .where(and(eq(usageEvents.orgId, orgId), eq(usageEvents.period, period), inArray(usageEvents.billing, ['included', 'billable'])))
  return { includedUsed: row?.includedUsed ?? 0, billedCents: row?.billedCents ?? 0 }
}

/** Reads the org's meter state; with `lock`, holds its row until the caller's transaction ends. */
async function meterState(tx: Db, orgId: string, period: string, lock: LockMode): Promise<MeterState> {
  const org = await readOrg(tx, orgId, lock)
  return { orgId, ...org, ...(await periodTotals(tx, orgId, period)) }
}

/**
 * Quotes and reserves usage inside the caller's transaction. Metered requests lock the org's
 * row (FOR NO KEY UPDATE: exclusive among meterers, yet it does not block the foreign-key
 * checks of rows that reference the org), so concurrent creates of one org are metered one
 * after another, exactly. The plan is the org row's, not the cached principal's.
 *
 * Unmetered requests (REST sends and seals on Business) take no lock, so they never queue
 * behind each other; if the row shows the cached plan is stale, the row is locked after all.
 */
export async function quoteUsage(tx: Db, principal: Principal, request: UsageRequest): Promise<UsageQuote> {
  const period = periodOf(request.now)
  let state: MeterState
  if (isUnlimited(principal.plan, request)) {
    const org = await readOrg(tx, principal.orgId, 'none')
    state = isUnlimited(org.plan, request)
      ? { orgId: principal.orgId, ...org, includedUsed: 0, billedCents: 0 }
      : await meterState(tx, principal.orgId, period, 'no key update')
  } else {
    state = await meterState(tx, principal.orgId, period, 'no key update')
  }
  const wanted = Math.max(0, Math.floor(request.wanted))
  const units = allocate(state, { ...request, wanted })
  const unitPrice = PLAN_RULES[state.plan].unitPriceCents
  let recorded = 0

  return {
    allowed: units.length,
    refusal: units.length < wanted ? refusalFor(state, request) : undefined,
    async record(documentIds) {
      if (documentIds.length === 0) return
      if (recorded + documentIds.length > units.length) {
        throw new Error(`recording ${recorded + documentIds.length} units, but only ${units.length} were allowed`)
      }
      const billings = units.slice(recorded, recorded + documentIds.length)
      recorded += documentIds.length
      await insertMany(
        tx,
        usageEvents,
        documentIds.map((documentId, i) => {
          const billing = billings[i] ?? 'included'
          return {
            orgId: state.orgId,
            documentId,
            kind: request.kind,
            channel: request.channel,
            period,
            billing,
            unitPriceCents: billing === 'billable' ? unitPrice : 0,
            createdAt: request.now,
          }
        }),
      )
      const credits = billings.filter((b) => b === 'credit').length
      if (credits > 0) {
        await tx
          .update(orgs)
          .set({ creditBalance: sql`${orgs.creditBalance} - ${credits}` })
          .where(eq(orgs.id, state.orgId))
      }
    },
  }
}

/**
 * Bulk-send's up-front check (no lock, nothing reserved): 402 `{error, upgrade: true}` below
 * the Team plan, or when not a single unit can be paid for (the month's included units are
 * used and the spend cap is reached). Each batch is then quoted with quoteUsage.
 */
export async function assertBulkAllowed(db: Db, principal: Principal, now: Date): Promise<void> {
  const request = { kind: 'send', channel: 'bulk', wanted: 1 } as const
  const state = await meterState(db, principal.orgId, periodOf(now), 'none')
  if (allocate(state, request).length === 0) throw refusalFor(state, request)
}
