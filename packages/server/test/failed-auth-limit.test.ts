import { randomBytes } from 'node:crypto'
import { request as httpRequest } from 'node:http'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { FAILED_LOOKUP_WINDOW_MS } from '../src/api-keys/failed-key-lookups.ts'
import { setupOrg, type Json, type TestOrg } from './helpers/api.ts'
import { movableClock } from './helpers/clock.ts'
import { startTestServer, type TestServer } from './helpers/test-server.ts'

/*
 * Unknown API keys cost a database lookup each; after FAILED_AUTH_PER_MINUTE of them from one
 * client address, that address gets 429 until its minute is over. Clients are told apart by
 * their real source address: Linux routes all of 127.0.0.0/8 to the loopback interface.
 */

interface Answer {
  status: number
  retryAfter: string | undefined
  body: Json
}

/** GET /api/v1/templates with `key`, sent from the loopback address `from`. */
function templatesFrom(server: TestServer, from: string, key: string, headers: Record<string, string> = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(
      `${server.url}/api/v1/templates`,
      { localAddress: from, headers: { authorization: `Bearer ${key}`, ...headers } },
      (response) => {
        let text = ''
        response.setEncoding('utf8').on('data', (chunk: string) => (text += chunk))
        response.on('end', () => resolve({ status: response.statusCode ?? 0, retryAfter: response.headers['retry-after'], body: JSON.parse(text) as Json }))
      },
    )
    request.on('error', reject).end()
  })
}

const unknownKey = () => `sgn_live_${randomBytes(32).toString('hex')}`
const INVALID_KEY: Answer = { status: 401, retryAfter: undefined, body: { error: 'Invalid API key.', code: 'invalid_api_key' } }

async function failTimes(times: number, send: () => Promise<Answer>): Promise<void> {
  for (let i = 0; i < times; i++) expect(await send()).toEqual(INVALID_KEY)
}

function expectRefused(answer: Answer): void {
  expect(answer.status).toBe(429)
  const wait = Number(answer.retryAfter)
  expect(wait).toBeGreaterThanOrEqual(1)
  expect(wait).toBeLessThanOrEqual(FAILED_LOOKUP_WINDOW_MS / 1000)
  expect(answer.body).toEqual({
    error: `Too many requests with an invalid API key from your address. Try again in ${wait} second${wait === 1 ? '' : 's'}.`,
    code: 'rate_limited',
  })
}

describe('failed API-key lookups per client address (FAILED_AUTH_PER_MINUTE=3)', () => {
  let server: TestServer
  const time = movableClock()
  beforeAll(async () => {
    server = await startTestServer({ clock: time.clock, env: { FAILED_AUTH_PER_MINUTE: '3' } })
  })
  afterAll(() => server.close())

  test('an address that failed 3 times gets 429 without a lookup, other addresses are unaffected, and a minute later it may look up again', async () => {
    const org = await setupOrg(server)
    await failTimes(3, () => templatesFrom(server, '127.0.0.2', unknownKey()))
    expectRefused(await templatesFrom(server, '127.0.0.2', unknownKey()))
    // A valid key this process has never seen would be found by a lookup: its 429 shows none was made.
    expectRefused(await templatesFrom(server, '127.0.0.2', org.apiKey))
    // Without TRUST_PROXY a forwarded-for header is not believed, so it cannot dodge the limit.
    expectRefused(await templatesFrom(server, '127.0.0.2', unknownKey(), { 'x-forwarded-for': '198.51.100.7' }))

    expect((await templatesFrom(server, '127.0.0.3', org.apiKey)).status).toBe(200)
    expect(await templatesFrom(server, '127.0.0.3', unknownKey())).toEqual(INVALID_KEY)

    time.advance(FAILED_LOOKUP_WINDOW_MS)
    expect(await templatesFrom(server, '127.0.0.2', unknownKey())).toEqual(INVALID_KEY)
    expect((await templatesFrom(server, '127.0.0.2', org.apiKey)).status).toBe(200)
  })

  test('a key recently authenticated still works from a refused address (valid clients sharing a NAT with a broken one)', async () => {
    const org = await setupOrg(server)
    expect((await templatesFrom(server, '127.0.0.4', org.apiKey)).status).toBe(200)
    await failTimes(3, () => templatesFrom(server, '127.0.0.4', unknownKey()))
    expectRefused(await templatesFrom(server, '127.0.0.4', unknownKey()))
    expect((await templatesFrom(server, '127.0.0.4', org.apiKey)).status).toBe(200)
  })

  test('malformed keys need no lookup and do not count', async () => {
    const org: TestOrg = await setupOrg(server)
    await failTimes(10, () => templatesFrom(server, '127.0.0.5', 'sgn_live_nope'))
    expect((await templatesFrom(server, '127.0.0.5', org.apiKey)).status).toBe(200)
  })
})

describe('behind a proxy (TRUST_PROXY=127.0.0.1, FAILED_AUTH_PER_MINUTE=2)', () => {
  let server: TestServer
  let org: TestOrg
  beforeAll(async () => {
    server = await startTestServer({ env: { TRUST_PROXY: '127.0.0.1', FAILED_AUTH_PER_MINUTE: '2' } })
    org = await setupOrg(server)
  })
  afterAll(() => server.close())

  const viaProxy = (client: string, key: string) => templatesFrom(server, '127.0.0.1', key, { 'x-forwarded-for': client })

  test('counts each forwarded client on its own', async () => {
    await failTimes(2, () => viaProxy('203.0.113.5', unknownKey()))
    expectRefused(await viaProxy('203.0.113.5', unknownKey()))
    expect(await viaProxy('203.0.113.6', unknownKey())).toEqual(INVALID_KEY)
    expect((await viaProxy('203.0.113.6', org.apiKey)).status).toBe(200)
  })

  test('counts an IPv6 client by its /64, which it could otherwise walk through address by address', async () => {
    await failTimes(2, () => viaProxy('2001:db8:1:2::1', unknownKey()))
    expectRefused(await viaProxy('2001:db8:1:2:ffff:ffff:ffff:ffff', unknownKey()))
    expect(await viaProxy('2001:db8:1:3::1', unknownKey())).toEqual(INVALID_KEY)
  })
})
