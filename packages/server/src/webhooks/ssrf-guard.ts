import { lookup } from 'node:dns/promises'
import { BlockList, isIP } from 'node:net'

/*
 * Webhook URLs come from API clients, and the server POSTs to them from inside its own
 * network: without a guard a client could make it reach the cloud metadata service,
 * an admin port on localhost or a database on the private network (SSRF). So a URL is
 * refused when ANY address its host resolves to is not a public unicast address, both
 * when it is registered (a clear 400) and at every delivery, and the delivery connects
 * to the very address that was checked (a second DNS answer cannot swap in a private
 * one: DNS rebinding). The operator may allow private addresses (WEBHOOK_ALLOW_PRIVATE)
 * for receivers on their own network, and tests need loopback.
 */

export const MAX_WEBHOOK_URL_LENGTH = 2048

/** Why an address is not public, per range; the first matching range names it. */
const RANGES: [label: string, cidr: string][] = [
  ['a "this network" address', '0.0.0.0/8'],
  ['a private address', '10.0.0.0/8'],
  ['a shared (carrier-grade NAT) address', '100.64.0.0/10'],
  ['a loopback address', '127.0.0.0/8'],
  ['a link-local address (e.g. a cloud metadata service)', '169.254.0.0/16'],
  ['a private address', '172.16.0.0/12'],
  ['a reserved address', '192.0.0.0/24'],
  ['a documentation address', '192.0.2.0/24'],
  ['a relay anycast address', '192.88.99.0/24'],
  ['a private address', '192.168.0.0/16'],
  ['a benchmarking address', '198.18.0.0/15'],
  ['a documentation address', '198.51.100.0/24'],
  ['a documentation address', '203.0.113.0/24'],
  ['a multicast address', '224.0.0.0/4'],
  ['a reserved address', '240.0.0.0/4'],
  ['the unspecified address', '::/128'],
  ['a loopback address', '::1/128'],
  ['an IPv4-compatible address', '::/96'],
  ['a discard-only address', '100::/64'],
  ['a local-use NAT64 address', '64:ff9b:1::/48'],
  ['a Teredo address', '2001::/32'],
  ['a documentation address', '2001:db8::/32'],
  ['a private (unique local) address', 'fc00::/7'],
  ['a link-local address', 'fe80::/10'],
  ['a site-local address', 'fec0::/10'],
  ['a multicast address', 'ff00::/8'],
]

const RULES = RANGES.map(([label, cidr]) => {
  const [network = '', prefix = ''] = cidr.split('/')
  const list = new BlockList()
  list.addSubnet(network, Number(prefix), isIP(network) === 6 ? 'ipv6' : 'ipv4')
  return { label, list }
})

