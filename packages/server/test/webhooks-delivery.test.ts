import { performance } from 'node:perf_hooks'
import { eq } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { executeAdminCommand } from '../src/admin/commands.ts'
import { readAuditTrail, type AuditEvent } from '../src/audit/audit-trail.ts'
import { webhookDeliveries } from '../src/db/schema.ts'
import { ATTEMPT_TIMEOUT_MS, RETRY_DELAY_MS } from '../src/webhooks/dispatcher.ts'
import { httpWebhookTransport } from '../src/webhooks/transport.ts'
import { bodyOf, setupOrg, type Json, type TestOrg } from './helpers/api.ts'
import { sendForSigning, valuesFor, type SignerClient } from './helpers/signing.ts'
import { startTestServer, type TestServer } from './helpers/test-server.ts'
import {
  startWebhookReceiver,
  verifyServiceSignature,
  verifyStandardSignature,
  type ReceivedWebhook,
  type WebhookReceiver,
} from './helpers/webhook-receiver.ts'
import type { DeliveryView } from '../src/webhooks/webhooks.schemas.ts'

/*
 * Real deliveries: a real signing run on a real server, POSTed to real HTTP receivers on
 * loopback (allowed by WEBHOOK_ALLOW_PRIVATE), which check the signatures themselves.
 */

let server: TestServer
const receivers: WebhookReceiver[] = []

beforeAll(async () => {
  server = await startTestServer({ env: { WEBHOOK_ALLOW_PRIVATE: 'true', JOB_POLL_MS: '100' } })
})
afterAll(async () => {
  await server.close()
  await Promise.all(receivers.map((r) => r.close()))
})

interface Endpoint {
  id: string
  url: string
  secret: string
}
type LoggedDelivery = DeliveryView

const ISO_MS = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/*
 * The spec's timings (a 5-s attempt timeout, one retry 1 s later) are minimums, checked as
 * such; from above they are checked only against what a wrong rule would do (no timeout, a
 * retry only after the 60-s lease): SLACK_MS leaves a busy machine seconds to spare.
 */
const SLACK_MS = 5_000
/** The receiver sees an attempt's timeout drop the connection no sooner than this after the request arrived. */
const TIMED_OUT_NO_SOONER_THAN_MS = ATTEMPT_TIMEOUT_MS - 1_000

async function newReceiver(): Promise<WebhookReceiver> {
  const receiver = await startWebhookReceiver()
  receivers.push(receiver)
  return receiver
}

/** A receiver registered as an endpoint of `org`, told its secret. */
async function connect(org: TestOrg): Promise<{ receiver: WebhookReceiver; endpoint: Endpoint }> {
  const receiver = await newReceiver()
  const response = await server.request('/api/v1/webhooks', { method: 'POST', key: org.apiKey, json: { url: receiver.url } })
  expect(response.status).toBe(201)
  const endpoint = await bodyOf<Endpoint>(response)
  receiver.secret = endpoint.secret
  return { receiver, endpoint }
}

const deliveryLog = async (org: TestOrg, endpointId: string): Promise<LoggedDelivery[]> => {
  const response = await server.request(`/api/v1/webhooks/${endpointId}/deliveries?limit=100`, { key: org.apiKey })
  expect(response.status).toBe(200)
  return (await bodyOf<{ deliveries: LoggedDelivery[] }>(response)).deliveries
}

/** The log once `count` deliveries exist and none is pending any more. */
async function settledLog(org: TestOrg, endpointId: string, count: number, timeoutMs = 20_000): Promise<LoggedDelivery[]> {
  const deadline = performance.now() + timeoutMs
  for (;;) {
    const log = await deliveryLog(org, endpointId)
    if (log.length >= count && log.every((d) => d.status !== 'pending')) return log
    if (performance.now() > deadline) throw new Error(`delivery log not settled: ${JSON.stringify(log)}`)
    await sleep(100)
  }
}

