import { createHash } from 'node:crypto'
import type { Client } from '@modelcontextprotocol/sdk/client/index.js'
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import { and, eq } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { executeAdminCommand } from '../src/admin/commands.ts'
import { periodOf } from '../src/billing/plans.ts'
import { usageEvents } from '../src/db/schema.ts'
import { bodyOf, postDocument, setupOrg, uniqueEmail, type Json, type TestOrg } from './helpers/api.ts'
import { movableClock } from './helpers/clock.ts'
import { imageHeavyPdf } from './helpers/hostile-pdfs.ts'
import { callError, callOk, connectAgent } from './helpers/mcp.ts'
import { makePdf } from './helpers/pdf.ts'
import { download, verifyIdentity } from './helpers/seals.ts'
import { startTestServer, type TestServer } from './helpers/test-server.ts'

/*
 * Metering of the agent tools (spec Limits): agent-tool sends are metered on every plan,
 * Business included; seals share the pool on Free, Pro and Team and are unlimited on
 * Business; REST sends on Business stay unmetered. Exact counts, over real HTTP with the
 * official SDK client; plus the 25 MB seal the endpoint's body limit exists for.
 */

const FREE_LIMIT_TEXT =
  'This org has used the 3 documents the Free plan includes this month and has no credits left. ' +
  'Buy a pack of 25 credits (they never expire) or upgrade the plan.'
const capText = (usd: string) => `This org's monthly spend cap of ${usd} is reached. Raise it (PUT /api/v1/billing/spend-cap) to send more this month.`
const PDF_MAX_BYTES = 25 * 1024 * 1024

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex')
const base64 = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64')

/** A response's status, its body read to the end (a test server closes promptly only once its clients have read their responses). */
const statusOf = async (pending: Promise<Response>): Promise<number> => {
  const response = await pending
  await response.arrayBuffer()
  return response.status
}

// The middle of the current month, so no test straddles a month boundary while it counts.
const { clock, setNow } = movableClock()
const PERIOD = periodOf(new Date())
setNow(`${PERIOD}-15T12:00:00Z`)

let server: TestServer
beforeAll(async () => {
  server = await startTestServer({ clock })
})
afterAll(async () => {
  await server?.close()
})

/** An org of the plan, with its key, its one-role template and a connected agent. */
async function agentOrg(plan: 'free' | 'pro' | 'business', options: { verified?: boolean } = {}): Promise<TestOrg & { agent: Client }> {
  const org = await setupOrg(server, { plan })
  if (options.verified) await verifyIdentity(server, org.orgId)
  return { ...org, agent: await connectAgent(server, org.apiKey) }
}

const createArgs = (org: TestOrg) => ({ template_id: org.templateId, signer_email: uniqueEmail() })
const agentCreate = (org: TestOrg & { agent: Client }) => callOk<Json>(org.agent, 'create_and_send_document', createArgs(org))
const agentSeal = async (org: TestOrg & { agent: Client }) =>
  callOk<Json>(org.agent, 'seal_document', { file_base64: base64(await makePdf(1)), title: 'Metered seal' })
const restCreate = (org: TestOrg) => postDocument(server, org.apiKey, { template_id: org.templateId, signer: { email: uniqueEmail() } })

/** `n` agent-tool creates, ten at a time (concurrently within each ten, as an agent running tools in parallel would). */
async function agentCreates(org: TestOrg & { agent: Client }, n: number): Promise<void> {
  for (let done = 0; done < n; done += 10) {
    await Promise.all(Array.from({ length: Math.min(10, n - done) }, () => agentCreate(org)))
  }
}

const restUsage = async (org: TestOrg) => {
  const response = await server.request('/api/v1/usage', { key: org.apiKey })
  expect(response.status).toBe(200)
  return bodyOf(response)
}

/** get_usage over MCP, checked to be the REST report plus spend_cap_reached. */
async function usage(org: TestOrg & { agent: Client }): Promise<Json> {
  const { structured } = await callOk<Json>(org.agent, 'get_usage')
  const rest = await restUsage(org)
  expect(structured).toEqual({ ...rest, spend_cap_reached: rest.spend_cap_remaining_cents === 0 })
  return structured
}

/** The org's ledger rows, counted by channel, kind and billing: "mcp send included" → 100. */
async function ledger(orgId: string): Promise<Record<string, number>> {
  const rows = await server.services.db
    .select({ channel: usageEvents.channel, kind: usageEvents.kind, billing: usageEvents.billing })
    .from(usageEvents)
    .where(and(eq(usageEvents.orgId, orgId), eq(usageEvents.period, PERIOD)))
  const counts: Record<string, number> = {}
  for (const row of rows) {
    const key = `${row.channel} ${row.kind} ${row.billing}`
    counts[key] = (counts[key] ?? 0) + 1
  }
  return counts
}

/**
 * Uses up `n` of the month's included units without `n` real sends: ledger rows exactly as
 * metering records agent-tool sends (same table, channel mcp, billing included, this period;
 * the document is optional in the ledger). Only for the spend-cap and seal tests, whose
 * subject is what happens after the 100; the Business test below makes all 101 sends for real.
 */
