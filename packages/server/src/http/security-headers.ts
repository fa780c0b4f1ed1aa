import { ServerResponse, type IncomingMessage, type OutgoingHttpHeader, type OutgoingHttpHeaders } from 'node:http'

/** Content-Security-Policy directives a page opens beyond the locked-down base (sources as the header spells them). */
export type CspAllowances = Partial<Record<'script-src' | 'style-src' | 'img-src' | 'font-src' | 'connect-src' | 'worker-src' | 'form-action', string>>

/** Nothing loads, posts, or frames the page unless a page's allowances say so. */
const LOCKED_DOWN = { 'default-src': "'none'", 'base-uri': "'none'", 'form-action': "'none'", 'frame-ancestors': "'none'" }

/**
 * The security headers of one of our HTML pages: a CSP allowing only `allow` (no inline
 * script, no third-party resources, never framed: clickjacking), X-Frame-Options for
 * browsers without frame-ancestors, and no Referer (signing links carry their secret in the URL).
 *
 * `frameAncestors`: the origins that may frame the page (an embedded signer page: its workspace's
 * embed origins, checked origins only). With any, X-Frame-Options is left out: it can only say
 * DENY or SAMEORIGIN, which would contradict the list (browsers that know frame-ancestors ignore
 * it anyway; older ones then refuse nothing, the price of framing at all).
 */
export function pageSecurityHeaders(allow: CspAllowances, frameAncestors: readonly string[] = []): Record<string, string> {
  const framing = frameAncestors.length > 0 ? { 'frame-ancestors': frameAncestors.join(' ') } : {}
  const directives: Record<string, string> = { ...LOCKED_DOWN, ...allow, ...framing }
  return {
    'content-security-policy': Object.entries(directives)
      .map(([name, sources]) => `${name} ${sources}`)
      .join('; '),
    ...(frameAncestors.length > 0 ? {} : { 'x-frame-options': 'DENY' }),
    'referrer-policy': 'no-referrer',
  }
}

const NOSNIFF = 'x-content-type-options'

/**
 * Every response says its Content-Type is meant (`nosniff`), so a browser never runs a JSON
 * body that echoes client input as HTML or script. The server's response class adds it as the
 * headers are written, so that responses no Fastify hook reaches (routing errors, the 503 while
 * closing, the OAuth routes' own answers) carry it too.
 *
 * Added to the headers Fastify hands to writeHead, not set beforehand: a header set on the raw
 * response first makes Node merge Fastify's headers one setHeader call at a time (its "slow
 * case"), which cost the document read 15–20 µs per request (issue 21, docs/benchmarks.md).
 */
export class NosniffServerResponse<Request extends IncomingMessage = IncomingMessage> extends ServerResponse<Request> {
  override writeHead(
    statusCode: number,
    reasonOrHeaders?: string | OutgoingHttpHeaders | OutgoingHttpHeader[],
    headersAfterReason?: OutgoingHttpHeaders | OutgoingHttpHeader[],
  ): this {
    const headers = typeof reasonOrHeaders === 'string' ? headersAfterReason : reasonOrHeaders
    if (headers && !Array.isArray(headers) && Object.isExtensible(headers)) {
      if (headers[NOSNIFF] === undefined && !this.hasHeader(NOSNIFF)) headers[NOSNIFF] = 'nosniff'
    } else if (!this.hasHeader(NOSNIFF)) {
      // No header object (the headers were set one by one, or there are none), a raw array, or a frozen object: the ordinary way.
      this.setHeader(NOSNIFF, 'nosniff')
    }
    return typeof reasonOrHeaders === 'string' ? super.writeHead(statusCode, reasonOrHeaders, headersAfterReason) : super.writeHead(statusCode, reasonOrHeaders)
  }
}
