import type { FastifyReply, FastifyRequest } from 'fastify'
import type { SignedIn } from '../accounts/complete-sign-in.ts'
import type { NewSession } from '../accounts/sessions.ts'
import type { SignInOutcome } from '../accounts/two-factor/sign-in-steps.ts'
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

/** The cookie that names a sign-in step (a password accepted, a passkey sign-in begun): only the sign-in routes see it. */
export const SIGN_IN_STEP_COOKIE = 'signet_sign_in_step'

const stepCookieOptions = (config: Pick<Config, 'publicUrl'>) =>
  ({ httpOnly: true, sameSite: 'strict', path: '/api/v1/auth', secure: config.publicUrl.startsWith('https:') }) as const

export function setSignInStepCookie(reply: FastifyReply, config: Pick<Config, 'publicUrl'>, token: string, expiresAt: Date): void {
  reply.setCookie(SIGN_IN_STEP_COOKIE, token, { ...stepCookieOptions(config), expires: expiresAt })
}

export const signInStepTokenOf = (request: FastifyRequest): string | undefined => request.cookies[SIGN_IN_STEP_COOKIE] || undefined

/** Signed in: the new session's cookie (the sign-in step, if any, is over) and the Me body. */
export function sendSignedIn(reply: FastifyReply, config: Pick<Config, 'publicUrl'>, signedIn: SignedIn): FastifyReply {
  if (reply.request.cookies[SIGN_IN_STEP_COOKIE]) reply.clearCookie(SIGN_IN_STEP_COOKIE, stepCookieOptions(config))
  setSessionCookie(reply, config, signedIn.session)
  return reply.send(signedIn.me)
}

/** A session, or 202 with the step cookie when the account's second factor must follow. */
export function sendSignInOutcome(reply: FastifyReply, config: Pick<Config, 'publicUrl'>, outcome: SignInOutcome): FastifyReply {
  if ('signedIn' in outcome) return sendSignedIn(reply, config, outcome.signedIn)
  setSignInStepCookie(reply, config, outcome.secondFactor.token, outcome.secondFactor.expiresAt)
  return reply.status(202).send(outcome.secondFactor.answer)
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
