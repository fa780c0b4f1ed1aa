import { randomUUID } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { runCliJson, type CreatedOrg } from '../../server/test/helpers/processes.ts'
import { startWebhookReceiver, type WebhookReceiver } from '../../server/test/helpers/webhook-receiver.ts'
import { Signet, SignetError, signWebhook, verifyWebhook, WebhookVerificationError } from '../src/index.ts'
import { cleanUpProcesses, signAs, startInstance, startProxy, STARTUP_MS, type Instance } from './helpers.ts'

/**
 * The SDK against the server as `npm start` runs it: every method once, pages, retries through a
 * misbehaving network, and webhook verification of real deliveries.
 */

const TEST_MS = 60_000

let instance: Instance
let signet: Signet
let receiver: WebhookReceiver

beforeAll(async () => {
  instance = await startInstance('sdk')
  signet = new Signet({ apiKey: instance.org.api_key, baseUrl: instance.server.url })
  receiver = await startWebhookReceiver()
}, STARTUP_MS)
afterAll(async () => {
  await receiver.close()
  await cleanUpProcesses()
}, STARTUP_MS)

const email = (label: string) => `${label}-${randomUUID().slice(0, 8)}@example.com`

describe('documents', () => {
  test(
    'create, get, listPage, counts, audit, resend, embed and void',
    async () => {
      const to = email('ann')
      const created = await signet.documents.create({ template_id: instance.templateId, signer: { email: to, name: 'Ann' }, title: 'NDA for Ann' })
      expect(created).toMatchObject({ status: 'sent', auth_required: false })

      const document = await signet.documents.get(created.id)
      expect(document).toMatchObject({ id: created.id, title: 'NDA for Ann', status: 'sent' })
      const signer = document.signers[0]
      expect(signer).toMatchObject({ email: to, name: 'Ann' })

      const page = await signet.documents.listPage({ search: to })
      expect(page).toMatchObject({ total: 1, has_more: false, offset: 0 })
      expect(page.documents.map((d) => d.id)).toEqual([created.id])

      const counts = await signet.documents.counts({ search: to })
      expect(counts).toMatchObject({ all: 1, by_status: { sent: 1 } })

      const audit = await signet.documents.audit(created.id)
      expect(audit.events.map((e) => e.event)).toContain('document.sent')

      const resent = await signet.documents.resend(created.id, signer!.id)
      expect(resent).toMatchObject({ signer_id: signer!.id, email: to })

      const embedded = await signet.documents.embed(created.id, signer!.id)
      // On the instance's PUBLIC_URL (npm start's default: localhost and the port).
      expect(new URL(embedded.url).port).toBe(new URL(instance.server.url).port)
      expect(new URL(embedded.url).pathname).toMatch(/^\/sign\/embed\/[\w-]{43}$/)
      expect(Date.parse(embedded.expires_at) - Date.now()).toBeGreaterThan(4 * 60_000)

      expect(await signet.documents.void(created.id)).toEqual({ success: true })
      expect((await signet.documents.get(created.id)).status).toBe('voided')
    },
    TEST_MS,
  )

  test(
    'waitForCompletion returns once the signer signed and the PDF is made; signedFile is that PDF',
    async () => {
      const to = email('bob')
      const { id } = await signet.documents.create({ template_id: instance.templateId, signer: { email: to } })
      const waiting = signet.documents.waitForCompletion(id, { intervalMs: 200 })
      await signAs(instance, to)
      const completed = await waiting
      expect(completed).toMatchObject({ id, status: 'completed', signed_pdf_status: 'ready' })
      const pdf = await signet.documents.signedFile(id)
      expect(pdf).toBeInstanceOf(Uint8Array)
      expect(new TextDecoder().decode(pdf.subarray(0, 5))).toBe('%PDF-')
    },
    TEST_MS,
  )

  test(
    'waitForCompletion throws document_not_completable for a voided document, and stops when its signal aborts',
    async () => {
      const voided = await signet.documents.create({ template_id: instance.templateId, signer: { email: email('cat') } })
      const waiting = signet.documents.waitForCompletion(voided.id, { intervalMs: 100 })
      await signet.documents.void(voided.id)
      const error = await waiting.catch((e: unknown) => e)
      expect(error).toBeInstanceOf(SignetError)
      expect(error).toMatchObject({ status: 0, code: 'document_not_completable', error: `Document ${voided.id} was voided: it will not be completed.` })

      const pending = await signet.documents.create({ template_id: instance.templateId, signer: { email: email('dee') } })
      const controller = new AbortController()
      const started = Date.now()
      setTimeout(() => controller.abort(new Error('gave up')), 300)
      await expect(signet.documents.waitForCompletion(pending.id, { signal: controller.signal, intervalMs: 10_000 })).rejects.toThrow('gave up')
      expect(Date.now() - started).toBeLessThan(5_000)
    },
    TEST_MS,
  )

  test(
    'an answer that is not 2xx is a SignetError with status, error, code and field',
    async () => {
      const invalid = await signet.documents.create({ template_id: instance.templateId, signer: { email: 'not an address' } }).catch((e: unknown) => e)
      expect(invalid).toBeInstanceOf(SignetError)
      expect(invalid).toMatchObject({ status: 400, code: 'validation_failed', field: '/signer/email', retryAfter: undefined })
      expect((invalid as SignetError).error).toMatch(/email/)

      const missing = await signet.documents.get(randomUUID()).catch((e: unknown) => e)
      expect(missing).toMatchObject({ status: 404, code: 'not_found', body: { code: 'not_found' } })
      // An id is one path segment: '../usage' must not reach GET /usage.
      const traversal = await signet.documents.get('../usage').catch((e: unknown) => e)
      expect(traversal).toBeInstanceOf(SignetError)
      expect((traversal as SignetError).status).toBeGreaterThanOrEqual(400)

      const anonymous = new Signet({ apiKey: 'sgn_live_' + '0'.repeat(64), baseUrl: instance.server.url })
      await expect(anonymous.usage.get()).rejects.toMatchObject({ status: 401, code: 'invalid_api_key' })
    },
    TEST_MS,
  )

  test(
    'request() calls any route with the key and throws SignetError on failure',
    async () => {
      const response = await signet.request('GET', '/documents/counts')
      expect(response.status).toBe(200)
      expect(await response.json()).toMatchObject({ all: expect.any(Number) as unknown })
      await expect(signet.request('GET', `/documents/${randomUUID()}`)).rejects.toMatchObject({ status: 404, code: 'not_found' })
    },
    TEST_MS,
  )
})

