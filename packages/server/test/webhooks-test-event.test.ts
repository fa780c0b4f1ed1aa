import { createServer } from 'node:net'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { webhookEndpoints } from '../src/db/schema.ts'
import { newWebhookSecret } from '../src/webhooks/signature.ts'
import { bodyOf, expectError, setupOrg, type TestOrg } from './helpers/api.ts'
import { createSignedInUser } from './helpers/session.ts'
import { startTestServer, type TestServer } from './helpers/test-server.ts'
import { startWebhookReceiver, verifyStandardSignature, type WebhookReceiver } from './helpers/webhook-receiver.ts'

/** A server that may deliver to loopback (the receiver), and one with the SSRF guard on (the default). */
let server: TestServer
let guarded: TestServer
let receiver: WebhookReceiver

beforeAll(async () => {
  ;[server, guarded, receiver] = await Promise.all([startTestServer({ env: { WEBHOOK_ALLOW_PRIVATE: 'true' } }), startTestServer(), startWebhookReceiver()])
})
afterAll(async () => {
  await Promise.all([server.close(), guarded.close()])
  await receiver.close()
})

interface TestResult {
  delivered: boolean
  status_code: number | null
  latency_ms: number
  error: string | null
  response_body_excerpt: string | null
}

async function registered(org: TestOrg, url: string): Promise<{ id: string; secret: string }> {
  const response = await server.request('/api/v1/webhooks', { method: 'POST', key: org.apiKey, json: { url } })
  expect(response.status).toBe(201)
  return bodyOf<{ id: string; secret: string }>(response)
}

const sendTest = (target: TestServer, org: TestOrg, id: string) => target.request(`/api/v1/webhooks/${id}/test`, { method: 'POST', key: org.apiKey })

async function tested(target: TestServer, org: TestOrg, id: string): Promise<TestResult> {
  const response = await sendTest(target, org, id)
  expect(response.status).toBe(200)
  return bodyOf<TestResult>(response)
}

/** A loopback port nothing listens on (taken, then given back). */
async function closedPort(): Promise<number> {
  const probe = createServer()
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve))
  const { port } = probe.address() as { port: number }
  await new Promise<void>((resolve) => probe.close(() => resolve()))
  return port
}

describe('POST /api/v1/webhooks/{id}/test', () => {
  test('delivers a signed test event to the receiver and reports its answer', async () => {
    const org = await setupOrg(server, { plan: 'pro' })
    const endpoint = await registered(org, `${receiver.url}/test-ok`)
    receiver.secret = endpoint.secret
    const before = receiver.received.length

    const result = await tested(server, org, endpoint.id)
    expect(result).toEqual({
      delivered: true,
      status_code: 200,
      latency_ms: expect.any(Number) as unknown,
      error: null,
      response_body_excerpt: '{"received":true}',
    })
    const [arrived] = (await receiver.waitFor(before + 1)).slice(before)
    if (!arrived) throw new Error('nothing arrived')
    expect(arrived.path).toBe('/hooks/test-ok')
    expect(arrived.signatureValid).toBe(true)
    expect(verifyStandardSignature(endpoint.secret, arrived.body, arrived.headers)).toBe(true)
    expect(JSON.parse(arrived.body)).toEqual({
      event: 'test',
      occurred_at: expect.stringMatching(/Z$/) as unknown,
      webhook_endpoint_id: endpoint.id,
      message: expect.stringContaining('test event') as unknown,
    })

    // A test is not a delivery of an event: the log stays empty.
    const log = await bodyOf<{ deliveries: unknown[] }>(await server.request(`/api/v1/webhooks/${endpoint.id}/deliveries`, { key: org.apiKey }))
    expect(log.deliveries).toEqual([])
  })

  test("reports the receiver's error status and a redirect as not delivered", async () => {
    const org = await setupOrg(server, { plan: 'pro' })
    const endpoint = await registered(org, `${receiver.url}/test-fail`)
    receiver.secret = endpoint.secret
    receiver.failNext(1, 503)
    expect(await tested(server, org, endpoint.id)).toEqual({
      delivered: false,
      status_code: 503,
      latency_ms: expect.any(Number) as unknown,
      error: 'HTTP 503',
      response_body_excerpt: '{"received":true}',
    })
  })

  test('reports delivered:false with the error when nothing listens, and no retry follows', async () => {
    const org = await setupOrg(server, { plan: 'pro' })
    const endpoint = await registered(org, `http://127.0.0.1:${await closedPort()}/hooks`)
    const result = await tested(server, org, endpoint.id)
    expect(result).toEqual({
      delivered: false,
      status_code: null,
      latency_ms: expect.any(Number) as unknown,
      error: expect.stringContaining('ECONNREFUSED') as unknown,
      response_body_excerpt: null,
    })
  })

  test('goes through the SSRF guard: an endpoint that now resolves to a private address is refused, and nothing is sent', async () => {
    const org = await setupOrg(guarded, { plan: 'pro' })
    // Registered when it was public (a DNS answer can change later); written directly, since registration itself refuses loopback.
    const [row] = await guarded.services.db
      .insert(webhookEndpoints)
      .values({ orgId: org.orgId, url: `${receiver.url}/ssrf`, secret: newWebhookSecret() })
      .returning({ id: webhookEndpoints.id })
    if (!row) throw new Error('no endpoint')
    const before = receiver.received.length
    const result = await tested(guarded, org, row.id)
    expect(result).toMatchObject({ delivered: false, status_code: null, response_body_excerpt: null })
    expect(result.error).toMatch(/127\.0\.0\.1/)
    expect(await receiver.countAfter(300)).toBe(0)
    expect(receiver.received.length).toBe(before)
  })

  test('402 below Pro, 404 for another org or an unknown id, 400 with a body', async () => {
    const pro = await setupOrg(server, { plan: 'pro' })
    const endpoint = await registered(pro, `${receiver.url}/test-rules`)
    const other = await setupOrg(server, { plan: 'pro' })
    await expectError(await sendTest(server, other, endpoint.id), 404, 'Webhook endpoint not found.')
    await expectError(await sendTest(server, pro, 'not-a-uuid'), 404, 'Webhook endpoint not found.')
    await expectError(await server.request(`/api/v1/webhooks/${endpoint.id}/test`, { method: 'POST', key: pro.apiKey, json: { event: 'x' } }), 400)

    const free = await setupOrg(server, { plan: 'free' })
    const response = await sendTest(server, free, endpoint.id)
    expect(response.status).toBe(402)
    expect(await bodyOf(response)).toEqual({
      error: 'Webhooks are available on the Pro plan and higher; this org is on the free plan.',
      code: 'payment_required',
      upgrade: true,
    })
  })
})

