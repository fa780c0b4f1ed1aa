import { randomUUID } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
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

  test('a malformed key is a 400 and creates nothing', async () => {
    const email = `gus-${randomUUID()}@example.com`
    for (const key of ['', 'with space', 'x'.repeat(256), 'é']) {
      const response = await server.request('/api/v1/documents', {
        method: 'POST',
        key: org.api_key,
        headers: { 'idempotency-key': key },
        json: { template_id: templateId, signer: { email } },
      })
      expect(response.status, JSON.stringify(key)).toBe(400)
      expect(await response.json()).toMatchObject({ code: 'validation_failed', field: '/idempotency-key' })
    }
    expect(await documentsFor(email)).toBe(0)
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
