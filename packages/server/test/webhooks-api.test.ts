import { eq } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { executeAdminCommand } from '../src/admin/commands.ts'
import { webhookDeliveries, webhookEndpoints } from '../src/db/schema.ts'
import { AppError } from '../src/errors.ts'
import { addWebhookEndpoint } from '../src/webhooks/endpoints.ts'
import { nonPublicReason, resolveWebhookAddresses, type Resolver } from '../src/webhooks/ssrf-guard.ts'
import { bodyOf, expectError, setupOrg, type Json, type TestOrg } from './helpers/api.ts'
import { sendForSigning } from './helpers/signing.ts'
import { startTestServer, type TestServer } from './helpers/test-server.ts'
import { startWebhookReceiver, type WebhookReceiver } from './helpers/webhook-receiver.ts'

/** A server that may deliver to loopback (as the delivery tests need), and one with the SSRF guard on (the default). */
let server: TestServer
let guarded: TestServer
let receiver: WebhookReceiver

beforeAll(async () => {
  ;[server, guarded, receiver] = await Promise.all([
    startTestServer({ env: { WEBHOOK_ALLOW_PRIVATE: 'true', JOB_POLL_MS: '100' } }),
    startTestServer({ env: { JOB_POLL_MS: '100' } }),
    startWebhookReceiver(),
  ])
})
afterAll(async () => {
  await Promise.all([server.close(), guarded.close()])
  await receiver.close()
})

const SECRET = /^whsec_[A-Za-z0-9+/]{43}=$/
const ISO_MS = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/

const register = (target: TestServer, org: TestOrg, url: string, extra: Json = {}) =>
  target.request('/api/v1/webhooks', { method: 'POST', key: org.apiKey, json: { url, ...extra } })

async function registered(org: TestOrg, url = `${receiver.url}/${Math.random().toString(36).slice(2)}`) {
  const response = await register(server, org, url)
  expect(response.status).toBe(201)
  return bodyOf<{ id: string; url: string; enabled: boolean; created_at: string; secret: string }>(response)
}