describe('templates, seals and usage', () => {
  test(
    'templates.list iterates the templates; get reads one',
    async () => {
      const names: string[] = []
      for await (const template of signet.templates.list()) names.push(template.name)
      expect(names).toEqual(['NDA'])
      expect(await signet.templates.get(instance.templateId)).toMatchObject({ id: instance.templateId, name: 'NDA', page_count: 1 })
    },
    TEST_MS,
  )

  test(
    'seals.create seals a PDF; seals.get and documents.certificate read it',
    async () => {
      await runCliJson(instance.dataDir, ['org', 'verify-identity', '--org', instance.org.org_id, '--legal-name', 'SDK Widgets Ltd'])
      const pdf = new Uint8Array(readFileSync(join(instance.dataDir, 'nda.pdf')))
      const seal = await signet.seals.create(pdf, { title: 'Sealed NDA', certificate_mode: 'both' })
      expect(seal).toMatchObject({ title: 'Sealed NDA', seal_status: 'sealed' })
      expect(await signet.seals.get(seal.id)).toMatchObject({ id: seal.id, seal_status: 'sealed' })
      const certificate = await signet.documents.certificate(seal.id)
      expect(new TextDecoder().decode(certificate.subarray(0, 5))).toBe('%PDF-')
    },
    TEST_MS,
  )

  test(
    'usage.get reports the plan',
    async () => {
      expect(await signet.usage.get()).toMatchObject({ org_id: instance.org.org_id, plan: 'business' })
    },
    TEST_MS,
  )
})

