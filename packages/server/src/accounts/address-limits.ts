import { clientKey } from '../api-keys/failed-key-lookups.ts'
import { AppError } from '../errors.ts'
import { consumeRateLimit, RATE_LIMITS } from '../rate-limits/consume-rate-limit.ts'
import type { Services } from '../services.ts'

type LimitServices = Pick<Services, 'db' | 'clock' | 'config' | 'logger'>

/** "45 seconds", "12 minutes" */
export function describeWait(seconds: number): string {
  if (seconds < 60) return `${seconds} second${seconds === 1 ? '' : 's'}`
  const minutes = Math.ceil(seconds / 60)
  return `${minutes} minute${minutes === 1 ? '' : 's'}`
}

export const tooMany = (message: string, waitSeconds: number): AppError =>
  new AppError('rate_limited', `${message} Try again in ${describeWait(waitSeconds)}.`, {}, { 'retry-after': String(waitSeconds) })

/**
 * Per client address (an IPv6 client by its /64), on the same shared hourly counters as the
 * per-org API limits: whatever the accounts tried, one address gets RATE_LIMITS sign-in
 * attempts and account-mail requests an hour.
 */
async function limitAddress(
  services: LimitServices,
  policy: (typeof RATE_LIMITS)['signIn' | 'accountMail' | 'clientRegistration'],
  ip: string,
  message: string,
): Promise<void> {
  const decision = await consumeRateLimit(services, policy, `address:${clientKey(ip)}`)
  if (!decision.allowed) throw tooMany(message, decision.resetSeconds)
}

export const limitSignInAttempts = (services: LimitServices, ip: string): Promise<void> =>
  limitAddress(services, RATE_LIMITS.signIn, ip, 'Too many sign-in attempts from your network.')

export const limitAccountMail = (services: LimitServices, ip: string): Promise<void> =>
  limitAddress(services, RATE_LIMITS.accountMail, ip, 'Too many requests for account e-mails from your network.')

export const limitClientRegistrations = (services: LimitServices, ip: string): Promise<void> =>
  limitAddress(services, RATE_LIMITS.clientRegistration, ip, 'Too many OAuth client registrations from your network.')
