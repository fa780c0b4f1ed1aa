import type { Server } from 'node:http'

/** Content-Security-Policy directives a page opens beyond the locked-down base (sources as the header spells them). */
export type CspAllowances = Partial<Record<'script-src' | 'style-src' | 'img-src' | 'font-src' | 'connect-src' | 'worker-src' | 'form-action', string>>

/** Nothing loads, posts, or frames the page unless a page's allowances say so. */
const LOCKED_DOWN = { 'default-src': "'none'", 'base-uri': "'none'", 'form-action': "'none'", 'frame-ancestors': "'none'" }

/**
 * The security headers of one of our HTML pages: a CSP allowing only `allow` (no inline
 * script, no third-party resources, never framed: clickjacking), X-Frame-Options for
 * browsers without frame-ancestors, and no Referer (signing links carry their secret in the URL).
 */
export function pageSecurityHeaders(allow: CspAllowances): Record<string, string> {
  const directives: Record<string, string> = { ...LOCKED_DOWN, ...allow }
  return {
    'content-security-policy': Object.entries(directives)
      .map(([name, sources]) => `${name} ${sources}`)
      .join('; '),
    'x-frame-options': 'DENY',
    'referrer-policy': 'no-referrer',
  }
}

/**
 * Every response says its Content-Type is meant (`nosniff`), so a browser never runs a JSON
 * body that echoes client input as HTML or script. Set on the raw response before Fastify
 * sees the request, so that responses no Fastify hook reaches (routing errors, the 503 while
 * closing) carry it too.
 */
export function sendNosniffOnEveryResponse(server: Server): void {
  server.prependListener('request', (_request, response) => response.setHeader('x-content-type-options', 'nosniff'))
}
