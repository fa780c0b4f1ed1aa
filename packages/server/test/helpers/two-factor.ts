import { decodeBase32IgnorePadding } from '@oslojs/encoding'
import { generateHOTP } from '@oslojs/otp'
import type { Clock } from '../../src/adapters/clock.ts'
import { SIGN_IN_STEP_COOKIE } from '../../src/http/session-cookie.ts'
import { bodyOf } from './api.ts'
import { sessionCookieOf, sessionFetch, type SessionFetch } from './session.ts'
import type { SoftAuthenticator } from './soft-authenticator.ts'

/** Two-factor sign-in from a test: codes as an authenticator app computes them, the sign-in step's cookie. */

export const TOTP_PERIOD_MS = 30_000

/** The code an authenticator app shows at the clock's time for a secret as the set-up page shows it ("ABCD EFGH …"). */
export function totpCode(secret: string, clock: Clock, offsetSteps = 0): string {
  const key = decodeBase32IgnorePadding(secret.replace(/\s/g, ''))
  const step = Math.floor(clock.now().getTime() / TOTP_PERIOD_MS) + offsetSteps
  return generateHOTP(key, BigInt(step), 6)
}

export function stepCookieOf(response: Response): string | undefined {
  for (const header of response.headers.getSetCookie()) {
    const match = new RegExp(`^${SIGN_IN_STEP_COOKIE}=([^;]*)`).exec(header)
    if (match?.[1]) return match[1]
  }
  return undefined
}

/** A browser without a session: posts JSON with the dashboard's Origin and whatever sign-in step cookie it was given. */
export function anonymousBrowser(baseUrl: string) {
  let stepCookie: string | undefined
  const call = (path: string, json?: unknown): Promise<Response> => {
    const headers: Record<string, string> = { origin: new URL(baseUrl).origin }
    if (stepCookie) headers.cookie = `${SIGN_IN_STEP_COOKIE}=${stepCookie}`
    if (json !== undefined) headers['content-type'] = 'application/json'
    return fetch(baseUrl + path, { method: 'POST', headers, body: json === undefined ? undefined : JSON.stringify(json) }).then((response) => {
      stepCookie = stepCookieOf(response) ?? stepCookie
      return response
    })
  }
  return {
    post: call,
    get stepCookie() {
      return stepCookie
    },
    forgetStep() {
      stepCookie = undefined
    },
    logIn: (email: string, password: string) => call('/api/v1/auth/login', { email, password }),
  }
}

/** Sets up TOTP for a signed-in user; returns the secret as shown and the recovery codes. */
export async function enableTotp(fetchAs: SessionFetch, password: string, clock: Clock): Promise<{ secret: string; recoveryCodes: string[] | null }> {
  const setup = await fetchAs('/api/v1/me/two-factor/totp', { method: 'POST' })
  if (setup.status !== 200) throw new Error(`TOTP set-up answered ${setup.status}: ${await setup.text()}`)
  const { secret } = await bodyOf<{ secret: string }>(setup)
  const confirm = await fetchAs('/api/v1/me/two-factor/totp/confirm', { method: 'POST', json: { code: totpCode(secret, clock), password } })
  if (confirm.status !== 200) throw new Error(`TOTP confirm answered ${confirm.status}: ${await confirm.text()}`)
  return { secret, recoveryCodes: (await bodyOf<{ recovery_codes: string[] | null }>(confirm)).recovery_codes }
}

/** Adds a passkey made by the software authenticator. */
export async function addSoftPasskey(fetchAs: SessionFetch, password: string, authenticator: SoftAuthenticator, name = 'Test key'): Promise<Response> {
  const options = await fetchAs('/api/v1/me/passkeys/options', { method: 'POST', json: { password } })
  if (options.status !== 200) throw new Error(`passkey options answered ${options.status}: ${await options.text()}`)
  const { options: creation } = await bodyOf<{ options: Record<string, unknown> }>(options)
  return fetchAs('/api/v1/me/passkeys', { method: 'POST', json: { name, response: authenticator.register(creation) } })
}

/** A session fetch for the cookie a sign-in response set. */
export function sessionFrom(baseUrl: string, response: Response): SessionFetch {
  const cookie = sessionCookieOf(response)
  if (!cookie) throw new Error('the response set no session cookie')
  return sessionFetch(baseUrl, cookie)
}