describe('POST /api/v1/webhooks', () => {
  it('registers an endpoint and shows its secret once, in the Standard Webhooks format', async () => {
    const org = await setupOrg(server)
    const url = `${receiver.url}/a`
    const response = await register(server, org, url)
    expect(response.status).toBe(201)
    const body = await bodyOf(response)
    expect(body).toEqual({
      id: expect.any(String) as unknown,
      url,
      enabled: true,
      created_at: expect.stringMatching(ISO_MS) as unknown,
      secret: expect.stringMatching(SECRET) as unknown,
    })
    // whsec_ + base64 of 32 random bytes: the Standard Webhooks key is the decoded part.
    expect(Buffer.from((body.secret as string).slice('whsec_'.length), 'base64')).toHaveLength(32)
    const [stored] = await server.services.db
      .select()
      .from(webhookEndpoints)
      .where(eq(webhookEndpoints.id, body.id as string))
    expect(stored).toMatchObject({ orgId: org.orgId, url, secret: body.secret, enabled: true, deletedAt: null })

    const list = await bodyOf(await server.request('/api/v1/webhooks', { key: org.apiKey }))
    expect(list).toEqual({ webhooks: [{ id: body.id, url, enabled: true, created_at: body.created_at }], private_addresses_allowed: true })
    expect(JSON.stringify(list)).not.toContain('whsec_')
  })

  it('lists newest first and gives every endpoint its own secret', async () => {
    const org = await setupOrg(server)
    const first = await registered(org)
    const second = await registered(org)
    expect(first.secret).not.toBe(second.secret)
    const { webhooks } = await bodyOf<{ webhooks: Json[] }>(await server.request('/api/v1/webhooks', { key: org.apiKey }))
    expect(webhooks.map((w) => w.id)).toEqual([second.id, first.id])
  })

  it('answers 402 with upgrade: true below Pro, and registers on Pro and Team', async () => {
    const free = await setupOrg(server, { plan: 'free' })
    const response = await register(server, free, `${receiver.url}/free`)
    expect(response.status).toBe(402)
    expect(await bodyOf(response)).toEqual({ error: expect.stringMatching(/Pro plan/) as unknown, code: 'payment_required', upgrade: true })
    expect(await bodyOf(await server.request('/api/v1/webhooks', { key: free.apiKey }))).toEqual({ webhooks: [], private_addresses_allowed: true })
    for (const plan of ['pro', 'team'] as const) {
      expect((await register(server, await setupOrg(server, { plan }), `${receiver.url}/${plan}`)).status).toBe(201)
    }
  })

  it('validates the body and the URL with clear 400s', async () => {
    const org = await setupOrg(server)
    await expectError(await server.request('/api/v1/webhooks', { method: 'POST', key: org.apiKey, json: {} }), 400, /url/)
    await expectError(await register(server, org, `${receiver.url}/x`, { description: 'mine' }), 400, /description/)
    await expectError(await register(server, org, 'not a url'), 400, 'The webhook URL is not a valid absolute URL (e.g. https://example.com/webhooks).')
    await expectError(await register(server, org, 'ftp://example.com/hook'), 400, 'The webhook URL must use http or https, not ftp.')
    await expectError(await register(server, org, 'http://user:pw@127.0.0.1/hook'), 400, /must not contain a user name or password/)
    await expectError(await register(server, org, `https://example.com/${'a'.repeat(2048)}`), 400, /url/)
  })

  it('refuses a URL registered twice, and more than 20 endpoints per org (409)', async () => {
    const org = await setupOrg(server)
    const first = await registered(org, `${receiver.url}/0`)
    await expectError(await register(server, org, `${receiver.url}/0`), 409, new RegExp(`already registered \\(webhook ${first.id}\\)`))
    await Promise.all(Array.from({ length: 19 }, (_, i) => registered(org, `${receiver.url}/${i + 1}`)))
    await expectError(await register(server, org, `${receiver.url}/20`), 409, /already has 20 webhook endpoints/)
    // Deleting one makes room again.
    expect((await server.request(`/api/v1/webhooks/${first.id}`, { method: 'DELETE', key: org.apiKey })).status).toBe(200)
    expect((await register(server, org, `${receiver.url}/20`)).status).toBe(201)
  })
})