async function useIncludedUnits(orgId: string, n: number): Promise<void> {
  await server.services.db.insert(usageEvents).values(
    Array.from({ length: n }, () => ({
      orgId,
      kind: 'send' as const,
      channel: 'mcp' as const,
      period: PERIOD,
      billing: 'included' as const,
      unitPriceCents: 0,
    })),
  )
}

describe('Business', () => {
  test('100 agent-tool creates a month are included, the 101st is billable; REST creates stay unmetered', async () => {
    const org = await agentOrg('business')
    try {
      await agentCreates(org, 100)
      expect(await usage(org)).toMatchObject({
        plan: 'business',
        period: PERIOD,
        included_allowance: 100,
        included_used: 100,
        included_remaining: 0,
        billable_units: 0,
        amount_cents: 0,
        unlimited_units: 0,
      })

      const { structured } = await agentCreate(org)
      expect(structured.status).toBe('sent')
      expect(await usage(org)).toMatchObject({ included_used: 100, included_remaining: 0, billable_units: 1, unit_price_cents: 20, amount_cents: 20 })

      for (let i = 0; i < 3; i++) expect(await statusOf(restCreate(org))).toBe(201)
      expect(await usage(org)).toMatchObject({ included_used: 100, billable_units: 1, amount_cents: 20, unlimited_units: 3 })
      expect((await usage(org)).units_by_source).toEqual({ rest_sends: 3, bulk_sends: 0, agent_tool_sends: 101, seals: 0 })
      expect(await ledger(org.orgId)).toEqual({ 'mcp send included': 100, 'mcp send billable': 1, 'rest send unlimited': 3 })
    } finally {
      await org.agent.close()
    }
  }, 180_000)

  test('seal_document is unlimited: it goes through with the included units used up and a spend cap of 0, where a create is refused', async () => {
    const org = await agentOrg('business', { verified: true })
    try {
      const sealed = await agentSeal(org)
      expect(sealed.structured.seal_status).toBe('sealed')
      expect(await usage(org)).toMatchObject({ included_used: 0, billable_units: 0, unlimited_units: 1 })

      await useIncludedUnits(org.orgId, 100)
      expect(await bodyOf(await server.request('/api/v1/billing/spend-cap', { method: 'PUT', key: org.apiKey, json: { spend_cap_cents: 0 } }))).toEqual({
        spend_cap_cents: 0,
      })
      expect((await agentSeal(org)).structured.seal_status).toBe('sealed')
      expect(await callError(org.agent, 'create_and_send_document', createArgs(org))).toBe(capText('$0.00'))
      expect(await usage(org)).toMatchObject({ included_used: 100, billable_units: 0, unlimited_units: 2, spend_cap_reached: true })
      expect(await ledger(org.orgId)).toEqual({ 'mcp seal unlimited': 2, 'mcp send included': 100 })
    } finally {
      await org.agent.close()
    }
  })
})

describe('Free', () => {
  test('one REST create and two agent-tool seals use up the 3; then agent-tool creates and seals are refused with the upgrade URL', async () => {
    const org = await agentOrg('free', { verified: true })
    try {
      expect(await statusOf(restCreate(org))).toBe(201)
      expect((await agentSeal(org)).structured.seal_status).toBe('sealed')
      expect(await usage(org)).toMatchObject({ plan: 'free', included_allowance: 3, included_used: 2, included_remaining: 1 })
      expect((await agentSeal(org)).structured.seal_status).toBe('sealed')
      expect(await usage(org)).toMatchObject({ included_used: 3, included_remaining: 0, credit_balance: 0, spend_cap_reached: false })

      const upgradeUrl = `http://signet.test/billing?org=${org.orgId}`
      const refusal = `${FREE_LIMIT_TEXT} Upgrade or buy credits: ${upgradeUrl}`
      expect(await callError(org.agent, 'create_and_send_document', createArgs(org))).toBe(refusal)
      expect(await callError(org.agent, 'seal_document', { file_base64: base64(await makePdf(1)), title: 'One too many' })).toBe(refusal)
      // REST says the same in its 402.
      const rest = await restCreate(org)
      expect(rest.status).toBe(402)
      expect(await bodyOf(rest)).toEqual({ error: FREE_LIMIT_TEXT, code: 'payment_required', upgrade_url: upgradeUrl })
      expect(await statusOf(server.request(upgradeUrl.replace('http://signet.test', '')))).toBe(200)
      expect(await ledger(org.orgId)).toEqual({ 'rest send included': 1, 'mcp seal included': 2 })

      expect((await usage(org)).units_by_source).toEqual({ rest_sends: 1, bulk_sends: 0, agent_tool_sends: 0, seals: 2 })

      // Credits then pay for the next agent-tool create.
      await executeAdminCommand(server.services, { name: 'credits.grant', orgId: org.orgId, packs: 1 })
      await agentCreate(org)
      expect(await usage(org)).toMatchObject({ included_used: 3, credits_used: 1, credit_balance: 24 })
    } finally {
      await org.agent.close()
    }
  })

  test('exact under concurrency: of six agent-tool creates at once, three are included and three refused', async () => {
    const org = await agentOrg('free')
    try {
      const results = await Promise.all(
        Array.from({ length: 6 }, () => org.agent.callTool({ name: 'create_and_send_document', arguments: createArgs(org) }) as Promise<CallToolResult>),
      )
      expect(results.filter((r) => !r.isError)).toHaveLength(3)
      const refusals = results.filter((r) => r.isError).map((r) => (r.content[0] as { text: string }).text)
      expect(refusals).toEqual(Array.from({ length: 3 }, () => `${FREE_LIMIT_TEXT} Upgrade or buy credits: http://signet.test/billing?org=${org.orgId}`))
      expect(await ledger(org.orgId)).toEqual({ 'mcp send included': 3 })
      expect((await callOk<{ documents: Json[] }>(org.agent, 'list_documents')).structured.documents).toHaveLength(3)
    } finally {
      await org.agent.close()
    }
  })
})

