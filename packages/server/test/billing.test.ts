import { and, count, eq } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { executeAdminCommand, parseAdminCommand } from '../src/admin/commands.ts'
import type { Principal } from '../src/actors/principal.ts'
import { grantCredits } from '../src/billing/credits.ts'
import { assertBulkAllowed, quoteUsage, type UsageRequest } from '../src/billing/metering.ts'
import { documents, orgs, usageEvents, type Plan } from '../src/db/schema.ts'
import { AppError } from '../src/errors.ts'
import { bodyOf, expectError, fieldsForRoles, postDocument, setupOrg, uniqueEmail, type Json, type TestOrg } from './helpers/api.ts'
import { insertDocuments } from './helpers/documents.ts'
import { startTestServer, type TestServer } from './helpers/test-server.ts'
import { movableClock } from './helpers/clock.ts'

/**
 * Plans and metering (issue 4), over real HTTP and the real database. A settable clock
 * places each test in its own calendar month, so month boundaries are crossed on purpose.
 */

const { clock, setNow } = movableClock()

let server: TestServer
beforeAll(async () => {
  server = await startTestServer({ clock })
})
afterAll(() => server.close())

const FREE_LIMIT_TEXT =
  'This org has used the 3 documents the Free plan includes this month and has no credits left. ' +
  'Buy a pack of 25 credits (they never expire) or upgrade the plan.'
const capText = (usd: string) => `This org's monthly spend cap of ${usd} is reached. Raise it (PUT /api/v1/billing/spend-cap) to send more this month.`
const BULK_PLAN_TEXT = 'Bulk send is available on the Team plan and higher.'

const send = (org: TestOrg) => postDocument(server, org.apiKey, { template_id: org.templateId, signer: { email: uniqueEmail() } })

/** Sends `n` documents, `parallel` at a time; returns the statuses in order. */
async function sendMany(org: TestOrg, n: number, parallel = 10): Promise<number[]> {
  const statuses: number[] = []
  for (let done = 0; done < n; done += parallel) {
    const batch = await Promise.all(Array.from({ length: Math.min(parallel, n - done) }, () => send(org)))
    for (const response of batch) {
      statuses.push(response.status)
      await response.body?.cancel()
    }
  }
  return statuses
}

const usage = async (org: TestOrg, period?: string) => {
  const response = await server.request(`/api/v1/usage${period ? `?period=${period}` : ''}`, { key: org.apiKey })
  expect(response.status).toBe(200)
  return bodyOf(response)
}

const usageRows = (orgId: string) =>
  server.services.db
    .select({
      billing: usageEvents.billing,
      channel: usageEvents.channel,
      kind: usageEvents.kind,
      period: usageEvents.period,
      price: usageEvents.unitPriceCents,
    })
    .from(usageEvents)
    .where(eq(usageEvents.orgId, orgId))

const documentCount = async (orgId: string) => (await server.services.db.select({ n: count() }).from(documents).where(eq(documents.orgId, orgId)))[0]?.n

/** An operator CLI command, run as the admin socket runs it. */
const admin = (command: Json) => executeAdminCommand(server.services, parseAdminCommand(command))

const principalOf = (org: TestOrg, plan: Plan): Principal => ({ orgId: org.orgId, orgName: 'Test', plan })

/** A quote that is not recorded (the transaction commits nothing). */
const quote = (org: TestOrg, plan: Plan, request: Omit<UsageRequest, 'now'>) =>
  server.services.db.transaction(async (tx) => {
    const q = await quoteUsage(tx, principalOf(org, plan), { ...request, now: clock.now() })
    return { allowed: q.allowed, refusal: q.refusal }
  })

/** Quotes and records `wanted` units against existing documents (the way bulk-send and the agent tools call the seam). */
const meter = (org: TestOrg, plan: Plan, request: Omit<UsageRequest, 'now'>, documentIds: string[]) =>
  server.services.db.transaction(async (tx) => {
    const q = await quoteUsage(tx, principalOf(org, plan), { ...request, now: clock.now() })
    await q.record(documentIds.slice(0, q.allowed))
    return { allowed: q.allowed, refusal: q.refusal }
  })