describe('SSRF guard (WEBHOOK_ALLOW_PRIVATE unset)', () => {
  it.each([
    ['loopback with a port', () => `http://127.0.0.1:${new URL(receiver.url).port}/hooks`, /127\.0\.0\.1 is a loopback address/],
    ['private 10/8', () => 'http://10.0.0.1/hook', /10\.0\.0\.1 is a private address/],
    ['private 192.168/16', () => 'https://192.168.1.20/hook', /a private address/],
    ['private 172.16/12', () => 'http://172.20.0.5/', /a private address/],
    ['carrier-grade NAT', () => 'http://100.64.1.1/', /shared \(carrier-grade NAT\) address/],
    ['IPv6 loopback', () => 'http://[::1]:8080/hook', /::1 is a loopback address/],
    ['IPv4-mapped loopback', () => 'http://[::ffff:127.0.0.1]/', /loopback address \(127\.0\.0\.1, inside an IPv6 address\)/],
    ['IPv4-translated loopback', () => 'http://[::ffff:0:127.0.0.1]/', /::ffff:0:7f00:1 is an IPv4-translated address/],
    ['NAT64 to the cloud metadata service', () => 'http://[64:ff9b::169.254.169.254]/', /link-local address .*\(169\.254\.169\.254, inside an IPv6 address\)/],
    ['6to4', () => 'http://[2002:7f00:1::]/', /2002:7f00:1:: is a 6to4 address/],
    ['cloud metadata (link-local)', () => 'http://169.254.169.254/latest/meta-data/', /169\.254\.169\.254 is a link-local address/],
    ['IPv6 link-local', () => 'http://[fe80::1]/', /link-local/],
    ['IPv6 unique local', () => 'http://[fd12:3456::1]/', /unique local/],
    ['"this network"', () => 'http://0.0.0.0:3000/', /"this network" address/],
    ['loopback as a decimal integer', () => 'http://2130706433/', /127\.0\.0\.1 is a loopback address/],
    ['loopback in hex', () => 'http://0x7f000001/', /127\.0\.0\.1 is a loopback address/],
    ['localhost (by name)', () => 'http://localhost:9999/', /localhost resolves to (127\.0\.0\.1|::1), a loopback address/],
  ])('refuses %s with a 400 naming the address', async (_label, url, message) => {
    const org = await setupOrg(guarded)
    const text = await expectError(await register(guarded, org, url()), 400, message)
    expect(text).toMatch(/^The webhook URL is refused: .* Webhooks may only be sent to public addresses\.$/)
  })

  it('tells the dashboard that private addresses are refused, so its hint says what the server does', async () => {
    const org = await setupOrg(guarded)
    expect(await bodyOf(await guarded.request('/api/v1/webhooks', { key: org.apiKey }))).toEqual({ webhooks: [], private_addresses_allowed: false })
  })

  it('checks again at delivery time: an endpoint that reaches a private address gets nothing', async () => {
    const org = await setupOrg(guarded)
    const local = await startWebhookReceiver()
    try {
      // Registered before the guard could see it (e.g. its DNS answer changed since): written straight to the table.
      const [endpoint] = await guarded.services.db
        .insert(webhookEndpoints)
        .values({ orgId: org.orgId, url: local.url, secret: 'whsec_' + Buffer.alloc(32, 7).toString('base64') })
        .returning()
      const run = await sendForSigning(guarded, org)
      expect((await run.signers[0]?.view())?.status).toBe(200)
      let rows: (typeof webhookDeliveries.$inferSelect)[] = []
      for (let i = 0; i < 100 && rows[0]?.status !== 'failed'; i++) {
        await new Promise((resolve) => setTimeout(resolve, 100))
        rows = await guarded.services.db
          .select()
          .from(webhookDeliveries)
          .where(eq(webhookDeliveries.endpointId, endpoint?.id ?? ''))
      }
      expect(rows).toHaveLength(1)
      expect(rows[0]).toMatchObject({
        status: 'failed',
        attempts: 2,
        lastStatusCode: null,
        lastError: expect.stringMatching(/refused: 127\.0\.0\.1 is a loopback address/) as unknown,
      })
      expect(local.received).toHaveLength(0)
    } finally {
      await local.close()
    }
  })
})

/*
 * Every range of the IANA IPv4 and IPv6 Special-Purpose Address Registries (and multicast,
 * 240/4, site-local, IPv4-compatible, IPv4-translated), each by its first and last address.
 */