const STATUS_AT: Record<string, string> = {
  'document.viewed': 'sent',
  'document.signed': 'sent',
  'document.completed': 'completed',
  'document.declined': 'declined',
}

/** The spec's payload for an audit event, written out as text: key order is part of what is checked. */
function expectedBody(event: AuditEvent, title: string): string {
  const signer = event.type === 'document.completed' ? '' : `,"signer":{"email":${JSON.stringify(event.actorEmail)},"name":${JSON.stringify(event.actorName)}}`
  return (
    `{"event":"${event.type}","occurred_at":"${event.occurredAt.toISOString()}","document_id":"${event.documentId}",` +
    `"title":${JSON.stringify(title)},"status":"${STATUS_AT[event.type]}"${signer}}`
  )
}

async function webhookEventsOf(documentId: string): Promise<AuditEvent[]> {
  return (await readAuditTrail(server.services.db, documentId)).filter((e) => e.type in STATUS_AT)
}

const bodies = (received: ReceivedWebhook[]) => received.map((r) => r.body).sort()

/** Opens the signer's document (that it does not wait for the deliveries it queues is shown with a hanging receiver). */
async function view(signer: SignerClient | undefined): Promise<void> {
  const response = await signer?.view()
  expect(response?.status).toBe(200)
}

describe('a real signing run', () => {
  it('delivers all four events to every endpoint with the spec payload, both signatures and a delivery log', async () => {
    const org = await setupOrg(server)
    const a = await connect(org)
    const b = await connect(org)

    const signed = await sendForSigning(server, org, { roles: [0, 1], names: ['Ann Smith', 'Bob Jones'] })
    const [ann, bob] = signed.signers
    await view(ann)
    expect((await ann?.finish(valuesFor(0)))?.status).toBe(200)
    await view(bob)
    expect(await bodyOf((await bob?.finish(valuesFor(1))) as Response)).toEqual({ status: 'signed', document_status: 'completed' })

    const declined = await sendForSigning(server, org, { roles: [0] })
    await view(declined.signers[0])
    expect((await declined.signers[0]?.decline('Wrong amount'))?.status).toBe(200)

    const events = [...(await webhookEventsOf(signed.documentId)), ...(await webhookEventsOf(declined.documentId))]
    expect(events.map((e) => e.type)).toEqual([
      'document.viewed',
      'document.signed',
      'document.viewed',
      'document.signed',
      'document.completed',
      'document.viewed',
      'document.declined',
    ])
    const titleOf = async (id: string) => (await bodyOf(await server.request(`/api/v1/documents/${id}`, { key: org.apiKey }))).title as string
    const titles = new Map([
      [signed.documentId, await titleOf(signed.documentId)],
      [declined.documentId, await titleOf(declined.documentId)],
    ])
    const expected = events.map((e) => expectedBody(e, titles.get(e.documentId) ?? '')).sort()

    for (const { receiver, endpoint } of [a, b]) {
      const received = await receiver.waitFor(events.length)
      expect(await receiver.countAfter(300)).toBe(0)
      // Byte for byte: keys in the spec's order, the status at the moment, no signer on completed.
      expect(bodies(received)).toEqual(expected)

      for (const request of received) {
        const payload = JSON.parse(request.body) as Json
        expect(Object.keys(payload)).toEqual(
          payload.event === 'document.completed'
            ? ['event', 'occurred_at', 'document_id', 'title', 'status']
            : ['event', 'occurred_at', 'document_id', 'title', 'status', 'signer'],
        )
        expect(payload.occurred_at).toMatch(ISO_MS)
        expect(request.method).toBe('POST')
        expect(request.path).toBe('/hooks')
        expect(request.headers['content-type']).toBe('application/json')
        // The receiver checked X-Service-Signature in constant time against this endpoint's secret.
        expect(request.signatureValid).toBe(true)
        expect(request.headers['x-service-signature']).toMatch(/^sha256=[0-9a-f]{64}$/)
        expect(verifyStandardSignature(endpoint.secret, request.body, request.headers)).toBe(true)
        expect(request.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/)
      }
      const signers = received.map((r) => (JSON.parse(r.body) as Json).signer as Json | undefined).filter(Boolean)
      expect(signers).toContainEqual({ email: ann?.email, name: 'Ann Smith' })
      expect(signers).toContainEqual({ email: bob?.email, name: 'Bob Jones' })

      const log = await settledLog(org, endpoint.id, events.length)
      expect(log).toHaveLength(events.length)
      // webhook-id is the delivery id the log shows.
      expect(received.map((r) => r.headers['webhook-id']).sort()).toEqual(log.map((d) => d.id).sort())
      for (const delivery of log) {
        expect(delivery).toMatchObject({
          status: 'delivered',
          attempts: 1,
          response_code: 200,
          error: null,
          created_at: expect.stringMatching(ISO_MS) as unknown,
        })
        expect(delivery.delivered_at).toMatch(ISO_MS)
        expect(delivery.latency_ms).toEqual(expect.any(Number))
        expect(delivery.attempt_log).toEqual([{ at: expect.stringMatching(ISO_MS) as unknown, status_code: 200, latency_ms: delivery.latency_ms, error: null }])
        expect([signed.documentId, declined.documentId]).toContain(delivery.document_id)
      }
      // Newest first; events of one transaction in reverse event order.
      expect(log.map((d) => d.event).slice(0, 2)).toEqual(['document.declined', 'document.viewed'])
    }

    // Each endpoint's secret is its own: A's signatures do not verify with B's secret.
    const [fromA] = a.receiver.received
    expect(fromA && verifyServiceSignature(b.endpoint.secret, fromA.body, fromA.headers['x-service-signature'])).toBe(false)
    expect(fromA && verifyStandardSignature(b.endpoint.secret, fromA.body, fromA.headers)).toBe(false)
  })
})

