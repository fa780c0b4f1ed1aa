import createClient from 'openapi-fetch'
import { queryString, type Api } from './api.ts'
import { documentsResource } from './documents.ts'
import { errorOf } from './errors.ts'
import type { paths } from './generated/openapi.ts'
import { bulkSendOf, sealsResource, templatesResource, usageResource, webhooksResource } from './resources.ts'
import { asRequest, Outgoing, type Sendable } from './outgoing.ts'
import { fetchWithRetries, sleep, type RetryPolicy } from './retry.ts'

export interface SignetOptions {
  /** An API key (sgn_live_…), from the dashboard's API keys page. */
  apiKey: string
  /** The Signet instance, e.g. https://sign.example.com (a trailing /api/v1 is accepted too). */
  baseUrl: string
  /** The fetch to send with (the global one by default): for proxies, tests, or a runtime without one. */
  fetch?: (request: Request) => Promise<Response>
  /** Retries after the first attempt for 429, 503 and (for safe requests) dropped connections: 3 by default, 0 to turn retrying off. */
  maxRetries?: number
  /** Sent as User-Agent, e.g. "my-app/1.2" (browsers may not let it through). */
  userAgent?: string
  /** The waits between retries and waitForCompletion's reads (tests pass one that does not wait). */
  sleep?: RetryPolicy['sleep']
  /** The jitter's source of randomness, a number in [0, 1) (tests pass a fixed one). */
  random?: () => number
}

/** The Signet API: `new Signet({ apiKey, baseUrl })`, then `signet.documents.create(…)`, `for await (const d of signet.documents.list())`… */
export class Signet {
  readonly documents
  readonly templates
  readonly seals
  readonly usage
  readonly webhooks
  /** POST /documents/bulk-send (Team plan and higher): one document per recipient; pass one idempotencyKey per batch to resume it safely. */
  readonly bulkSend
  readonly #send: (request: Sendable) => Promise<Response>
  readonly #apiUrl: string
  readonly #headers: Record<string, string>

  constructor(options: SignetOptions) {
    const custom = options.fetch
    const fetchOnce = custom
      ? (sendable: Sendable) => custom(asRequest(sendable))
      : (sendable: Sendable) => (sendable instanceof Outgoing ? globalThis.fetch(sendable.url, sendable.init()) : globalThis.fetch(sendable))
    const policy: RetryPolicy = { maxRetries: options.maxRetries ?? 3, sleep: options.sleep ?? sleep, random: options.random ?? Math.random }
    this.#apiUrl = options.baseUrl.replace(/\/+$/, '').replace(/\/api\/v1$/, '') + '/api/v1'
    this.#headers = { authorization: `Bearer ${options.apiKey}`, ...(options.userAgent ? { 'user-agent': options.userAgent } : {}) }
    this.#send = (request) => fetchWithRetries(fetchOnce, request, policy)
    // openapi-fetch builds each call with the `Request` class it is given and hands it to `fetch`.
    const client = createClient<paths>({ baseUrl: this.#apiUrl, headers: this.#headers, Request: Outgoing as unknown as typeof Request, fetch: this.#send })
    // Every read sends the same headers: one Headers, made once (fetch copies it into its own request).
    const readHeaders = new Headers(this.#headers)
    const read = async <T>(path: string, query?: object, signal?: AbortSignal): Promise<T> => {
      const response = await this.#send(new Outgoing(this.#apiUrl + path + queryString(query), { headers: readHeaders, signal }))
      if (!response.ok) throw await errorOf(response)
      return (await response.json()) as T
    }
    const api: Api = { client, policy, read }
    this.documents = documentsResource(api)
    this.templates = templatesResource(api)
    this.seals = sealsResource(api)
    this.usage = usageResource(api)
    this.webhooks = webhooksResource(api)
    this.bulkSend = bulkSendOf(api)
  }

  /**
   * Any route, for what the typed methods do not cover: `path` is relative to /api/v1
   * (`/documents/counts?search=nda`). Sent with the key and the retry policy; a non-2xx answer is
   * thrown as a SignetError, a 2xx one is returned as it is (read it with .json(), .arrayBuffer()…).
   */
  async request(method: string, path: string, init: RequestInit & { idempotencyKey?: string } = {}): Promise<Response> {
    const { idempotencyKey, ...rest } = init
    const headers = new Headers(this.#headers)
    new Headers(rest.headers).forEach((value, name) => headers.set(name, value))
    if (idempotencyKey !== undefined) headers.set('idempotency-key', idempotencyKey)
    const response = await this.#send(new Request(this.#apiUrl + path, { ...rest, method, headers }))
    if (!response.ok) throw await errorOf(response)
    return response
  }
}