describe('Pro with a spend cap', () => {
  test('once the 100 included are used and the cap (0) is reached, agent-tool creates and seals get a plain error, without an upgrade link', async () => {
    const org = await agentOrg('pro', { verified: true })
    try {
      const cap = (cents: number) => server.request('/api/v1/billing/spend-cap', { method: 'PUT', key: org.apiKey, json: { spend_cap_cents: cents } })
      expect(await bodyOf(await cap(0))).toEqual({ spend_cap_cents: 0 })
      // 97 units used beforehand (see useIncludedUnits); the last three of the 100 for real: two sends and a seal.
      await useIncludedUnits(org.orgId, 97)
      await agentCreates(org, 2)
      expect((await agentSeal(org)).structured.seal_status).toBe('sealed')
      expect(await usage(org)).toMatchObject({
        plan: 'pro',
        included_used: 100,
        included_remaining: 0,
        billable_units: 0,
        spend_cap_cents: 0,
        spend_cap_reached: true,
      })

      const text = await callError(org.agent, 'create_and_send_document', createArgs(org))
      expect(text).toBe(capText('$0.00'))
      expect(text).not.toContain('Upgrade')
      // On Pro seals share the pool, so the cap stops them too.
      expect(await callError(org.agent, 'seal_document', { file_base64: base64(await makePdf(1)), title: 'Over the cap' })).toBe(capText('$0.00'))
      expect(await ledger(org.orgId)).toEqual({ 'mcp send included': 99, 'mcp seal included': 1 })

      // Room for one billable unit (20 cents): one more create, then the cap is reached again.
      expect(await bodyOf(await cap(20))).toEqual({ spend_cap_cents: 20 })
      await agentCreate(org)
      expect(await callError(org.agent, 'create_and_send_document', createArgs(org))).toBe(capText('$0.20'))
      expect(await usage(org)).toMatchObject({ billable_units: 1, amount_cents: 20, spend_cap_remaining_cents: 0, spend_cap_reached: true })
    } finally {
      await org.agent.close()
    }
  })
})

describe('PDF size over MCP (PDF_MAX_MB, default 25)', () => {
  test('a PDF just under 25 MB is sealed from base64 in the tool call; one just over is refused with a text naming PDF_MAX_MB', async () => {
    const org = await agentOrg('business', { verified: true })
    try {
      const big = imageHeavyPdf(24.9)
      expect(big.byteLength).toBeGreaterThan(24 * 1024 * 1024)
      expect(big.byteLength).toBeLessThan(PDF_MAX_BYTES)
      const { structured } = await callOk<Json>(org.agent, 'seal_document', { file_base64: base64(big), filename: 'scan.pdf' })
      expect(structured).toMatchObject({ seal_status: 'sealed', original_sha256: sha256(big) })
      const sealed = await download(server, org.apiKey, `/api/v1/documents/${structured.document_id as string}/signed-file`)
      expect(sha256(sealed)).toBe(structured.sha256)
      // The seal is an incremental update: the upload is the sealed file's first bytes.
      expect(Buffer.from(sealed.subarray(0, big.byteLength)).equals(big)).toBe(true)

      const tooBig = imageHeavyPdf(25.3)
      expect(tooBig.byteLength).toBeGreaterThan(PDF_MAX_BYTES)
      expect(await callError(org.agent, 'seal_document', { file_base64: base64(tooBig), title: 'Too big' })).toBe(
        `The PDF is larger than ${PDF_MAX_BYTES} bytes (PDF_MAX_MB).`,
      )

      // Far over the limit the request body itself is refused (HTTP 413) before any JSON is parsed; the client reports it, naming PDF_MAX_MB.
      await expect(org.agent.callTool({ name: 'seal_document', arguments: { file_base64: base64(imageHeavyPdf(30)), title: 'Far too big' } })).rejects.toThrow(
        /The request body is larger than \d+ bytes \(PDF_MAX_MB\)/,
      )
      expect(await usage(org)).toMatchObject({ unlimited_units: 1 })
    } finally {
      await org.agent.close()
    }
  }, 180_000)
})
