import { request as httpRequest, type ClientRequest, type IncomingMessage } from 'node:http'
import { request as httpsRequest } from 'node:https'
import type { LookupFunction } from 'node:net'
import { parseWebhookUrl, resolveWebhookAddresses, type Resolver } from './ssrf-guard.ts'

/** One POST of a delivery. */
export interface WebhookRequest {
  url: string
  headers: Record<string, string>
  body: string
  /** The whole attempt (resolution, connection, response) must finish within this. */
  timeoutMs: number
  /** Aborts the attempt (the dispatcher is stopping). */
  signal: AbortSignal
}

/**
 * Outbound HTTP for webhooks, behind an interface like the other side effects (adapters/),
 * so a test or another runtime can swap it. Resolves with the response status whatever it
 * is; rejects when no response arrived (refused URL, network error, timeout, abort).
 */
export interface WebhookTransport {
  post(request: WebhookRequest): Promise<WebhookResponse>
}

export interface WebhookResponse {
  statusCode: number
  /** The start of the response body as text (at most RESPONSE_EXCERPT_BYTES), for the dashboard's test event. */
  bodyExcerpt?: string
}

/** How much of a response body is kept to show (the rest is read and thrown away). */
export const RESPONSE_EXCERPT_BYTES = 1024

/** The part of a response body read (and thrown away) before the attempt counts as answered. */
const MAX_RESPONSE_BYTES = 64 * 1024

/**
 * The real transport: node:http(s), one connection per attempt, no redirects followed
 * (node's client never follows them; a 3xx is just a status), and the connection goes to
 * an address the SSRF guard checked, never to a second DNS answer. An IP-literal host is
 * connected to directly (node skips `lookup` for it); it was checked all the same.
 */
export function httpWebhookTransport(options: { allowPrivate: boolean; resolve?: Resolver }): WebhookTransport {
  return {
    post: (request) =>
      new Promise((resolve, reject) => {
        let outgoing: ClientRequest | undefined
        let settled = false
        const excerpt: Buffer[] = []
        let excerptBytes = 0
        const settle = (error: Error | undefined, statusCode?: number) => {
          if (settled) return
          settled = true
          clearTimeout(timer)
          request.signal.removeEventListener('abort', onAbort)
          outgoing?.destroy()
          if (error) reject(error)
          else resolve({ statusCode: statusCode ?? 0, bodyExcerpt: Buffer.concat(excerpt).toString('utf8') })
        }
        const timer = setTimeout(() => settle(new Error(`no response within ${request.timeoutMs / 1000} s (timed out)`)), request.timeoutMs)
        const onAbort = () => settle(new Error('aborted: the server is shutting down'))
        if (request.signal.aborted) {
          onAbort()
          return
        }
        request.signal.addEventListener('abort', onAbort, { once: true })

        const onResponse = (response: IncomingMessage) => {
          const statusCode = response.statusCode ?? 0
          let received = 0
          response.on('data', (chunk: Buffer) => {
            if (excerptBytes < RESPONSE_EXCERPT_BYTES) {
              const kept = chunk.subarray(0, RESPONSE_EXCERPT_BYTES - excerptBytes)
              excerpt.push(kept)
              excerptBytes += kept.length
            }
            received += chunk.length
            if (received > MAX_RESPONSE_BYTES) settle(undefined, statusCode)
          })
          response.on('end', () => settle(undefined, statusCode))
          response.on('error', (error) => settle(error))
        }

        const start = async () => {
          const url = parseWebhookUrl(request.url)
          const addresses = await resolveWebhookAddresses(url, options)
          if (settled) return
          // Name resolution for this connection answers with the addresses just checked, never
          // asks DNS again (rebinding); node still tries each of them in turn (happy eyeballs).
          const lookup: LookupFunction = (_hostname, lookupOptions, callback) => {
            if (lookupOptions.all) callback(null, addresses)
            else callback(null, addresses[0].address, addresses[0].family)
          }
          const secure = url.protocol === 'https:'
          outgoing = (secure ? httpsRequest : httpRequest)({
            host: url.hostname.replace(/^\[(.*)\]$/, '$1'),
            port: url.port || (secure ? 443 : 80),
            path: `${url.pathname}${url.search}`,
            method: 'POST',
            headers: { ...request.headers, host: url.host, 'content-length': String(Buffer.byteLength(request.body)) },
            lookup,
            agent: false,
          })
          outgoing.on('response', onResponse)
          outgoing.on('error', (error) => settle(error))
          outgoing.end(request.body)
        }
        start().catch((error: unknown) => settle(error instanceof Error ? error : new Error(String(error))))
      }),
  }
}