describe('Free plan', () => {
  test('3 documents per calendar month, then 402 {error, upgrade_url} with the absolute URL of the billing page', async () => {
    setNow('2031-01-15T12:00:00Z')
    const org = await setupOrg(server, { plan: 'free' })
    expect(await sendMany(org, 3)).toEqual([201, 201, 201])
    const refused = await send(org)
    expect(refused.status).toBe(402)
    const body = await bodyOf(refused)
    expect(body).toEqual({ error: FREE_LIMIT_TEXT, code: 'payment_required', upgrade_url: `http://signet.test/billing?org=${org.orgId}` })
    const url = new URL(body.upgrade_url as string)
    expect(url.pathname).toBe('/billing')
    // The link works on this instance (PUBLIC_URL is http://signet.test; fetch the same path here).
    const page = await server.request(`${url.pathname}${url.search}`)
    expect(page.status).toBe(200)
    expect(await page.text()).toContain(`credits grant --org ${org.orgId} --packs 1`)
    expect(await documentCount(org.orgId)).toBe(3)
    expect(await usageRows(org.orgId)).toEqual(
      Array.from({ length: 3 }, () => ({ billing: 'included', channel: 'rest', kind: 'send', period: '2031-01', price: 0 })),
    )
  })

  test('a multi-party document counts once', async () => {
    setNow('2031-01-20T12:00:00Z')
    const { orgId, apiKey } = await server.createOrg('free')
    const template = await server.createTemplate(orgId, { fields: fieldsForRoles([0, 1, 2]) })
    const response = await postDocument(server, apiKey, {
      template_id: template.id,
      signers: [0, 1, 2].map((role) => ({ role, email: uniqueEmail(`party${role}`) })),
    })
    expect(response.status).toBe(201)
    expect(await usageRows(orgId)).toHaveLength(1)
  })

  test('a credit pack (operator CLI command) adds 25 sends after the included 3, then 402 again', async () => {
    setNow('2031-02-10T08:00:00Z')
    const org = await setupOrg(server, { plan: 'free' })
    expect(await sendMany(org, 3)).toEqual([201, 201, 201])
    expect(await admin({ name: 'credits.grant', orgId: org.orgId, packs: 1 })).toEqual({ org_id: org.orgId, credits_granted: 25, credit_balance: 25 })
    expect(await sendMany(org, 25)).toEqual(Array.from({ length: 25 }, () => 201))
    expect(await bodyOf(await send(org))).toEqual({
      error: FREE_LIMIT_TEXT,
      code: 'payment_required',
      upgrade_url: `http://signet.test/billing?org=${org.orgId}`,
    })
    expect(await usage(org)).toMatchObject({
      plan: 'free',
      period: '2031-02',
      included_allowance: 3,
      included_used: 3,
      included_remaining: 0,
      credits_used: 25,
      credit_balance: 0,
      billable_units: 0,
      amount_cents: 0,
    })
    expect(await documentCount(org.orgId)).toBe(28)
  })

  test('credits never expire: each new month spends its 3 included sends first, and the credits stay', async () => {
    setNow('2031-03-31T23:59:00Z')
    const org = await setupOrg(server, { plan: 'free' })
    await admin({ name: 'credits.grant', orgId: org.orgId, packs: 2 })
    expect(await sendMany(org, 5)).toEqual([201, 201, 201, 201, 201])
    expect(await usage(org)).toMatchObject({ period: '2031-03', included_used: 3, credits_used: 2, credit_balance: 48 })

    setNow('2031-04-01T00:00:01Z')
    expect(await sendMany(org, 3)).toEqual([201, 201, 201])
    expect(await usage(org)).toMatchObject({ period: '2031-04', included_used: 3, credits_used: 0, credit_balance: 48 })
    expect(await sendMany(org, 1)).toEqual([201])
    expect(await usage(org)).toMatchObject({ period: '2031-04', included_used: 3, credits_used: 1, credit_balance: 47 })

    // A year later they are still there.
    setNow('2032-04-15T00:00:00Z')
    expect(await sendMany(org, 4)).toEqual([201, 201, 201, 201])
    expect(await usage(org)).toMatchObject({ period: '2032-04', included_used: 3, credits_used: 1, credit_balance: 46 })
    // Earlier months keep their own figures.
    expect(await usage(org, '2031-03')).toMatchObject({ included_used: 3, credits_used: 2 })
  })

  test('a grant with a payment reference is granted once, however often it is replayed', async () => {
    const org = await setupOrg(server, { plan: 'free' })
    const grant = { orgId: org.orgId, packs: 2, source: 'stripe', reference: 'cs_test_a1b2c3' }
    expect(await grantCredits(server.services, grant)).toEqual({ org_id: org.orgId, credits_granted: 50, credit_balance: 50 })
    expect(await grantCredits(server.services, grant)).toEqual({ org_id: org.orgId, credits_granted: 0, credit_balance: 50 })
    // The same reference from another source is another payment.
    expect(await grantCredits(server.services, { ...grant, source: 'operator' })).toMatchObject({ credits_granted: 50, credit_balance: 100 })
    // Operator grants without a reference always add.
    expect(await admin({ name: 'credits.grant', orgId: org.orgId, packs: 1 })).toMatchObject({ credits_granted: 25, credit_balance: 125 })
    await expect(grantCredits(server.services, { ...grant, packs: 0 })).rejects.toThrow('packs must be an integer from 1 to 1000.')
  })

  test('a Free org can have exactly one template: the second is refused with 402 and upgrade_url', async () => {
    const org = await setupOrg(server, { plan: 'free' })
    const refusal = await server.createTemplate(org.orgId, { name: 'Second' }).catch((error: unknown) => error)
    expect(refusal).toBeInstanceOf(AppError)
    expect(refusal).toMatchObject({
      status: 402,
      message: 'A Free org can have one template; upgrade the plan to add more.',
      extra: { upgrade_url: `http://signet.test/billing?org=${org.orgId}` },
    })
    const list = await bodyOf(await server.request('/api/v1/templates', { key: org.apiKey }))
    expect(list.total).toBe(1)
    // After an upgrade there is no limit.
    await admin({ name: 'org.set-plan', orgId: org.orgId, plan: 'pro' })
    await server.createTemplate(org.orgId, { name: 'Second' })
    await server.createTemplate(org.orgId, { name: 'Third' })
    expect((await bodyOf(await server.request('/api/v1/templates', { key: org.apiKey }))).total).toBe(3)
  })

  test('concurrent template creates on a Free org save exactly one', async () => {
    const { orgId, apiKey } = await server.createOrg('free')
    const results = await Promise.allSettled(Array.from({ length: 5 }, (_, i) => server.createTemplate(orgId, { name: `T${i}` })))
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1)
    expect(results.filter((r) => r.status === 'rejected').map((r) => (r.reason as AppError).status)).toEqual([402, 402, 402, 402])
    expect((await bodyOf(await server.request('/api/v1/templates', { key: apiKey }))).total).toBe(1)
  })
})