describe('delivery rules', () => {
  it('retries a failed first attempt exactly once, about 1 s later, with the same body and id', async () => {
    const org = await setupOrg(server)
    const { receiver, endpoint } = await connect(org)
    receiver.failNext(1)
    const run = await sendForSigning(server, org)
    await view(run.signers[0])

    const [first, retry] = await receiver.waitFor(2)
    expect(first?.answered).toBe(500)
    expect(retry?.answered).toBe(200)
    const gap = (retry?.arrivedAt ?? 0) - (first?.arrivedAt ?? 0)
    expect(gap).toBeGreaterThanOrEqual(RETRY_DELAY_MS - 100)
    expect(gap).toBeLessThan(RETRY_DELAY_MS + SLACK_MS)
    expect(retry?.body).toBe(first?.body)
    expect(retry?.headers['webhook-id']).toBe(first?.headers['webhook-id'])
    expect(retry?.signatureValid).toBe(true)
    expect(retry && verifyStandardSignature(endpoint.secret, retry.body, retry.headers)).toBe(true)

    const [delivery] = await settledLog(org, endpoint.id, 1)
    expect(delivery).toMatchObject({ status: 'delivered', attempts: 2, response_code: 200, error: null })
    expect(delivery?.attempt_log.map((a) => [a.status_code, a.error])).toEqual([
      [500, 'HTTP 500'],
      [200, null],
    ])
    expect(await receiver.countAfter(1500)).toBe(0)
  })

  it('gives up an unanswered attempt after 5 s, retries once after 1 s, then marks the delivery failed', async () => {
    const org = await setupOrg(server)
    const { receiver, endpoint } = await connect(org)
    receiver.hang()
    const run = await sendForSigning(server, org)
    await view(run.signers[0])
    // The signer's request did not wait for the delivery: no attempt had been given up when it was answered.
    expect(receiver.received.filter((r) => r.abandonedAt !== undefined)).toEqual([])

    const [first, retry] = await receiver.waitFor(2, 30_000)
    const abandonedAfter = (first?.abandonedAt ?? Infinity) - (first?.arrivedAt ?? 0)
    expect(abandonedAfter).toBeGreaterThanOrEqual(TIMED_OUT_NO_SOONER_THAN_MS)
    expect(abandonedAfter).toBeLessThan(ATTEMPT_TIMEOUT_MS + SLACK_MS)
    const retryAfterAbandon = (retry?.arrivedAt ?? 0) - (first?.abandonedAt ?? 0)
    expect(retryAfterAbandon).toBeGreaterThanOrEqual(RETRY_DELAY_MS - 100)
    expect(retryAfterAbandon).toBeLessThan(RETRY_DELAY_MS + SLACK_MS)

    const [delivery] = await settledLog(org, endpoint.id, 1, 20_000)
    expect(delivery).toMatchObject({
      status: 'failed',
      attempts: 2,
      response_code: null,
      delivered_at: null,
      error: expect.stringMatching(/timed out/) as unknown,
    })
    for (const attempt of delivery?.attempt_log ?? []) {
      expect(attempt.status_code).toBeNull()
      expect(attempt.latency_ms).toBeGreaterThanOrEqual(ATTEMPT_TIMEOUT_MS - 100)
      expect(attempt.latency_ms).toBeLessThan(ATTEMPT_TIMEOUT_MS + SLACK_MS)
    }
    expect(delivery?.attempt_log).toHaveLength(2)
    expect(await receiver.countAfter(1500)).toBe(0)
  }, 90_000)

  it('stops at shutdown without waiting for a hanging receiver, and gives the delivery back for the next process', async () => {
    const own = await startTestServer({ env: { WEBHOOK_ALLOW_PRIVATE: 'true', JOB_POLL_MS: '100' } })
    try {
      const org = await setupOrg(own)
      const receiver = await newReceiver()
      const response = await own.request('/api/v1/webhooks', { method: 'POST', key: org.apiKey, json: { url: receiver.url } })
      const { id: endpointId } = await bodyOf<Endpoint>(response)
      receiver.hang()
      const run = await sendForSigning(own, org)
      expect((await run.signers[0]?.view())?.status).toBe(200)
      const [request] = await receiver.waitFor(1)

      await own.services.webhooks.stop()
      // The receiver sees the connection dropped (once its socket has been read)...
      await vi.waitFor(() => expect(request?.abandonedAt).toEqual(expect.any(Number)), { timeout: 10_000, interval: 20 })
      // ...by stop(), not by the attempt's own timeout (which, as shown above, drops it later than this).
      expect((request?.abandonedAt ?? Infinity) - (request?.arrivedAt ?? 0)).toBeLessThan(TIMED_OUT_NO_SOONER_THAN_MS)
      // Not logged as an attempt, and due again at once rather than after its lease.
      const [row] = await own.services.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.endpointId, endpointId))
      expect(row).toMatchObject({ status: 'pending', attempts: 0, attemptLog: [] })
      expect(row?.nextAttemptAt.getTime()).toBeLessThanOrEqual(Date.now())
    } finally {
      await own.close()
    }
  })

  it('does not follow a redirect: a 302 is a failed attempt', async () => {
    const org = await setupOrg(server)
    const { receiver, endpoint } = await connect(org)
    const elsewhere = await newReceiver()
    receiver.redirectTo(elsewhere.url)
    const run = await sendForSigning(server, org)
    await view(run.signers[0])

    const received = await receiver.waitFor(2)
    expect(received.map((r) => r.answered)).toEqual([302, 302])
    const [delivery] = await settledLog(org, endpoint.id, 1)
    expect(delivery).toMatchObject({ status: 'failed', attempts: 2, response_code: 302, error: 'HTTP 302: redirects are not followed' })
    expect(elsewhere.received).toHaveLength(0)
  })

  it('signs with the new secret after a rotation', async () => {
    const org = await setupOrg(server)
    const { receiver, endpoint } = await connect(org)
    const rotated = await bodyOf<{ secret: string }>(await server.request(`/api/v1/webhooks/${endpoint.id}/rotate-secret`, { method: 'POST', key: org.apiKey }))
    receiver.secret = rotated.secret
    const run = await sendForSigning(server, org)
    await view(run.signers[0])
    const [request] = await receiver.waitFor(1)
    expect(request?.signatureValid).toBe(true)
    expect(request && verifyStandardSignature(rotated.secret, request.body, request.headers)).toBe(true)
    expect(request && verifyServiceSignature(endpoint.secret, request.body, request.headers['x-service-signature'])).toBe(false)
  })
})

