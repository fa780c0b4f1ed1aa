import type { FastifyReply, FastifyRequest } from 'fastify'
import type { NewSession } from '../accounts/sessions.ts'
import { SESSION_COOKIE } from '../accounts/sessions.ts'
import type { Config } from '../config.ts'
import { AppError } from '../errors.ts'

/** HttpOnly (no script reads it), SameSite=Lax (no cross-site POST carries it), Secure when the instance is served over HTTPS. */
function cookieOptions(config: Pick<Config, 'publicUrl'>) {
  return { httpOnly: true, sameSite: 'lax', path: '/', secure: config.publicUrl.startsWith('https:') } as const
}

export function setSessionCookie(reply: FastifyReply, config: Pick<Config, 'publicUrl'>, session: NewSession): void {
  reply.setCookie(SESSION_COOKIE, session.token, { ...cookieOptions(config), expires: session.expiresAt })
}

export function clearSessionCookie(reply: FastifyReply, config: Pick<Config, 'publicUrl'>): void {
  reply.clearCookie(SESSION_COOKIE, cookieOptions(config))
}

export function sessionTokenOf(request: FastifyRequest): string | undefined {
  const token = request.cookies[SESSION_COOKIE]
  return token ? token : undefined
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS'])

/**
 * CSRF: a browser names the page that sent a request in `Origin`; a state-changing request
 * riding on the session cookie must come from the dashboard itself (PUBLIC_URL's origin, or
 * the origin the request was addressed to). SameSite=Lax already keeps the cookie off
 * cross-site POSTs; this refuses what slips past it (a sibling subdomain, an old browser).
 */
export function requireSameOrigin(request: FastifyRequest, config: Pick<Config, 'publicUrl'>, { whenAbsent }: { whenAbsent: 'refuse' | 'allow' }): void {
  if (SAFE_METHODS.has(request.method)) return
  const origin = request.headers.origin
  if (origin === undefined) {
    if (whenAbsent === 'allow') return
    throw new AppError('forbidden', 'This request must come from the dashboard (its Origin header is missing).')
  }
  const allowed = [new URL(config.publicUrl).origin, `${request.protocol}://${request.host}`]
  if (!allowed.includes(origin)) throw new AppError('forbidden', 'This request must come from the dashboard: requests from other sites are refused.')
}