describe('pages and retries', () => {
  test(
    'list iterates across 250 documents, 100 to a page, each once',
    async () => {
      // An org of its own, so the count is exact on a shared database too.
      const org = await runCliJson<CreatedOrg>(instance.dataDir, ['org', 'create', '--name', 'SDK pages', '--plan', 'business'])
      const template = await runCliJson<{ id: string }>(instance.dataDir, [
        'template',
        'create',
        '--org',
        org.org_id,
        '--name',
        'Pages',
        '--pdf',
        join(instance.dataDir, 'nda.pdf'),
      ])
      const pages: string[] = []
      const client = new Signet({
        apiKey: org.api_key,
        baseUrl: instance.server.url,
        fetch: (request) => {
          pages.push(new URL(request.url).search)
          return fetch(request)
        },
      })
      const recipients = Array.from({ length: 250 }, (_, i) => ({ email: `page-${i}@example.com` }))
      const sent = await client.bulkSend({ template_id: template.id, recipients }, { idempotencyKey: randomUUID() })
      expect(sent.sent).toBe(250)
      pages.length = 0

      const seen = new Set<string>()
      for await (const document of client.documents.list()) seen.add(document.id)
      expect(seen.size).toBe(250)
      expect(new Set(sent.documents.map((d) => d.documentId))).toEqual(seen)
      expect(pages).toEqual(['?limit=100&offset=0', '?limit=100&offset=100', '?limit=100&offset=200'])
    },
    TEST_MS,
  )

  test(
    'a 429 is retried after Retry-After, then succeeds',
    async () => {
      const proxy = await startProxy(instance.server.url, (n) => (n === 1 ? 'rate-limit' : 'forward'))
      try {
        const client = new Signet({ apiKey: instance.org.api_key, baseUrl: proxy.url })
        const started = Date.now()
        expect(await client.usage.get()).toMatchObject({ plan: 'business' })
        expect(Date.now() - started).toBeGreaterThanOrEqual(1_000)
        expect(proxy.seen).toEqual([
          { request: 'GET /api/v1/usage', action: 'rate-limit' },
          { request: 'GET /api/v1/usage', action: 'forward' },
        ])
      } finally {
        await proxy.close()
      }
    },
    TEST_MS,
  )

  test(
    'a create whose answer was lost with the connection is sent again and creates one document',
    async () => {
      const proxy = await startProxy(instance.server.url, (n) => (n === 1 ? 'drop-answer' : 'forward'))
      try {
        const client = new Signet({ apiKey: instance.org.api_key, baseUrl: proxy.url })
        const to = email('eve')
        const created = await client.documents.create({ template_id: instance.templateId, signer: { email: to } })
        expect(proxy.seen.map((s) => s.action)).toEqual(['drop-answer', 'forward'])
        const ids: string[] = []
        for await (const document of signet.documents.list({ search: to })) ids.push(document.id)
        expect(ids).toEqual([created.id])
      } finally {
        await proxy.close()
      }
    },
    TEST_MS,
  )

  test(
    'a create without an Idempotency-Key is never repeated after a dropped connection',
    async () => {
      const proxy = await startProxy(instance.server.url, (n) => (n === 1 ? 'drop-answer' : 'forward'))
      try {
        const client = new Signet({ apiKey: instance.org.api_key, baseUrl: proxy.url })
        const body = JSON.stringify({ template_id: instance.templateId, signer: { email: email('fay') } })
        await expect(client.request('POST', '/documents', { body, headers: { 'content-type': 'application/json' } })).rejects.toThrow(TypeError)
        expect(proxy.seen).toHaveLength(1)
      } finally {
        await proxy.close()
      }
    },
    TEST_MS,
  )
})