describe('endpoint lifecycle and plans', () => {
  it('stops deliveries to a deleted endpoint, including ones already queued', async () => {
    const org = await setupOrg(server)
    const kept = await connect(org)
    const removed = await connect(org)
    expect((await server.request(`/api/v1/webhooks/${removed.endpoint.id}`, { method: 'DELETE', key: org.apiKey })).status).toBe(200)

    const run = await sendForSigning(server, org)
    await view(run.signers[0])
    await kept.receiver.waitFor(1)
    expect(await removed.receiver.countAfter(500)).toBe(0)
    expect(await server.services.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.endpointId, removed.endpoint.id))).toEqual([])

    // A delivery still queued (due later) when its endpoint is deleted is settled, never sent.
    const queuedTo = await connect(org)
    const [queued] = await server.services.db
      .insert(webhookDeliveries)
      .values({ endpointId: queuedTo.endpoint.id, orgId: org.orgId, event: 'document.viewed', payload: '{}', nextAttemptAt: new Date(Date.now() + 2000) })
      .returning()
    expect((await server.request(`/api/v1/webhooks/${queuedTo.endpoint.id}`, { method: 'DELETE', key: org.apiKey })).status).toBe(200)
    expect(await queuedTo.receiver.countAfter(2500)).toBe(0)
    const [row] = await server.services.db
      .select()
      .from(webhookDeliveries)
      .where(eq(webhookDeliveries.id, queued?.id ?? ''))
    expect(row).toMatchObject({ status: 'failed', attempts: 0, lastError: 'endpoint deleted' })
  })

  it('sends nothing to a disabled endpoint, and again once it is enabled', async () => {
    const org = await setupOrg(server)
    const { receiver, endpoint } = await connect(org)
    const patch = (enabled: boolean) => server.request(`/api/v1/webhooks/${endpoint.id}`, { method: 'PATCH', key: org.apiKey, json: { enabled } })
    expect((await patch(false)).status).toBe(200)
    const run = await sendForSigning(server, org, { roles: [0, 1] })
    await view(run.signers[0])
    expect(await receiver.countAfter(500)).toBe(0)
    expect((await patch(true)).status).toBe(200)
    await view(run.signers[1])
    const [request] = await receiver.waitFor(1)
    expect(JSON.parse(request?.body ?? '{}')).toMatchObject({ event: 'document.viewed', signer: { email: run.signers[1]?.email } })
  })

  it('redelivers on request: the same body and webhook-id, two more attempts at most, logged', async () => {
    const org = await setupOrg(server)
    const { receiver, endpoint } = await connect(org)
    const run = await sendForSigning(server, org)
    await view(run.signers[0])
    const [original] = await receiver.waitFor(1)
    const [delivered] = await settledLog(org, endpoint.id, 1)

    const redeliver = (id = delivered?.id) => server.request(`/api/v1/webhooks/${endpoint.id}/deliveries/${id}/redeliver`, { method: 'POST', key: org.apiKey })
    receiver.failNext(1)
    const response = await redeliver()
    expect({ status: response.status, body: await bodyOf(response) }).toEqual({ status: 202, body: { id: delivered?.id, status: 'pending' } })
    const [, again, retried] = await receiver.waitFor(3)
    for (const request of [again, retried]) {
      expect(request?.body).toBe(original?.body)
      expect(request?.headers['webhook-id']).toBe(original?.headers['webhook-id'])
      expect(request?.signatureValid).toBe(true)
    }
    const [log] = await settledLog(org, endpoint.id, 1)
    expect(log).toMatchObject({ id: delivered?.id, status: 'delivered', attempts: 3, response_code: 200 })
    expect(log?.attempt_log.map((a) => a.status_code)).toEqual([200, 500, 200])

    // Another org cannot redeliver it; a queued delivery cannot be queued twice.
    const other = await setupOrg(server)
    expect((await server.request(`/api/v1/webhooks/${endpoint.id}/deliveries/${delivered?.id}/redeliver`, { method: 'POST', key: other.apiKey })).status).toBe(
      404,
    )
    const [queued] = await server.services.db
      .insert(webhookDeliveries)
      .values({ endpointId: endpoint.id, orgId: org.orgId, event: 'document.viewed', payload: '{}', nextAttemptAt: new Date(Date.now() + 60_000) })
      .returning()
    const conflict = await redeliver(queued?.id)
    expect({ status: conflict.status, body: await bodyOf(conflict) }).toEqual({
      status: 409,
      body: { error: 'This delivery is already queued or being sent.', code: 'conflict' },
    })
    await server.request(`/api/v1/webhooks/${endpoint.id}`, { method: 'DELETE', key: org.apiKey })
  })

  it('queues nothing for an org below Pro (a downgrade applies to the next event)', async () => {
    const org = await setupOrg(server)
    const { receiver } = await connect(org)
    const run = await sendForSigning(server, org, { roles: [0] })
    await executeAdminCommand(server.services, { name: 'org.set-plan', orgId: org.orgId, plan: 'free' })
    await view(run.signers[0])
    expect((await run.signers[0]?.finish(valuesFor(0)))?.status).toBe(200)
    expect(await receiver.countAfter(500)).toBe(0)
    expect(await server.services.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.orgId, org.orgId))).toEqual([])
  })
})