const SPECIAL_RANGES: [range: string, first: string, last: string, reason: string | RegExp][] = [
  ['0.0.0.0/8', '0.0.0.0', '0.255.255.255', 'a "this network" address'],
  ['10.0.0.0/8', '10.0.0.0', '10.255.255.255', 'a private address'],
  ['100.64.0.0/10', '100.64.0.0', '100.127.255.255', 'a shared (carrier-grade NAT) address'],
  ['127.0.0.0/8', '127.0.0.0', '127.255.255.255', 'a loopback address'],
  ['169.254.0.0/16', '169.254.0.0', '169.254.255.255', 'a link-local address (e.g. a cloud metadata service)'],
  ['172.16.0.0/12', '172.16.0.0', '172.31.255.255', 'a private address'],
  ['192.0.0.0/24', '192.0.0.0', '192.0.0.255', 'an IETF protocol assignment address'],
  ['192.0.2.0/24', '192.0.2.0', '192.0.2.255', 'a documentation address'],
  ['192.31.196.0/24', '192.31.196.0', '192.31.196.255', 'an AS112 DNS sink address'],
  ['192.52.193.0/24', '192.52.193.0', '192.52.193.255', 'an AMT relay address'],
  ['192.88.99.0/24', '192.88.99.0', '192.88.99.255', 'a 6to4 relay anycast address'],
  ['192.168.0.0/16', '192.168.0.0', '192.168.255.255', 'a private address'],
  ['192.175.48.0/24', '192.175.48.0', '192.175.48.255', 'an AS112 DNS sink address'],
  ['198.18.0.0/15', '198.18.0.0', '198.19.255.255', 'a benchmarking address'],
  ['198.51.100.0/24', '198.51.100.0', '198.51.100.255', 'a documentation address'],
  ['203.0.113.0/24', '203.0.113.0', '203.0.113.255', 'a documentation address'],
  ['224.0.0.0/4', '224.0.0.0', '239.255.255.255', 'a multicast address'],
  ['240.0.0.0/4', '240.0.0.0', '255.255.255.254', 'a reserved address'],
  ['255.255.255.255/32', '255.255.255.255', '255.255.255.255', 'the broadcast address'],
  ['::/128', '::', '::', 'the unspecified address'],
  ['::1/128', '::1', '::1', 'a loopback address'],
  ['::/96 (IPv4-compatible)', '::0.0.0.2', '::255.255.255.255', 'an IPv4-compatible address'],
  [
    '::ffff:0:0/96 (IPv4-mapped, loopback inside)',
    '::ffff:127.0.0.0',
    '::ffff:127.255.255.255',
    /^a loopback address \(127\.\d+\.\d+\.\d+, inside an IPv6 address\)$/,
  ],
  ['::ffff:0:0:0/96 (IPv4-translated)', '::ffff:0:0.0.0.0', '::ffff:0:255.255.255.255', 'an IPv4-translated address'],
  ['64:ff9b::/96 (NAT64, private inside)', '64:ff9b::10.0.0.0', '64:ff9b::10.255.255.255', /^a private address \(10\.\d+\.\d+\.\d+, inside an IPv6 address\)$/],
  ['64:ff9b:1::/48 (local-use NAT64)', '64:ff9b:1::', '64:ff9b:1:ffff:ffff:ffff:ffff:ffff', 'a local-use NAT64 address'],
  ['100::/64 (discard-only)', '100::', '100::ffff:ffff:ffff:ffff', 'a discard-only address'],
  ['100:0:0:1::/64 (dummy prefix)', '100:0:0:1::', '100:0:0:1:ffff:ffff:ffff:ffff', 'a dummy-prefix address'],
  ['2001::/32 (Teredo)', '2001::', '2001:0:ffff:ffff:ffff:ffff:ffff:ffff', 'a Teredo address'],
  ['2001:2::/48 (benchmarking)', '2001:2::', '2001:2:0:ffff:ffff:ffff:ffff:ffff', 'a benchmarking address'],
  ['2001::/23 (IETF protocol assignments)', '2001:1::1', '2001:1ff:ffff:ffff:ffff:ffff:ffff:ffff', 'an IETF protocol assignment address'],
  ['2001:db8::/32', '2001:db8::', '2001:db8:ffff:ffff:ffff:ffff:ffff:ffff', 'a documentation address'],
  ['2002::/16 (6to4)', '2002::', '2002:ffff:ffff:ffff:ffff:ffff:ffff:ffff', 'a 6to4 address'],
  ['2620:4f:8000::/48 (AS112)', '2620:4f:8000::', '2620:4f:8000:ffff:ffff:ffff:ffff:ffff', 'an AS112 DNS sink address'],
  ['3fff::/20 (documentation)', '3fff::', '3fff:fff:ffff:ffff:ffff:ffff:ffff:ffff', 'a documentation address'],
  ['5f00::/16 (segment routing)', '5f00::', '5f00:ffff:ffff:ffff:ffff:ffff:ffff:ffff', 'a segment routing address'],
  ['fc00::/7', 'fc00::', 'fdff:ffff:ffff:ffff:ffff:ffff:ffff:ffff', 'a private (unique local) address'],
  ['fe80::/10', 'fe80::', 'febf:ffff:ffff:ffff:ffff:ffff:ffff:ffff', 'a link-local address'],
  ['fec0::/10', 'fec0::', 'feff:ffff:ffff:ffff:ffff:ffff:ffff:ffff', 'a site-local address'],
  ['ff00::/8', 'ff00::', 'ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff', 'a multicast address'],
  ['outside 2000::/3', '4000::', '1fff:ffff:ffff:ffff:ffff:ffff:ffff:ffff', 'a reserved address (outside the global unicast range 2000::/3)'],
]