describe('dashboard sessions: managing webhooks and the spend cap needs an owner or admin', () => {
  test('a member may read but not add, test, change or delete endpoints, nor set the spend cap; an admin may', async () => {
    const org = await setupOrg(server, { plan: 'pro' })
    const endpoint = await registered(org, `${receiver.url}/roles`)
    const member = await createSignedInUser(server, { role: 'member', orgId: org.orgId })
    const admin = await createSignedInUser(server, { role: 'admin', orgId: org.orgId })
    const refused = "Only the workspace's owners and admins can manage webhooks."

    expect((await member.fetch('/api/v1/webhooks')).status).toBe(200)
    expect((await member.fetch(`/api/v1/webhooks/${endpoint.id}/deliveries`)).status).toBe(200)
    await expectError(await member.fetch('/api/v1/webhooks', { method: 'POST', json: { url: `${receiver.url}/member` } }), 403, refused)
    await expectError(await member.fetch(`/api/v1/webhooks/${endpoint.id}/test`, { method: 'POST' }), 403, refused)
    await expectError(await member.fetch(`/api/v1/webhooks/${endpoint.id}`, { method: 'PATCH', json: { enabled: false } }), 403, refused)
    await expectError(await member.fetch(`/api/v1/webhooks/${endpoint.id}/rotate-secret`, { method: 'POST' }), 403, refused)
    await expectError(await member.fetch(`/api/v1/webhooks/${endpoint.id}`, { method: 'DELETE' }), 403, refused)
    expect((await member.fetch('/api/v1/billing/spend-cap')).status).toBe(200)
    await expectError(
      await member.fetch('/api/v1/billing/spend-cap', { method: 'PUT', json: { spend_cap_cents: 5000 } }),
      403,
      "Only the workspace's owners and admins can manage billing.",
    )
    // Nothing changed.
    expect(await bodyOf(await server.request(`/api/v1/webhooks`, { key: org.apiKey }))).toMatchObject({ webhooks: [{ id: endpoint.id, enabled: true }] })

    const result = await admin.fetch(`/api/v1/webhooks/${endpoint.id}/test`, { method: 'POST' })
    expect(result.status).toBe(200)
    expect(await bodyOf(result)).toMatchObject({ delivered: true, status_code: 200 })
    expect((await admin.fetch('/api/v1/billing/spend-cap', { method: 'PUT', json: { spend_cap_cents: 5000 } })).status).toBe(200)
    expect((await admin.fetch(`/api/v1/webhooks/${endpoint.id}`, { method: 'DELETE' })).status).toBe(200)
  })
})
