import { createHmac, timingSafeEqual } from 'node:crypto'
import { createServer, type IncomingHttpHeaders } from 'node:http'
import type { AddressInfo } from 'node:net'
import { performance } from 'node:perf_hooks'

/** One request as the receiver saw it. */
export interface ReceivedWebhook {
  method: string
  path: string
  headers: IncomingHttpHeaders
  /** The raw body, byte for byte as sent (what the signatures cover). */
  body: string
  /** performance.now() when the whole body had arrived. */
  arrivedAt: number
  /** performance.now() when the sender dropped the connection of a request left unanswered. */
  abandonedAt?: number
  /** The status answered, or undefined when the receiver never answered. */
  answered?: number
  /** X-Service-Signature checked against the receiver's secret in constant time (undefined: no secret set). */
  signatureValid?: boolean
}

type Behaviour = { kind: 'status'; status: number } | { kind: 'hang' } | { kind: 'redirect'; location: string }

export interface WebhookReceiver {
  /** Where to register it, e.g. http://127.0.0.1:41234/hooks */
  url: string
  received: ReceivedWebhook[]
  /** The endpoint's secret, once registered: every request's X-Service-Signature is checked with it. */
  secret: string | undefined
  /** Answer the next `count` requests with `status` (500 by default), then 200 again. */
  failNext(count: number, status?: number): void
  /** Never answer (until close). */
  hang(): void
  /** Answer every request with a 302 to `location`. */
  redirectTo(location: string): void
  /** Resolves once `count` requests have arrived (throws after `timeoutMs`). */
  waitFor(count: number, timeoutMs?: number): Promise<ReceivedWebhook[]>
  /** How many requests arrive within `ms` from now (for "nothing arrives" checks). */
  countAfter(ms: number): Promise<number>
  close(): Promise<void>
}

/** Checks `sha256=<hex>` against the HMAC of the raw body, in constant time, as the spec tells receivers to. */
export function verifyServiceSignature(secret: string, body: string, header: string | string[] | undefined): boolean {
  if (typeof header !== 'string' || !/^sha256=[0-9a-f]{64}$/.test(header)) return false
  const expected = createHmac('sha256', secret).update(body).digest()
  return timingSafeEqual(expected, Buffer.from(header.slice('sha256='.length), 'hex'))
}

/**
 * Standard Webhooks verification, written from the spec (not from the server's code): the key
 * is the base64 part of `whsec_…`, the signed content `<webhook-id>.<webhook-timestamp>.<body>`,
 * the header a space-separated list of `v1,<base64>`; the timestamp must be recent.
 */
export function verifyStandardSignature(secret: string, body: string, headers: IncomingHttpHeaders, nowSeconds = Date.now() / 1000): boolean {
  const id = headers['webhook-id']
  const timestamp = headers['webhook-timestamp']
  const signatures = headers['webhook-signature']
  if (typeof id !== 'string' || typeof timestamp !== 'string' || typeof signatures !== 'string') return false
  if (!/^\d+$/.test(timestamp) || Math.abs(nowSeconds - Number(timestamp)) > 5 * 60) return false
  if (!secret.startsWith('whsec_')) return false
  const key = Buffer.from(secret.slice('whsec_'.length), 'base64')
  const expected = createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest()
  return signatures.split(' ').some((entry) => {
    const [version, signature] = entry.split(',')
    if (version !== 'v1' || !signature) return false
    const presented = Buffer.from(signature, 'base64')
    return presented.length === expected.length && timingSafeEqual(presented, expected)
  })
}

/** A real HTTP server on 127.0.0.1 that records webhook deliveries and answers as told. */
export async function startWebhookReceiver(): Promise<WebhookReceiver> {
  const received: ReceivedWebhook[] = []
  const waiters = new Set<() => void>()
  let failures: { count: number; status: number } = { count: 0, status: 500 }
  let mode: Behaviour = { kind: 'status', status: 200 }

  const next = (): Behaviour => {
    if (failures.count > 0) {
      failures = { ...failures, count: failures.count - 1 }
      return { kind: 'status', status: failures.status }
    }
    return mode
  }

  const server = createServer((request, response) => {
    const chunks: Buffer[] = []
    request.on('data', (chunk: Buffer) => chunks.push(chunk))
    request.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8')
      const entry: ReceivedWebhook = {
        method: request.method ?? '',
        path: request.url ?? '',
        headers: request.headers,
        body,
        arrivedAt: performance.now(),
        ...(receiver.secret ? { signatureValid: verifyServiceSignature(receiver.secret, body, request.headers['x-service-signature']) } : {}),
      }
      received.push(entry)
      for (const wake of waiters) wake()
      const behaviour = next()
      if (behaviour.kind === 'hang') {
        response.on('close', () => {
          if (!response.writableEnded) entry.abandonedAt = performance.now()
        })
        return
      }
      const status = behaviour.kind === 'redirect' ? 302 : behaviour.status
      entry.answered = status
      response.writeHead(status, {
        'content-type': 'application/json',
        ...(behaviour.kind === 'redirect' ? { location: behaviour.location } : {}),
      })
      response.end(JSON.stringify({ received: true }))
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo

  const receiver: WebhookReceiver = {
    url: `http://127.0.0.1:${port}/hooks`,
    received,
    secret: undefined,
    failNext(count, status = 500) {
      failures = { count, status }
    },
    hang() {
      mode = { kind: 'hang' }
    },
    redirectTo(location) {
      mode = { kind: 'redirect', location }
    },
    async waitFor(count, timeoutMs = 15_000) {
      if (received.length >= count) return received.slice(0, count)
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => {
          waiters.delete(check)
          reject(new Error(`expected ${count} webhook requests, got ${received.length} within ${timeoutMs} ms`))
        }, timeoutMs)
        const check = () => {
          if (received.length < count) return
          clearTimeout(timer)
          waiters.delete(check)
          resolve()
        }
        waiters.add(check)
      })
      return received.slice(0, count)
    },
    async countAfter(ms) {
      const before = received.length
      await new Promise((resolve) => setTimeout(resolve, ms))
      return received.length - before
    },
    async close() {
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
  return receiver
}