describe('webhooks', () => {
  test(
    'create, list, update, test, deliveries, redeliver, rotateSecret and delete',
    async () => {
      const endpoint = await signet.webhooks.create({ url: receiver.url })
      expect(endpoint).toMatchObject({ url: receiver.url, enabled: true, secret: expect.stringMatching(/^whsec_/) as unknown })
      receiver.secret = endpoint.secret
      expect((await signet.webhooks.list()).map((w) => w.id)).toContain(endpoint.id)
      expect(await signet.webhooks.update(endpoint.id, { enabled: true })).toMatchObject({ id: endpoint.id, enabled: true })

      const tested = await signet.webhooks.test(endpoint.id)
      expect(tested).toMatchObject({ delivered: true, status_code: 200 })
      const [testDelivery] = await receiver.waitFor(1)
      const event = await verifyWebhook(testDelivery!.body, testDelivery!.headers, endpoint.secret)
      expect(event).toMatchObject({ event: 'test', webhook_endpoint_id: endpoint.id })

      // A real event: the signer signs, so document.viewed, document.signed and document.completed are delivered.
      const to = email('gus')
      const { id } = await signet.documents.create({ template_id: instance.templateId, signer: { email: to } })
      await signAs(instance, to)
      const deliveries = await receiver.waitFor(4)
      const events = await Promise.all(deliveries.slice(1).map((d) => verifyWebhook(d.body, d.headers, endpoint.secret)))
      expect(events.map((e) => e.event).sort()).toEqual(['document.completed', 'document.signed', 'document.viewed'])
      expect(events.every((e) => e.event !== 'test' && e.document_id === id)).toBe(true)

      const logged: string[] = []
      for await (const delivery of signet.webhooks.deliveries(endpoint.id)) logged.push(delivery.event)
      expect(logged.sort()).toEqual(['document.completed', 'document.signed', 'document.viewed'])
      let first: string | undefined
      for await (const delivery of signet.webhooks.deliveries(endpoint.id)) first ??= delivery.id
      expect(await signet.webhooks.redeliver(endpoint.id, first!)).toMatchObject({ id: first })

      const rotated = await signet.webhooks.rotateSecret(endpoint.id)
      expect(rotated.secret).not.toBe(endpoint.secret)
      expect(await signet.webhooks.delete(endpoint.id)).toEqual({ success: true })
      expect((await signet.webhooks.list()).map((w) => w.id)).not.toContain(endpoint.id)
    },
    TEST_MS,
  )

  test(
    'verifyWebhook rejects a changed body, a wrong secret and an old delivery replayed; signWebhook signs as the server does',
    async () => {
      const delivery = receiver.received.find((d) => d.body.includes('document.completed'))!
      const secret = receiver.secret!
      const verify = (body: string, key = secret, now?: Date) => verifyWebhook(body, delivery.headers, key, now ? { now } : {})
      const reason = (promise: Promise<unknown>) =>
        promise.then(
          () => 'accepted',
          (e: unknown) => (e instanceof WebhookVerificationError ? e.code : String(e)),
        )

      expect(await verify(delivery.body)).toMatchObject({ event: 'document.completed', status: 'completed' })
      expect(await reason(verify(delivery.body.replace('"completed"', '"declined"')))).toBe('invalid_signature')
      const otherSecret = (await signet.webhooks.create({ url: `${receiver.url}/other` })).secret
      expect(await reason(verify(delivery.body, otherSecret))).toBe('invalid_signature')
      const sentAt = Number(delivery.headers['webhook-timestamp']) * 1000
      expect(await reason(verify(delivery.body, secret, new Date(sentAt + 6 * 60_000)))).toBe('timestamp_out_of_tolerance')
      expect(await reason(verify(delivery.body, secret, new Date(sentAt + 4 * 60_000)))).toBe('accepted')
      expect(await reason(verifyWebhook(delivery.body, { ...delivery.headers, 'x-service-signature': undefined }, secret))).toBe('missing_header')

      const signed = await signWebhook(secret, { id: String(delivery.headers['webhook-id']), timestamp: sentAt / 1000, body: delivery.body })
      const sent = Object.fromEntries(Object.keys(signed).map((name) => [name, delivery.headers[name]]))
      expect(signed).toEqual(sent)
    },
    TEST_MS,
  )
})
