import { randomUUID } from 'node:crypto'
import { and, eq } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { idempotentRequests } from '../src/db/schema.ts'
import { claimKey, deleteExpiredIdempotentRequests, IDEMPOTENCY_WINDOW_MS, INTERRUPTED_AFTER_MS } from '../src/idempotency/idempotent-requests.ts'
import { bodyOf, setupOrg, uniqueEmail, type TestOrg } from './helpers/api.ts'
import {
  cleanUpProcesses,
  makeTempDir,
  runCliJson,
  startServer,
  writePdf,
  type CreatedOrg,
  type CreatedTemplate,
  type ServerProcess,
} from './helpers/processes.ts'
import { startTestServer, type TestServer } from './helpers/test-server.ts'

/**
 * The Idempotency-Key extension on the create routes, against the server as `npm start` runs it:
 * a repeat is answered from the first answer, never acted on twice.
 */

const TIMEOUT_MS = 240_000

describe('Idempotency-Key on POST /api/v1/documents and /api/v1/webhooks', () => {
  let dataDir: string
  let server: ServerProcess
  let org: CreatedOrg
  let other: CreatedOrg
  let templateId: string

  const create = (key: string | undefined, email: string, as = org) =>
    server.request('/api/v1/documents', {
      method: 'POST',
      key: as.api_key,
      headers: key === undefined ? {} : { 'idempotency-key': key },
      json: { template_id: templateId, signer: { email } },
    })

  /** How many documents the org has for this signer (the list's search matches signer e-mails). */
  const documentsFor = async (email: string, as = org) => {
    const response = await server.request(`/api/v1/documents?search=${encodeURIComponent(email)}&limit=100`, { key: as.api_key })
    expect(response.status).toBe(200)
    return ((await response.json()) as { total: number }).total
  }

  beforeAll(async () => {
    dataDir = makeTempDir('idempotency')
    // Loopback webhook URLs, so no name is resolved.
    server = await startServer({ dataDir, env: { WEBHOOK_ALLOW_PRIVATE: 'true' } })
    org = await runCliJson<CreatedOrg>(dataDir, ['org', 'create', '--name', 'Idempotent Co', '--plan', 'business'])
    other = await runCliJson<CreatedOrg>(dataDir, ['org', 'create', '--name', 'Other Co', '--plan', 'business'])
    const pdf = await writePdf(dataDir, 'nda.pdf', 1)
    templateId = (await runCliJson<CreatedTemplate>(dataDir, ['template', 'create', '--org', org.org_id, '--name', 'NDA', '--pdf', pdf])).id
  }, TIMEOUT_MS)
  afterAll(cleanUpProcesses, TIMEOUT_MS)

  test('the same key and body create one document; the repeat gets the identical answer, marked as replayed', async () => {
    const key = randomUUID()
    const email = `ann-${key}@example.com`
    const first = await create(key, email)
    expect(first.status).toBe(201)
    expect(first.headers.get('idempotent-replayed')).toBeNull()
    const firstBody = await first.text()

    const repeat = await create(key, email)
    expect(repeat.status).toBe(201)
    expect(repeat.headers.get('idempotent-replayed')).toBe('true')
    expect(repeat.headers.get('content-type')).toBe('application/json; charset=utf-8')
    expect(await repeat.text()).toBe(firstBody)
    expect(await documentsFor(email)).toBe(1)
  })

  test('the same key with another body is 409 idempotency_key_reused, and creates nothing', async () => {
    const key = randomUUID()
    expect((await create(key, `bob-${key}@example.com`)).status).toBe(201)
    const reused = await create(key, `carol-${key}@example.com`)
    expect(reused.status).toBe(409)
    expect(await reused.json()).toEqual({
      error: 'This Idempotency-Key was already used with a different request. Use a new key for a new request.',
      code: 'idempotency_key_reused',
    })
    expect(await documentsFor(`carol-${key}@example.com`)).toBe(0)
  })

  test('two requests with one key at the same time: one 201, the other a replay or 409 in progress with Retry-After', async () => {
    const key = randomUUID()
    const email = `dan-${key}@example.com`
    const answers = await Promise.all([create(key, email), create(key, email)])
    const bodies = await Promise.all(answers.map((a) => a.json() as Promise<Record<string, unknown>>))
    const fresh = answers.findIndex((a) => a.status === 201 && a.headers.get('idempotent-replayed') === null)
    expect(fresh).toBeGreaterThanOrEqual(0)
    const second = answers[1 - fresh]!
    if (second.status === 201) {
      expect(second.headers.get('idempotent-replayed')).toBe('true')
      expect(bodies[1 - fresh]).toEqual(bodies[fresh])
    } else {
      expect(second.status).toBe(409)
      expect(second.headers.get('retry-after')).toBe('1')
      expect(bodies[1 - fresh]).toEqual({
        error: 'A request with this Idempotency-Key is still in progress. Retry after it has finished.',
        code: 'idempotency_key_in_progress',
      })
    }
    expect(await documentsFor(email)).toBe(1)
  })

  test("another org's identical key does not collide", async () => {
    const key = randomUUID()
    const otherTemplate = await runCliJson<CreatedTemplate>(dataDir, [
      'template',
      'create',
      '--org',
      other.org_id,
      '--name',
      'NDA',
      '--pdf',
      await writePdf(dataDir, 'other.pdf', 1),
    ])
    const email = `eve-${key}@example.com`
    expect((await create(key, email)).status).toBe(201)
    const theirs = await server.request('/api/v1/documents', {
      method: 'POST',
      key: other.api_key,
      headers: { 'idempotency-key': key },
      json: { template_id: otherTemplate.id, signer: { email } },
    })
    expect(theirs.status).toBe(201)
    expect(theirs.headers.get('idempotent-replayed')).toBeNull()
    expect(await documentsFor(email, other)).toBe(1)
    expect(await documentsFor(email)).toBe(1)
  })

  test('without the header, two identical requests create two documents', async () => {
    const email = `fay-${randomUUID()}@example.com`
    expect((await create(undefined, email)).status).toBe(201)
    expect((await create(undefined, email)).status).toBe(201)
    expect(await documentsFor(email)).toBe(2)
  })

  test('a malformed key is a 400 that says in words what a key is, and creates nothing', async () => {
    const email = `gus-${randomUUID()}@example.com`
    // Empty, a space, one character too long, and a character beyond ASCII (sent as the byte 0xE9).
    for (const key of ['', 'with space', 'x'.repeat(256), 'é']) {
      const response = await server.request('/api/v1/documents', {
        method: 'POST',
        key: org.api_key,
        headers: { 'idempotency-key': key },
        json: { template_id: templateId, signer: { email } },
      })
      expect(response.status, JSON.stringify(key)).toBe(400)
      expect(await response.json(), JSON.stringify(key)).toEqual({
        error: 'Idempotency-Key must be 1 to 255 printable ASCII characters (no spaces), such as a UUID.',
        code: 'validation_failed',
        field: '/idempotency-key',
      })
    }
    // The longest key is fine.
    expect((await create('k'.repeat(255), email)).status).toBe(201)
    expect(await documentsFor(email)).toBe(1)
  })

  test('a malformed key on POST /api/v1/seals and /api/v1/webhooks gets the same words, before the body is validated', async () => {
    const requests = [
      server.request('/api/v1/seals', {
        method: 'POST',
        key: org.api_key,
        headers: { 'idempotency-key': 'a b', 'content-type': 'application/pdf' },
        body: 'not a PDF',
      }),
      server.request('/api/v1/webhooks', { method: 'POST', key: org.api_key, headers: { 'idempotency-key': 'a b' }, json: {} }),
    ]
    for (const response of await Promise.all(requests)) {
      expect(response.status, response.url).toBe(400)
      expect(await response.json(), response.url).toEqual({
        error: 'Idempotency-Key must be 1 to 255 printable ASCII characters (no spaces), such as a UUID.',
        code: 'validation_failed',
        field: '/idempotency-key',
      })
    }
  })

  test('a failed request keeps no answer: its repeat runs again', async () => {
    const key = randomUUID()
    const body = (template: string) => ({ template_id: template, signer: { email: `hal-${key}@example.com` } })
    const post = (json: unknown) => server.request('/api/v1/documents', { method: 'POST', key: org.api_key, headers: { 'idempotency-key': key }, json })
    const missing = randomUUID()
    const first = await post(body(missing))
    expect(first.status).toBe(400)
    const again = await post(body(missing))
    expect(again.status).toBe(400)
    expect(again.headers.get('idempotent-replayed')).toBeNull()
  })

  test('POST /api/v1/webhooks: a repeat returns the same endpoint and secret, and registers nothing more', async () => {
    const key = randomUUID()
    const register = () =>
      server.request('/api/v1/webhooks', { method: 'POST', key: org.api_key, headers: { 'idempotency-key': key }, json: { url: `http://127.0.0.1:9/${key}` } })
    const first = await register()
    expect(first.status).toBe(201)
    const firstBody = await first.text()
    const repeat = await register()
    expect(repeat.status).toBe(201)
    expect(repeat.headers.get('idempotent-replayed')).toBe('true')
    expect(await repeat.text()).toBe(firstBody)
    const list = (await (await server.request('/api/v1/webhooks', { key: org.api_key })).json()) as { webhooks: { url: string }[] }
    expect(list.webhooks.filter((w) => w.url === `http://127.0.0.1:9/${key}`)).toHaveLength(1)
  })
})

