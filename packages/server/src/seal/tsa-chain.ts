import { HttpTimestampAuthority, type DigestAlgorithm, type TimestampAuthority } from '@libpdf/core'
import { readTimestampToken } from './timestamp-token.ts'

/** A time-stamp authority with a name for logs and failure reports ('local', or the URL's host). */
export interface NamedTimestampAuthority extends TimestampAuthority {
  readonly name: string
}

const DEFAULT_TIMEOUT_MS = 10_000

export function httpTimestampAuthority(url: string, options: { timeoutMs?: number } = {}): NamedTimestampAuthority {
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS
  // libpdf's own timeout is cleared once the response headers arrive; this deadline also
  // covers the body, so a TSA that stalls mid-reply cannot hold a seal indefinitely.
  const fetchWithDeadline: typeof fetch = async (input, init) => {
    const deadline = AbortSignal.timeout(timeoutMs)
    try {
      return await fetch(input, { ...init, signal: init?.signal ? AbortSignal.any([init.signal, deadline]) : deadline })
    } catch (error) {
      // Node's fetch says only "fetch failed"; its cause says why (ECONNREFUSED, ENOTFOUND, a TLS error).
      if (error instanceof TypeError && error.cause instanceof Error) throw new TypeError(`${error.message} (${error.cause.message})`, { cause: error.cause })
      throw error
    }
  }
  const client = new HttpTimestampAuthority(url, { timeout: timeoutMs, fetch: fetchWithDeadline })
  return { name: new URL(url).host, timestamp: (digest, algorithm) => client.timestamp(digest, algorithm) }
}

export interface TimestampFailure {
  tsa: string
  reason: string
}

/** Every authority failed: the seal must not be made (an untimed seal is never a fallback); retry later. */
export class TimestampUnavailableError extends Error {
  override readonly name = 'TimestampUnavailableError'
  readonly failures: TimestampFailure[]

  constructor(failures: TimestampFailure[]) {
    super(`no time-stamp authority produced a token: ${failures.map(({ tsa, reason }) => `${tsa}: ${reason}`).join('; ')}`)
    this.failures = failures
  }
}

/** A token must stamp what was asked; one that does not would leave the signature without a valid time-stamp. */
function assertAnswers(token: Uint8Array, digest: Uint8Array, algorithm: DigestAlgorithm): void {
  const facts = readTimestampToken(token)
  if (facts.hashAlgorithm !== algorithm || !Buffer.from(facts.messageImprint).equals(digest)) {
    throw new Error('the token time-stamps a different digest than the one requested')
  }
}

/**
 * Tries each authority in order; the first valid token wins. Throws
 * TimestampUnavailableError listing every failure when all fail.
 */
export function timestampAuthorityChain(authorities: NamedTimestampAuthority[]): NamedTimestampAuthority & { lastServedBy(): string | null } {
  if (authorities.length === 0) throw new Error('a time-stamp authority chain needs at least one authority')
  let lastServedBy: string | null = null
  return {
    name: authorities.map((authority) => authority.name).join(', '),
    /** The authority behind the most recent token. Shared by concurrent seals: read the token itself for per-seal facts. */
    lastServedBy: () => lastServedBy,
    async timestamp(digest, algorithm) {
      const failures: TimestampFailure[] = []
      for (const authority of authorities) {
        try {
          const token = await authority.timestamp(digest, algorithm)
          assertAnswers(token, digest, algorithm)
          lastServedBy = authority.name
          return token
        } catch (error) {
          failures.push({ tsa: authority.name, reason: error instanceof Error ? error.message : String(error) })
        }
      }
      throw new TimestampUnavailableError(failures)
    },
  }
}
