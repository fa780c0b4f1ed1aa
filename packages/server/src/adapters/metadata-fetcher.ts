import { request as httpsRequest } from 'node:https'
import type { LookupFunction } from 'node:net'
import { parseWebhookUrl, resolveWebhookAddresses } from '../webhooks/ssrf-guard.ts'

/**
 * Outbound GET of a small JSON document the server was pointed at by a client (an OAuth client's
 * metadata document, RFC draft "Client ID Metadata Document"): behind an interface so tests can
 * serve one without a public HTTPS host. Resolves with the response whatever its status.
 */
export type MetadataFetcher = (url: string, options: { headers: Headers; signal?: AbortSignal | null }) => Promise<Response>

/** More than any client's metadata needs; oidc-provider checks its own, smaller limit too. */
const MAX_DOCUMENT_BYTES = 64 * 1024

/**
 * The real fetcher: https only, through the webhooks' SSRF guard (every address the host
 * resolves to must be public unless WEBHOOK_ALLOW_PRIVATE, and the connection goes to the very
 * address checked), no redirects, a bounded body.
 */
export function guardedMetadataFetcher(options: { allowPrivate: boolean }): MetadataFetcher {
  return async (raw, { headers, signal }) => {
    const url = parseWebhookUrl(raw)
    if (url.protocol !== 'https:') throw new Error('a client metadata document must be served over https')
    const addresses = await resolveWebhookAddresses(url, options)
    const lookup: LookupFunction = (_hostname, lookupOptions, callback) => {
      if (lookupOptions.all) callback(null, addresses)
      else callback(null, addresses[0].address, addresses[0].family)
    }
    return new Promise<Response>((resolve, reject) => {
      const outgoing = httpsRequest(
        {
          host: url.hostname.replace(/^\[(.*)\]$/, '$1'),
          port: url.port || 443,
          path: `${url.pathname}${url.search}`,
          method: 'GET',
          headers: { ...Object.fromEntries(headers), host: url.host },
          lookup,
          agent: false,
          signal: signal ?? undefined,
        },
        (response) => {
          const chunks: Buffer[] = []
          let received = 0
          response.on('data', (chunk: Buffer) => {
            received += chunk.length
            if (received > MAX_DOCUMENT_BYTES) {
              outgoing.destroy()
              reject(new Error('the client metadata document is too large'))
            } else chunks.push(chunk)
          })
          response.on('end', () => {
            const responseHeaders = new Headers()
            for (const [name, value] of Object.entries(response.headers)) if (typeof value === 'string') responseHeaders.set(name, value)
            const status = response.statusCode ?? 502
            const bodyless = status < 200 || status === 204 || status === 205 || status === 304
            resolve(new Response(bodyless ? null : Buffer.concat(chunks), { status, headers: responseHeaders }))
          })
          response.on('error', reject)
        },
      )
      outgoing.on('error', reject)
      outgoing.end()
    })
  }
}