describe('metering is exact under concurrency', () => {
  test('20 parallel creates on a Free org with 3 left create exactly 3 documents', async () => {
    setNow('2031-05-05T05:00:00Z')
    const org = await setupOrg(server, { plan: 'free' })
    const responses = await Promise.all(Array.from({ length: 20 }, () => send(org)))
    const statuses = responses.map((r) => r.status).sort()
    expect(statuses).toEqual([...Array.from({ length: 3 }, () => 201), ...Array.from({ length: 17 }, () => 402)])
    for (const response of responses.filter((r) => r.status === 402)) {
      expect(await bodyOf(response)).toEqual({ error: FREE_LIMIT_TEXT, code: 'payment_required', upgrade_url: `http://signet.test/billing?org=${org.orgId}` })
    }
    expect(await documentCount(org.orgId)).toBe(3)
    expect(await usageRows(org.orgId)).toHaveLength(3)
  })

  test('parallel creates spend exactly the credit balance, never below zero', async () => {
    setNow('2031-05-06T05:00:00Z')
    const org = await setupOrg(server, { plan: 'free' })
    expect(await sendMany(org, 3)).toEqual([201, 201, 201])
    await admin({ name: 'credits.grant', orgId: org.orgId, packs: 1 })
    const statuses = (await Promise.all(Array.from({ length: 40 }, () => send(org)))).map((r) => r.status)
    expect(statuses.filter((s) => s === 201)).toHaveLength(25)
    expect(statuses.filter((s) => s === 402)).toHaveLength(15)
    const [row] = await server.services.db.select({ balance: orgs.creditBalance }).from(orgs).where(eq(orgs.id, org.orgId))
    expect(row?.balance).toBe(0)
    expect(await documentCount(org.orgId)).toBe(28)
  })
})