/** The eight 16-bit groups of an IPv6 address (which isIP has accepted). */
function ipv6Groups(address: string): number[] {
  let text = address.split('%')[0] ?? ''
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text)
  if (dotted) {
    const [a, b, c, d] = dotted.slice(1).map(Number) as [number, number, number, number]
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`
  }
  const [head = '', tail] = text.split('::')
  const left = head ? head.split(':') : []
  const right = tail ? tail.split(':') : []
  const groups = tail === undefined ? left : [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right]
  return groups.map((group) => parseInt(group, 16))
}

const ipv4Of = (high: number, low: number): string => [high >> 8, high & 0xff, low >> 8, low & 0xff].join('.')

/** An IPv4 address carried inside an IPv6 one, which is where a packet to it really goes. */
function embeddedIpv4(address: string): string | undefined {
  const g = ipv6Groups(address)
  const zeros = (from: number, to: number) => g.slice(from, to).every((x) => x === 0)
  if (zeros(0, 5) && g[5] === 0xffff) return ipv4Of(g[6] ?? 0, g[7] ?? 0) // IPv4-mapped ::ffff:a.b.c.d
  if (g[0] === 0x64 && g[1] === 0xff9b && zeros(2, 6)) return ipv4Of(g[6] ?? 0, g[7] ?? 0) // NAT64 64:ff9b::a.b.c.d
  if (g[0] === 0x2002) return ipv4Of(g[1] ?? 0, g[2] ?? 0) // 6to4 2002:aabb:ccdd::
  return undefined
}

/** Why `address` (an IP literal) is not a public address, or undefined when it is. */
export function nonPublicReason(candidate: string): string | undefined {
  const address = candidate.split('%')[0] ?? '' // a zone (fe80::1%eth0) does not change the range
  const family = isIP(address)
  if (family === 0) return 'not an IP address'
  if (family === 6) {
    const inner = embeddedIpv4(address)
    if (inner) {
      const reason = nonPublicReason(inner)
      return reason ? `${reason} (${inner}, inside an IPv6 address)` : undefined
    }
  }
  const type = family === 6 ? 'ipv6' : 'ipv4'
  return RULES.find((rule) => rule.list.check(address, type))?.label
}

export interface ResolvedAddress {
  address: string
  family: 4 | 6
}

/** Name resolution, swappable in tests (the system's resolver otherwise: /etc/hosts, then DNS). */
export type Resolver = (hostname: string) => Promise<ResolvedAddress[]>

export const systemResolver: Resolver = async (hostname) =>
  (await lookup(hostname, { all: true, verbatim: true })).map((entry) => ({ address: entry.address, family: entry.family === 6 ? 6 : 4 }))

/** A URL the guard refuses; its message is meant for the client (a 400 at registration, the delivery log later). */
export class WebhookUrlError extends Error {
  override name = 'WebhookUrlError'
}

/** The host of a URL without IPv6 brackets. */
const bareHost = (url: URL): string => url.hostname.replace(/^\[(.*)\]$/, '$1')

/** Parses and checks the form of a webhook URL: absolute, http or https, a host, no credentials. */
export function parseWebhookUrl(raw: string): URL {
  if (raw.length > MAX_WEBHOOK_URL_LENGTH) throw new WebhookUrlError(`The webhook URL is longer than ${MAX_WEBHOOK_URL_LENGTH} characters.`)
  let url: URL
  try {
    url = new URL(raw)
  } catch {
    throw new WebhookUrlError('The webhook URL is not a valid absolute URL (e.g. https://example.com/webhooks).')
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new WebhookUrlError(`The webhook URL must use http or https, not ${url.protocol.slice(0, -1)}.`)
  }
  if (url.username || url.password) {
    throw new WebhookUrlError('The webhook URL must not contain a user name or password; deliveries are authenticated by their signature.')
  }
  if (!bareHost(url)) throw new WebhookUrlError('The webhook URL has no host.')
  return url
}

/**
 * The addresses a delivery to `url` may connect to: its host's addresses (at least one),
 * every one of them public unless `allowPrivate`. Throws WebhookUrlError naming the
 * offending address.
 */
export async function resolveWebhookAddresses(url: URL, options: { allowPrivate: boolean; resolve?: Resolver }): Promise<[ResolvedAddress, ...ResolvedAddress[]]> {
  const host = bareHost(url)
  const literal = isIP(host)
  let addresses: ResolvedAddress[]
  if (literal !== 0) {
    addresses = [{ address: host, family: literal === 6 ? 6 : 4 }]
  } else {
    try {
      addresses = await (options.resolve ?? systemResolver)(host)
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code
      throw new WebhookUrlError(`The webhook URL's host ${host} could not be resolved${code ? ` (${code})` : ''}.`)
    }
  }
  const [first, ...rest] = addresses
  if (!first) throw new WebhookUrlError(`The webhook URL's host ${host} has no addresses.`)
  if (!options.allowPrivate) {
    for (const { address } of addresses) {
      const reason = nonPublicReason(address)
      if (reason) {
        const named = literal !== 0 ? `${host} is` : `${host} resolves to ${address},`
        throw new WebhookUrlError(`The webhook URL is refused: ${named} ${reason}. Webhooks may only be sent to public addresses.`)
      }
    }
  }
  return [first, ...rest]
}