describe('the address rules', () => {
  it.each(SPECIAL_RANGES)('refuses %s: %s and %s are %s', (_range, first, last, reason) => {
    for (const address of [first, last]) {
      if (typeof reason === 'string') expect(nonPublicReason(address)).toBe(reason)
      else expect(nonPublicReason(address)).toMatch(reason)
    }
  })

  it.each([
    // Ordinary public addresses, and the neighbours just outside special ranges.
    '8.8.8.8',
    '93.184.216.34',
    '1.1.1.1',
    '9.255.255.255',
    '11.0.0.0',
    '100.63.255.255',
    '100.128.0.0',
    '126.255.255.255',
    '128.0.0.0',
    '169.253.255.255',
    '172.15.255.255',
    '172.32.0.0',
    '192.0.1.0',
    '192.0.3.0',
    '192.167.255.255',
    '192.169.0.0',
    '198.17.255.255',
    '198.20.0.0',
    '223.255.255.255',
    '2606:4700:4700::1111',
    '2a00:1450:4001:80b::200e',
    '2001:200::',
    '2001:db7:ffff:ffff:ffff:ffff:ffff:ffff',
    '2003::1',
    '3ffe:ffff::1',
    // An IPv4 address carried in IPv6 is judged by that address: public ones stay reachable (IPv6-only hosts behind NAT64).
    '::ffff:8.8.8.8',
    '64:ff9b::808:808',
  ])('allows %s', (address) => {
    expect(nonPublicReason(address)).toBeUndefined()
  })

  it('judges a zone-scoped address by its address', () => {
    expect(nonPublicReason('fe80::1%eth0')).toBe('a link-local address')
  })

  it('refuses a host when any of its addresses is private, and otherwise yields exactly the addresses it checked', async () => {
    const resolverOf =
      (...addresses: string[]): Resolver =>
      async () =>
        addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }))
    const url = new URL('https://hooks.example.com/in')
    await expect(resolveWebhookAddresses(url, { allowPrivate: false, resolve: resolverOf('93.184.216.34', '10.1.2.3') })).rejects.toThrow(
      'The webhook URL is refused: hooks.example.com resolves to 10.1.2.3, a private address. Webhooks may only be sent to public addresses.',
    )
    await expect(resolveWebhookAddresses(url, { allowPrivate: false, resolve: resolverOf('93.184.216.34', '2606:4700::1') })).resolves.toEqual([
      { address: '93.184.216.34', family: 4 },
      { address: '2606:4700::1', family: 6 },
    ])
    await expect(resolveWebhookAddresses(url, { allowPrivate: true, resolve: resolverOf('10.1.2.3') })).resolves.toEqual([{ address: '10.1.2.3', family: 4 }])
    await expect(resolveWebhookAddresses(url, { allowPrivate: false, resolve: resolverOf() })).rejects.toThrow(/has no addresses/)
  })
})