describe('Pro and Team', () => {
  let pro: TestOrg

  test('100 sends a month are included, then each is billable at 20 cents; the usage report counts them', async () => {
    setNow('2031-06-10T10:00:00Z')
    pro = await setupOrg(server, { plan: 'pro' })
    expect((await sendMany(pro, 102)).every((s) => s === 201)).toBe(true)
    const rows = await usageRows(pro.orgId)
    expect(rows.filter((r) => r.billing === 'included')).toHaveLength(100)
    expect(rows.filter((r) => r.billing === 'billable')).toEqual([
      { billing: 'billable', channel: 'rest', kind: 'send', period: '2031-06', price: 20 },
      { billing: 'billable', channel: 'rest', kind: 'send', period: '2031-06', price: 20 },
    ])
    expect(await usage(pro)).toEqual({
      org_id: pro.orgId,
      plan: 'pro',
      period: '2031-06',
      included_allowance: 100,
      included_used: 100,
      included_remaining: 0,
      credits_used: 0,
      credit_balance: 0,
      billable_units: 2,
      unit_price_cents: 20,
      amount_cents: 40,
      unlimited_units: 0,
      spend_cap_cents: null,
      spend_cap_remaining_cents: null,
      units_by_source: { rest_sends: 102, bulk_sends: 0, agent_tool_sends: 0, seals: 0 },
    })
  })

  test('the spend cap (API) stops billable sends with a plain 402; removing it lets them through', async () => {
    const cap = (json: unknown) => server.request('/api/v1/billing/spend-cap', { method: 'PUT', key: pro.apiKey, json })
    expect(await bodyOf(await cap({ spend_cap_cents: 80 }))).toEqual({ spend_cap_cents: 80 })
    expect(await bodyOf(await server.request('/api/v1/billing/spend-cap', { key: pro.apiKey }))).toEqual({ spend_cap_cents: 80 })
    // 40 cents spent: two more fit under 80.
    expect(await sendMany(pro, 2)).toEqual([201, 201])
    await expectError(await send(pro), 402, capText('$0.80'))
    expect(await usage(pro)).toMatchObject({ billable_units: 4, amount_cents: 80, spend_cap_cents: 80, spend_cap_remaining_cents: 0 })

    // A cap below what is already spent stops them too.
    await cap({ spend_cap_cents: 50 })
    await expectError(await send(pro), 402, capText('$0.50'))
    expect(await usage(pro)).toMatchObject({ spend_cap_remaining_cents: 0 })

    expect(await bodyOf(await cap({ spend_cap_cents: null }))).toEqual({ spend_cap_cents: null })
    expect(await sendMany(pro, 1)).toEqual([201])
    expect(await usage(pro)).toMatchObject({ billable_units: 5, amount_cents: 100 })
  })

  test('the operator sets the cap with org set-spend-cap', async () => {
    expect(await admin({ name: 'org.set-spend-cap', orgId: pro.orgId, cents: 100 })).toEqual({ org_id: pro.orgId, spend_cap_cents: 100 })
    await expectError(await send(pro), 402, capText('$1.00'))
    expect(await admin({ name: 'usage.show', orgId: pro.orgId })).toMatchObject({ period: '2031-06', amount_cents: 100, spend_cap_remaining_cents: 0 })
  })

  test('the next month includes 100 again (the cap applies to billable usage only)', async () => {
    setNow('2031-07-01T00:00:00Z')
    expect(await sendMany(pro, 1)).toEqual([201])
    expect(await usage(pro)).toMatchObject({ period: '2031-07', included_used: 1, billable_units: 0, spend_cap_cents: 100, spend_cap_remaining_cents: 100 })
  })

  test('Team meters the same way; a cap of 0 allows the included sends only', async () => {
    setNow('2031-08-01T00:00:00Z')
    const team = await setupOrg(server, { plan: 'team' })
    await admin({ name: 'org.set-spend-cap', orgId: team.orgId, cents: 0 })
    expect(await quote(team, 'team', { kind: 'send', channel: 'rest', wanted: 101 })).toMatchObject({ allowed: 100 })
    const { refusal } = await quote(team, 'team', { kind: 'send', channel: 'rest', wanted: 101 })
    expect(refusal).toMatchObject({ status: 402, message: capText('$0.00') })
    expect(refusal?.extra).toEqual({})
  })
})