/*
 * Keys past their 24 hours, on a server in this process (its database at hand): the background
 * sweep deletes them, and a keyed request only claims its own key.
 */
describe('expired Idempotency-Keys', () => {
  const ROUTE = 'POST /api/v1/documents'
  let server: TestServer
  let org: TestOrg

  /** A key row as a request long ago left it (a stored 201, or still running). */
  const insertKey = (key: string, ageMs: number, answered = true) =>
    server.services.db.insert(idempotentRequests).values({
      orgId: org.orgId,
      route: ROUTE,
      key,
      requestHash: 'an earlier request',
      status: answered ? 201 : null,
      responseBody: null,
      createdAt: new Date(server.services.clock.now().getTime() - ageMs),
    })
  const keyRow = async (key: string) =>
    (
      await server.services.db
        .select()
        .from(idempotentRequests)
        .where(and(eq(idempotentRequests.orgId, org.orgId), eq(idempotentRequests.route, ROUTE), eq(idempotentRequests.key, key)))
    )[0]
  const send = (key: string, email: string) =>
    server.request('/api/v1/documents', {
      method: 'POST',
      key: org.apiKey,
      headers: { 'idempotency-key': key },
      json: { template_id: org.templateId, signer: { email } },
    })

  describe('with the sweep not due', () => {
    beforeAll(async () => {
      // The background sweep runs once at start, then not again during these tests.
      server = await startTestServer({ env: { JOB_POLL_MS: '3600000' } })
      org = await setupOrg(server)
    }, TIMEOUT_MS)
    afterAll(() => server.close(), TIMEOUT_MS)

    test('a keyed request leaves other expired keys to the sweep, and takes over its own expired key as new', async () => {
      const [own, other, recent] = [randomUUID(), randomUUID(), randomUUID()]
      await insertKey(own, IDEMPOTENCY_WINDOW_MS + 60_000)
      await insertKey(other, IDEMPOTENCY_WINDOW_MS + 60_000, false)
      await insertKey(recent, IDEMPOTENCY_WINDOW_MS - 60_000)

      // Its own key is past its window: the request runs (no replay, no 409 for the other body).
      const email = uniqueEmail()
      const fresh = await send(own, email)
      expect(fresh.status).toBe(201)
      expect(fresh.headers.get('idempotent-replayed')).toBeNull()
      const created = await bodyOf<{ id: string }>(fresh)
      // And its answer is kept for repeats, under the key it took over.
      const repeat = await send(own, email)
      expect(repeat.headers.get('idempotent-replayed')).toBe('true')
      expect((await bodyOf<{ id: string }>(repeat)).id).toBe(created.id)

      // The request deleted nothing: the other expired key is still there until the sweep.
      expect(await keyRow(other)).toMatchObject({ key: other, status: null })
      await deleteExpiredIdempotentRequests(server.services.db, server.services.clock.now())
      expect(await keyRow(other)).toBeUndefined()
      expect(await keyRow(recent)).toMatchObject({ key: recent })
      expect(await keyRow(own)).toMatchObject({ key: own, status: 201 })

      // A key still within its window is not taken over: the other request is told so.
      const reused = await send(recent, email)
      expect(reused.status).toBe(409)
      expect((await bodyOf(reused)).code).toBe('idempotency_key_reused')
    })
  })

  describe('an answer that never came', () => {
    beforeAll(async () => {
      server = await startTestServer({ env: { JOB_POLL_MS: '3600000' } })
      org = await setupOrg(server)
    }, TIMEOUT_MS)
    afterAll(() => server.close(), TIMEOUT_MS)

    test('a key whose request never answered (its server died) is in progress for two minutes, then reported as interrupted, never run again', async () => {
      const request = { orgId: org.orgId, route: ROUTE, key: randomUUID(), requestHash: 'the interrupted request' }
      const store = { db: server.services.db, secrets: server.services.secrets }
      const began = server.services.clock.now()
      const later = (ms: number) => new Date(began.getTime() + ms)
      expect(await claimKey(store, request, began)).toBeNull()
      await expect(claimKey(store, request, later(30_000))).rejects.toMatchObject({ code: 'idempotency_key_in_progress' })
      const interrupted = claimKey(store, request, later(INTERRUPTED_AFTER_MS + 1_000))
      await expect(interrupted).rejects.toMatchObject({ code: 'conflict', status: 409 })
      await expect(interrupted).rejects.toThrow(/interrupted before it answered .* whether it took effect is unknown/)
      // Still held: the repeat is told, not run.
      expect(await keyRow(request.key)).toMatchObject({ status: null })
    })
  })

  describe('with the sweep every 100 ms', () => {
    beforeAll(async () => {
      server = await startTestServer({ env: { JOB_POLL_MS: '100' } })
      org = await setupOrg(server)
    }, TIMEOUT_MS)
    afterAll(() => server.close(), TIMEOUT_MS)

    test('the background sweep deletes keys past their 24 hours and keeps the others', async () => {
      const [expired, live] = [randomUUID(), randomUUID()]
      await insertKey(expired, IDEMPOTENCY_WINDOW_MS + 1_000)
      await insertKey(live, IDEMPOTENCY_WINDOW_MS - 60_000)
      const deadline = Date.now() + 10_000
      while ((await keyRow(expired)) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50))
      expect(await keyRow(expired)).toBeUndefined()
      expect(await keyRow(live)).toMatchObject({ key: live })
    })
  })
})