describe('the HTTP transport', () => {
  const post = (transport: ReturnType<typeof httpWebhookTransport>, url: string) =>
    transport.post({ url, headers: { 'content-type': 'application/json' }, body: '{"ping":true}', timeoutMs: 5000, signal: new AbortController().signal })

  it('connects to the address it checked, never asking DNS again, and keeps the URL host in Host', async () => {
    const receiver = await newReceiver()
    const port = new URL(receiver.url).port
    const lookups: string[] = []
    // hooks.example.test has no DNS record: the request can only reach the receiver through the checked answer.
    const transport = httpWebhookTransport({
      allowPrivate: true,
      resolve: async (hostname) => {
        lookups.push(hostname)
        return [{ address: '127.0.0.1', family: 4 }]
      },
    })
    expect(await post(transport, `http://hooks.example.test:${port}/in?x=1`)).toEqual({ statusCode: 200, bodyExcerpt: '{"received":true}' })
    expect(lookups).toEqual(['hooks.example.test'])
    const [request] = await receiver.waitFor(1)
    expect(request).toMatchObject({ path: '/in?x=1', body: '{"ping":true}' })
    expect(request?.headers.host).toBe(`hooks.example.test:${port}`)

    const guardedTransport = httpWebhookTransport({ allowPrivate: false, resolve: async () => [{ address: '127.0.0.1', family: 4 }] })
    await expect(post(guardedTransport, `http://hooks.example.test:${port}/in`)).rejects.toThrow(
      /hooks\.example\.test resolves to 127\.0\.0\.1, a loopback address/,
    )
    expect(await receiver.countAfter(100)).toBe(0)
  })

  it('delivers to a registered host name (localhost, whichever of its addresses answers)', async () => {
    const org = await setupOrg(server)
    const receiver = await newReceiver()
    const url = receiver.url.replace('127.0.0.1', 'localhost')
    const response = await server.request('/api/v1/webhooks', { method: 'POST', key: org.apiKey, json: { url } })
    receiver.secret = (await bodyOf<Endpoint>(response)).secret
    const run = await sendForSigning(server, org)
    await view(run.signers[0])
    const [request] = await receiver.waitFor(1)
    expect(request?.signatureValid).toBe(true)
    expect(request?.headers.host).toBe(new URL(url).host)
  })
})