describe('Business', () => {
  test('REST sends are unlimited: recorded as unlimited, never billed, no cap applies', async () => {
    setNow('2031-09-09T09:00:00Z')
    const business = await setupOrg(server, { plan: 'business' })
    await admin({ name: 'org.set-spend-cap', orgId: business.orgId, cents: 0 })
    expect(await sendMany(business, 5)).toEqual([201, 201, 201, 201, 201])
    expect(await usage(business)).toMatchObject({ plan: 'business', unlimited_units: 5, included_used: 0, billable_units: 0, amount_cents: 0 })
    expect((await usageRows(business.orgId)).every((r) => r.billing === 'unlimited' && r.price === 0)).toBe(true)
  })
})

describe('the metering seam for bulk-send and the agent tools', () => {
  const bulk = { kind: 'send', channel: 'bulk' } as const

  test('bulk-send below Team: 402 {error, upgrade: true}, up front and from the quote', async () => {
    for (const plan of ['free', 'pro'] as const) {
      const org = await setupOrg(server, { plan })
      const refusal = await assertBulkAllowed(server.services.db, principalOf(org, plan), clock.now()).catch((e: unknown) => e)
      expect(refusal).toMatchObject({ status: 402, message: BULK_PLAN_TEXT, extra: { upgrade: true } })
      const quoted = await quote(org, plan, { ...bulk, wanted: 5 })
      expect(quoted.allowed).toBe(0)
      expect(quoted.refusal).toMatchObject({ status: 402, message: BULK_PLAN_TEXT, extra: { upgrade: true } })
    }
  })

  test('the plan is read from the org row, not the cached principal', async () => {
    const org = await setupOrg(server, { plan: 'free' })
    // A principal cached before a downgrade still says team.
    await expect(assertBulkAllowed(server.services.db, principalOf(org, 'team'), clock.now())).rejects.toMatchObject({ extra: { upgrade: true } })
    expect((await quote(org, 'business', { kind: 'send', channel: 'rest', wanted: 1 })).allowed).toBe(1)
    await sendMany(org, 3)
    expect(await quote(org, 'business', { kind: 'send', channel: 'rest', wanted: 1 })).toMatchObject({ allowed: 0, refusal: { status: 402 } })
  })

  test('Team: bulk is metered in the same 100 a month, then billable up to the cap; a reached cap refuses with upgrade: true', async () => {
    setNow('2031-10-10T10:00:00Z')
    const team = await setupOrg(server, { plan: 'team' })
    await assertBulkAllowed(server.services.db, principalOf(team, 'team'), clock.now())
    const ids = await insertDocuments(
      server,
      team.orgId,
      Array.from({ length: 3 }, () => ({})),
    )
    expect(await meter(team, 'team', { ...bulk, wanted: 3 }, ids)).toEqual({ allowed: 3, refusal: undefined })
    expect(await usage(team)).toMatchObject({ included_used: 3 })
    expect((await usageRows(team.orgId)).map((r) => r.channel)).toEqual(['bulk', 'bulk', 'bulk'])

    await admin({ name: 'org.set-spend-cap', orgId: team.orgId, cents: 40 })
    // 97 included left, then 2 billable under a 40-cent cap.
    const partial = await quote(team, 'team', { ...bulk, wanted: 105 })
    expect(partial.allowed).toBe(99)
    expect(partial.refusal).toMatchObject({ status: 402, message: capText('$0.40'), extra: { upgrade: true } })

    // Use them all (one real document stands for each unit here), then bulk is refused up front.
    await meter(
      team,
      'team',
      { ...bulk, wanted: 99 },
      Array.from({ length: 99 }, () => ids[0] ?? ''),
    )
    expect(await usage(team)).toMatchObject({ included_used: 100, billable_units: 2, amount_cents: 40 })
    const refusal = await assertBulkAllowed(server.services.db, principalOf(team, 'team'), clock.now()).catch((e: unknown) => e)
    expect(refusal).toMatchObject({ status: 402, message: capText('$0.40'), extra: { upgrade: true } })
  })

  test('Business: bulk and agent-tool sends are metered even though REST sends are not; seals are unlimited', async () => {
    setNow('2031-11-11T11:00:00Z')
    const business = await setupOrg(server, { plan: 'business' })
    const [id = ''] = await insertDocuments(server, business.orgId, [{}])
    expect(await meter(business, 'business', { ...bulk, wanted: 2 }, [id, id])).toMatchObject({ allowed: 2 })
    expect(await meter(business, 'business', { kind: 'send', channel: 'mcp', wanted: 1 }, [id])).toMatchObject({ allowed: 1 })
    expect(await meter(business, 'business', { kind: 'seal', channel: 'mcp', wanted: 1 }, [id])).toMatchObject({ allowed: 1 })
    expect(await sendMany(business, 1)).toEqual([201])
    expect(await usage(business)).toMatchObject({ included_used: 3, unlimited_units: 2, billable_units: 0 })
    const rows = await usageRows(business.orgId)
    expect(rows.map((r) => `${r.kind}/${r.channel}/${r.billing}`).sort()).toEqual(
      ['send/bulk/included', 'send/bulk/included', 'send/mcp/included', 'seal/mcp/unlimited', 'send/rest/unlimited'].sort(),
    )

    await admin({ name: 'org.set-spend-cap', orgId: business.orgId, cents: 0 })
    expect((await quote(business, 'business', { ...bulk, wanted: 98 })).allowed).toBe(97)
    const mcp = await quote(business, 'business', { kind: 'send', channel: 'mcp', wanted: 98 })
    expect(mcp.allowed).toBe(97)
    expect(mcp.refusal).toMatchObject({ status: 402, message: capText('$0.00') })
    // The agent tools' spend-cap refusal is a plain error (spec); only bulk adds upgrade: true.
    expect(mcp.refusal?.extra).toEqual({})
    expect(await quote(business, 'business', { kind: 'send', channel: 'rest', wanted: 1 })).toEqual({ allowed: 1, refusal: undefined })
  })

  test('Free: agent-tool sends and seals share the 3 a month with REST sends, then credits', async () => {
    setNow('2031-12-12T12:00:00Z')
    const free = await setupOrg(server, { plan: 'free' })
    const [id = ''] = await insertDocuments(server, free.orgId, [{}])
    expect(await meter(free, 'free', { kind: 'seal', channel: 'mcp', wanted: 1 }, [id])).toMatchObject({ allowed: 1 })
    expect(await meter(free, 'free', { kind: 'send', channel: 'mcp', wanted: 1 }, [id])).toMatchObject({ allowed: 1 })
    expect(await sendMany(free, 2, 1)).toEqual([201, 402])
    await grantCredits(server.services, { orgId: free.orgId, packs: 1, source: 'operator' })
    expect(await meter(free, 'free', { kind: 'seal', channel: 'mcp', wanted: 1 }, [id])).toMatchObject({ allowed: 1 })
    expect(await usage(free)).toMatchObject({ included_used: 3, credits_used: 1, credit_balance: 24 })
  })

  test('record refuses more units than were allowed', async () => {
    const free = await setupOrg(server, { plan: 'free' })
    const [id = ''] = await insertDocuments(server, free.orgId, [{}])
    await expect(
      server.services.db.transaction(async (tx) => {
        const q = await quoteUsage(tx, principalOf(free, 'free'), { kind: 'send', channel: 'mcp', wanted: 5, now: clock.now() })
        expect(q.allowed).toBe(3)
        await q.record([id, id, id, id])
      }),
    ).rejects.toThrow('recording 4 units, but only 3 were allowed')
    expect(await usageRows(free.orgId)).toHaveLength(0)
  })
})