describe('managing endpoints', () => {
  let org: TestOrg
  let other: TestOrg
  beforeAll(async () => {
    ;[org, other] = await Promise.all([setupOrg(server), setupOrg(server)])
  })

  it("hides an org's endpoints from every other org (404, as for a missing id)", async () => {
    const endpoint = await registered(org)
    expect(await bodyOf(await server.request('/api/v1/webhooks', { key: other.apiKey }))).toEqual({ webhooks: [], private_addresses_allowed: true })
    const attempts: [string, string, unknown?][] = [
      ['DELETE', `/api/v1/webhooks/${endpoint.id}`],
      ['POST', `/api/v1/webhooks/${endpoint.id}/rotate-secret`],
      ['PATCH', `/api/v1/webhooks/${endpoint.id}`, { enabled: false }],
      ['GET', `/api/v1/webhooks/${endpoint.id}/deliveries`],
      ['POST', `/api/v1/webhooks/${endpoint.id}/deliveries/${endpoint.id}/redeliver`],
    ]
    for (const [method, path, json] of attempts) {
      await expectError(await server.request(path, { method, key: other.apiKey, ...(json ? { json } : {}) }), 404, 'Webhook endpoint not found.')
    }
    await expectError(await server.request('/api/v1/webhooks/not-a-uuid', { method: 'DELETE', key: org.apiKey }), 404, 'Webhook endpoint not found.')
    // Still there, untouched, for its own org.
    const { webhooks } = await bodyOf<{ webhooks: Json[] }>(await server.request('/api/v1/webhooks', { key: org.apiKey }))
    expect(webhooks).toContainEqual({ id: endpoint.id, url: endpoint.url, enabled: true, created_at: endpoint.created_at })
  })

  it('deletes (soft): gone from the list, a second delete is 404, a body is refused', async () => {
    const endpoint = await registered(org)
    await expectError(await server.request(`/api/v1/webhooks/${endpoint.id}`, { method: 'DELETE', key: org.apiKey, json: { force: true } }), 400)
    const response = await server.request(`/api/v1/webhooks/${endpoint.id}`, { method: 'DELETE', key: org.apiKey })
    expect({ status: response.status, body: await bodyOf(response) }).toEqual({ status: 200, body: { success: true } })
    const { webhooks } = await bodyOf<{ webhooks: Json[] }>(await server.request('/api/v1/webhooks', { key: org.apiKey }))
    expect(webhooks.map((w) => w.id)).not.toContain(endpoint.id)
    await expectError(await server.request(`/api/v1/webhooks/${endpoint.id}`, { method: 'DELETE', key: org.apiKey }), 404)
    const [row] = await server.services.db.select().from(webhookEndpoints).where(eq(webhookEndpoints.id, endpoint.id))
    expect(row?.deletedAt).toBeInstanceOf(Date)
  })

  it('rotates the secret: a new one, shown once, stored in place of the old', async () => {
    const endpoint = await registered(org)
    const response = await server.request(`/api/v1/webhooks/${endpoint.id}/rotate-secret`, { method: 'POST', key: org.apiKey })
    expect(response.status).toBe(200)
    const body = await bodyOf<{ id: string; secret: string }>(response)
    expect(body).toEqual({ id: endpoint.id, secret: expect.stringMatching(SECRET) as unknown })
    expect(body.secret).not.toBe(endpoint.secret)
    const [row] = await server.services.db.select().from(webhookEndpoints).where(eq(webhookEndpoints.id, endpoint.id))
    expect(row?.secret).toBe(body.secret)
  })

  it('disables and enables an endpoint', async () => {
    const endpoint = await registered(org)
    const off = await server.request(`/api/v1/webhooks/${endpoint.id}`, { method: 'PATCH', key: org.apiKey, json: { enabled: false } })
    expect(await bodyOf(off)).toEqual({ id: endpoint.id, url: endpoint.url, enabled: false, created_at: endpoint.created_at })
    await expectError(await server.request(`/api/v1/webhooks/${endpoint.id}`, { method: 'PATCH', key: org.apiKey, json: { enabled: 'no' } }), 400)
    await expectError(await server.request(`/api/v1/webhooks/${endpoint.id}`, { method: 'PATCH', key: org.apiKey, json: { url: 'http://x' } }), 400)
    const on = await server.request(`/api/v1/webhooks/${endpoint.id}`, { method: 'PATCH', key: org.apiKey, json: { enabled: true } })
    expect((await bodyOf(on)).enabled).toBe(true)
  })

  it('pages the delivery log with checked parameters', async () => {
    const endpoint = await registered(org)
    const log = (query: string) => server.request(`/api/v1/webhooks/${endpoint.id}/deliveries${query}`, { key: org.apiKey })
    expect(await bodyOf(await log(''))).toEqual({ deliveries: [], total: 0, limit: 20, offset: 0, has_more: false })
    await expectError(await log('?limit=0'), 400, /limit/)
    await expectError(await log('?limit=101'), 400, /limit/)
    await expectError(await log('?page=2'), 400, /page/)
    await expectError(
      await server.request(`/api/v1/webhooks/${endpoint.id}/deliveries/${endpoint.id}/redeliver`, { method: 'POST', key: org.apiKey }),
      404,
      'Delivery not found.',
    )
  })

  it('keeps reads and delete open below Pro, and refuses the rest with 402', async () => {
    const downgraded = await setupOrg(server)
    const endpoint = await registered(downgraded)
    await executeAdminCommand(server.services, { name: 'org.set-plan', orgId: downgraded.orgId, plan: 'free' })
    expect((await bodyOf<{ webhooks: Json[] }>(await server.request('/api/v1/webhooks', { key: downgraded.apiKey }))).webhooks).toHaveLength(1)
    expect((await server.request(`/api/v1/webhooks/${endpoint.id}/deliveries`, { key: downgraded.apiKey })).status).toBe(200)
    for (const [method, path, json] of [
      ['POST', `/api/v1/webhooks/${endpoint.id}/rotate-secret`, undefined],
      ['PATCH', `/api/v1/webhooks/${endpoint.id}`, { enabled: true }],
      ['POST', `/api/v1/webhooks/${endpoint.id}/deliveries/${endpoint.id}/redeliver`, undefined],
    ] as const) {
      const response = await server.request(path, { method, key: downgraded.apiKey, ...(json ? { json } : {}) })
      expect({ status: response.status, body: await bodyOf(response) }).toEqual({
        status: 402,
        body: { error: expect.any(String) as unknown, code: 'payment_required', upgrade: true },
      })
    }
    expect((await server.request(`/api/v1/webhooks/${endpoint.id}`, { method: 'DELETE', key: downgraded.apiKey })).status).toBe(200)
  })
})

