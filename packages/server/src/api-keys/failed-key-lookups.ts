import ipaddr from 'ipaddr.js'

export const FAILED_LOOKUP_WINDOW_MS = 60_000

/** Clients tracked at once; past this the oldest window is forgotten (memory stays bounded under a flood of addresses). */
const MAX_CLIENTS = 100_000

/**
 * Which clients count as one: an IPv4 address alone; an IPv6 address by its /64, since a
 * subscriber is given at least a whole /64 and could otherwise pick a fresh address per try.
 */
export function clientKey(ip: string): string {
  if (!ipaddr.isValid(ip)) return ip
  const address = ipaddr.process(ip) // an IPv4-mapped IPv6 address (dual-stack socket) is its IPv4 address
  return address.kind() === 'ipv6' ? `${ipaddr.IPv6.networkAddressFromCIDR(`${address.toString()}/64`).toString()}/64` : address.toString()
}

/**
 * A brake on API-key lookups that find nothing. Each costs a database round trip, and keys
 * are 256-bit random, so repeated failures from one client are a flood, not a search that
 * could succeed. Per client, failures are counted in a fixed one-minute window opened by its
 * first failure; once `limit` have failed, that client's lookups are refused until the window
 * ends. Kept in memory, per process: the point is to spare the database, so the count must
 * not cost a query (with N processes a client gets at most N × limit lookups a minute).
 */
export class FailedKeyLookups {
  private readonly windows = new Map<string, { openedAt: number; failures: number }>()

  /** `limit` 0 turns the brake off. */
  constructor(
    private readonly limit: number,
    private readonly now: () => number,
  ) {}

  /** Seconds until `ip` may look keys up again, or undefined when it may now. */
  refusedForSeconds(ip: string): number | undefined {
    if (this.limit === 0) return undefined
    const window = this.openWindow(clientKey(ip))
    if (!window || window.failures < this.limit) return undefined
    return Math.max(1, Math.ceil((window.openedAt + FAILED_LOOKUP_WINDOW_MS - this.now()) / 1000))
  }

  recordFailure(ip: string): void {
    if (this.limit === 0) return
    const key = clientKey(ip)
    const window = this.openWindow(key)
    if (window) {
      window.failures++
      return
    }
    if (this.windows.size >= MAX_CLIENTS) {
      const oldest = this.windows.keys().next()
      if (!oldest.done) this.windows.delete(oldest.value)
    }
    this.windows.set(key, { openedAt: this.now(), failures: 1 })
  }

  /** The client's window, unless it has ended (then it is forgotten). */
  private openWindow(key: string) {
    const window = this.windows.get(key)
    if (window && window.openedAt + FAILED_LOOKUP_WINDOW_MS <= this.now()) {
      this.windows.delete(key)
      return undefined
    }
    return window
  }
}