describe('REST: usage and spend cap', () => {
  let org: TestOrg
  beforeAll(async () => {
    org = await setupOrg(server, { plan: 'team' })
  })

  test('GET /api/v1/usage defaults to the current month and validates period', async () => {
    setNow('2032-02-29T23:00:00Z')
    expect(await usage(org)).toMatchObject({ org_id: org.orgId, plan: 'team', period: '2032-02', included_used: 0 })
    expect(await usage(org, '1999-12')).toMatchObject({ period: '1999-12', included_used: 0 })
    for (const bad of ['2032-13', '2032-2', 'now', '2032-02-01']) {
      await expectError(await server.request(`/api/v1/usage?period=${bad}`, { key: org.apiKey }), 400, /period/)
    }
    await expectError(await server.request('/api/v1/usage?month=2032-02', { key: org.apiKey }), 400)
    await expectError(await server.request('/api/v1/usage'), 401)
  })

  test('PUT /api/v1/billing/spend-cap takes exactly {spend_cap_cents: integer ≥ 0 | null}', async () => {
    const put = (json: unknown) => server.request('/api/v1/billing/spend-cap', { method: 'PUT', key: org.apiKey, json })
    for (const body of [{ spend_cap_cents: -1 }, { spend_cap_cents: 1.5 }, { spend_cap_cents: '100' }, {}, { spend_cap_cents: 100, currency: 'usd' }]) {
      await expectError(await put(body), 400)
    }
    await expectError(await put({ spend_cap_cents: 100_000_001 }), 400)
    expect(await bodyOf(await put({ spend_cap_cents: 2500 }))).toEqual({ spend_cap_cents: 2500 })
    // Each org sees and sets only its own.
    const other = await setupOrg(server, { plan: 'team' })
    expect(await bodyOf(await server.request('/api/v1/billing/spend-cap', { key: other.apiKey }))).toEqual({ spend_cap_cents: null })
    expect(await usage(org)).toMatchObject({ spend_cap_cents: 2500, spend_cap_remaining_cents: 2500 })
  })
})