describe('addWebhookEndpoint (for the operator CLI)', () => {
  it('applies the plan rule and the URL checks, and returns {id, secret}', async () => {
    const org = await setupOrg(server)
    const result = await addWebhookEndpoint(server.services, { orgId: org.orgId, url: `${receiver.url}/cli` })
    expect(result).toEqual({ id: expect.any(String) as unknown, secret: expect.stringMatching(SECRET) as unknown })

    const free = await setupOrg(server, { plan: 'free' })
    const refusal = await addWebhookEndpoint(server.services, { orgId: free.orgId, url: `${receiver.url}/cli` }).catch((error: unknown) => error)
    expect(refusal).toBeInstanceOf(AppError)
    expect(refusal).toMatchObject({ code: 'payment_required', extra: { upgrade: true } })

    await expect(addWebhookEndpoint(guarded.services, { orgId: org.orgId, url: 'http://127.0.0.1/' })).rejects.toMatchObject({ code: 'not_found' })
    const guardedOrg = await setupOrg(guarded)
    await expect(addWebhookEndpoint(guarded.services, { orgId: guardedOrg.orgId, url: 'http://127.0.0.1/' })).rejects.toMatchObject({
      code: 'invalid_request',
      message: expect.stringMatching(/loopback/) as unknown,
    })
    await expect(addWebhookEndpoint(server.services, { orgId: 'nope', url: `${receiver.url}/cli` })).rejects.toMatchObject({ code: 'not_found' })
  })
})
