/**
 * One call as openapi-fetch builds it, lighter than a fetch `Request`: `fetch(url, init)` builds
 * its own Request from it anyway, so building one first cost every call a second copy of the
 * URL, headers and body (about a tenth of a small read's client-side time, docs/benchmarks.md).
 * Its body is what openapi-fetch serialises (JSON text, bytes, a Blob or FormData), never a
 * stream, so the same value can be sent again on a retry.
 */
export class Outgoing {
  readonly url: string
  readonly method: string
  readonly headers: Headers
  // Named through RequestInit: a Node project's types (@types/node, without the DOM library) have
  // RequestInit but neither BodyInit nor RequestRedirect.
  readonly body: NonNullable<RequestInit['body']> | null
  readonly signal: AbortSignal | undefined
  readonly redirect: RequestInit['redirect']

  constructor(input: string | URL, init: RequestInit = {}) {
    this.url = String(input)
    this.method = (init.method ?? 'GET').toUpperCase()
    this.headers = init.headers instanceof Headers ? init.headers : new Headers(init.headers)
    this.body = init.body ?? null
    this.signal = init.signal ?? undefined
    this.redirect = init.redirect
  }

  /** The arguments of `fetch(url, init)`. */
  init(): RequestInit {
    return { method: this.method, headers: this.headers, body: this.body, signal: this.signal, redirect: this.redirect }
  }

  /** The same call (its body is not a stream: nothing to copy). */
  clone(): Outgoing {
    return this
  }
}

/** A call the retry loop can send: a fetch Request (`signet.request`) or an Outgoing (the typed methods). */
export type Sendable = Request | Outgoing

/** A fetch Request for a caller's own `fetch`, which takes one. */
export const asRequest = (sendable: Sendable): Request => (sendable instanceof Outgoing ? new Request(sendable.url, sendable.init()) : sendable)