describe('GET /billing (the instance billing page)', () => {
  test('explains how to buy a pack here, naming the org; needs no key', async () => {
    const org = await setupOrg(server, { plan: 'free' })
    const response = await server.request(`/billing?org=${org.orgId}`)
    expect(response.status).toBe(200)
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8')
    expect(response.headers.get('content-security-policy')).toContain("default-src 'none'")
    const text = await response.text()
    expect(text).toContain(`npm run -s admin -- credits grant --org ${org.orgId} --packs 1`)
    expect(text).toContain('25 credits')
    expect(text).toContain('$5.00')
  })

  test('anything else in ?org= is not echoed', async () => {
    const response = await server.request(`/billing?org=${encodeURIComponent('<script>alert(1)</script>')}`)
    expect(response.status).toBe(200)
    const text = await response.text()
    expect(text).not.toContain('<script>')
    expect(text).not.toContain('alert(1)')
    expect(text).toContain('--org &lt;org id&gt;')
  })
})

describe('the usage ledger', () => {
  test('keeps one row per document per metered unit, in the period of the send', async () => {
    setNow('2033-01-31T23:59:59Z')
    const org = await setupOrg(server, { plan: 'pro' })
    await sendMany(org, 1)
    setNow('2033-02-01T00:00:00Z')
    await sendMany(org, 1)
    const rows = await server.services.db
      .select({ period: usageEvents.period, documentId: usageEvents.documentId })
      .from(usageEvents)
      .where(and(eq(usageEvents.orgId, org.orgId)))
    expect(rows.map((r) => r.period).sort()).toEqual(['2033-01', '2033-02'])
    expect(new Set(rows.map((r) => r.documentId)).size).toBe(2)
  })
})
