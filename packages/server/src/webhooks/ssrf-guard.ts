import { lookup } from 'node:dns/promises'
import { BlockList, isIP } from 'node:net'
import ipaddr from 'ipaddr.js'

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

/*
 * Every range of the IANA IPv4 and IPv6 Special-Purpose Address Registries (RFC 6890 and
 * later), plus multicast and the old site-local and IPv4-compatible blocks: none is where a
 * webhook receiver lives, so even the ranges IANA marks globally reachable (AS112 sinks, AMT
 * relays, 6to4) are refused. Per family, the first matching range names the reason.
 */
const IPV4_RANGES: [label: string, cidr: string][] = [
  ['a "this network" address', '0.0.0.0/8'],
  ['a private address', '10.0.0.0/8'],
  ['a shared (carrier-grade NAT) address', '100.64.0.0/10'],
  ['a loopback address', '127.0.0.0/8'],
  ['a link-local address (e.g. a cloud metadata service)', '169.254.0.0/16'],
  ['a private address', '172.16.0.0/12'],
  ['an IETF protocol assignment address', '192.0.0.0/24'],
  ['a documentation address', '192.0.2.0/24'],
  ['an AS112 DNS sink address', '192.31.196.0/24'],
  ['an AMT relay address', '192.52.193.0/24'],
  ['a 6to4 relay anycast address', '192.88.99.0/24'],
  ['a private address', '192.168.0.0/16'],
  ['an AS112 DNS sink address', '192.175.48.0/24'],
  ['a benchmarking address', '198.18.0.0/15'],
  ['a documentation address', '198.51.100.0/24'],
  ['a documentation address', '203.0.113.0/24'],
  ['a multicast address', '224.0.0.0/4'],
  ['the broadcast address', '255.255.255.255/32'],
  ['a reserved address', '240.0.0.0/4'],
]

const IPV6_RANGES: [label: string, cidr: string][] = [
  ['the unspecified address', '::/128'],
  ['a loopback address', '::1/128'],
  ['an IPv4-compatible address', '::/96'],
  ['an IPv4-translated address', '::ffff:0:0:0/96'],
  ['a local-use NAT64 address', '64:ff9b:1::/48'],
  ['a discard-only address', '100::/64'],
  ['a dummy-prefix address', '100:0:0:1::/64'],
  ['a Teredo address', '2001::/32'],
  ['a benchmarking address', '2001:2::/48'],
  ['an IETF protocol assignment address', '2001::/23'],
  ['a documentation address', '2001:db8::/32'],
  ['a 6to4 address', '2002::/16'],
  ['an AS112 DNS sink address', '2620:4f:8000::/48'],
  ['a documentation address', '3fff::/20'],
  ['a segment routing address', '5f00::/16'],
  ['a private (unique local) address', 'fc00::/7'],
  ['a link-local address', 'fe80::/10'],
  ['a site-local address', 'fec0::/10'],
  ['a multicast address', 'ff00::/8'],
]

const blockListOf = (family: 'ipv4' | 'ipv6', ...cidrs: string[]): BlockList => {
  const list = new BlockList()
  for (const cidr of cidrs) {
    const [network = '', prefix = ''] = cidr.split('/')
    list.addSubnet(network, Number(prefix), family)
  }
  return list
}

const rulesOf = (family: 'ipv4' | 'ipv6', ranges: [string, string][]) => ranges.map(([label, cidr]) => ({ label, list: blockListOf(family, cidr) }))
const IPV4_RULES = rulesOf('ipv4', IPV4_RANGES)
const IPV6_RULES = rulesOf('ipv6', IPV6_RANGES)

/**
 * IPv6 prefixes whose last 32 bits are an IPv4 address that a packet really goes to (an
 * IPv4-mapped address reaches it over IPv4; a DNS64 network's NAT64 gateway translates to
 * it), so that IPv4 address is judged instead. Public ones stay reachable for IPv6-only hosts.
 */
const CARRIES_IPV4 = blockListOf('ipv6', '::ffff:0:0/96', '64:ff9b::/96')

/** Everything else outside 2000::/3 is unassigned or special (IETF reserved), whatever future assignments there are. */
const GLOBAL_UNICAST = blockListOf('ipv6', '2000::/3')

/** Why `candidate` (an IP literal) is not a public address, or undefined when it is. */
export function nonPublicReason(candidate: string): string | undefined {
  const address = candidate.split('%')[0] ?? '' // a zone (fe80::1%eth0) does not change the range
  const family = isIP(address)
  if (family === 0) return 'not an IP address'
  if (family === 4) return IPV4_RULES.find((r) => r.list.check(address, 'ipv4'))?.label
  if (CARRIES_IPV4.check(address, 'ipv6')) {
    const inner = ipaddr.fromByteArray(ipaddr.parse(address).toByteArray().slice(12)).toString()
    const reason = nonPublicReason(inner)
    return reason ? `${reason} (${inner}, inside an IPv6 address)` : undefined
  }
  const rule = IPV6_RULES.find((r) => r.list.check(address, 'ipv6'))
  if (rule) return rule.label
  return GLOBAL_UNICAST.check(address, 'ipv6') ? undefined : 'a reserved address (outside the global unicast range 2000::/3)'
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
export async function resolveWebhookAddresses(
  url: URL,
  options: { allowPrivate: boolean; resolve?: Resolver },
): Promise<[ResolvedAddress, ...ResolvedAddress[]]> {
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
