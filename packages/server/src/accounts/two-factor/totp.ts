import { randomBytes } from 'node:crypto'
import { createTOTPKeyURI, verifyHOTP } from '@oslojs/otp'
import { encodeBase32NoPadding } from '@oslojs/encoding'
import { and, eq, isNull, lt, or } from 'drizzle-orm'
import QRCode from 'qrcode'
import type { Db } from '../../db/client.ts'
import { users } from '../../db/schema.ts'

/**
 * TOTP (RFC 6238) as every authenticator app does it: SHA-1, 6 digits, 30-second steps, a
 * 160-bit secret. A code is accepted for the current step and one step either side (clock
 * drift), and each step's code works once: the step is claimed atomically.
 */
export const TOTP_PERIOD_SECONDS = 30
const TOTP_DIGITS = 6
const DRIFT_STEPS = 1
const SECRET_BYTES = 20

export const newTotpSecret = (): Uint8Array => new Uint8Array(randomBytes(SECRET_BYTES))

/** The secret as people type it into an app by hand: base32 in groups of four. */
export const typeableSecret = (secret: Uint8Array): string => encodeBase32NoPadding(secret).replace(/(.{4})(?=.)/g, '$1 ')

/** The otpauth:// URI apps read from the QR code; the issuer names this instance so one app can hold several. */
export const otpauthUri = (secret: Uint8Array, issuer: string, email: string): string =>
  createTOTPKeyURI(issuer, email, secret, TOTP_PERIOD_SECONDS, TOTP_DIGITS)

export const qrCodeSvg = (text: string): Promise<string> => QRCode.toString(text, { type: 'svg', errorCorrectionLevel: 'M', margin: 2 })

const CODE_PATTERN = /^[0-9]{6}$/

/** Spaces and dashes people type between the digits are ignored. */
export const cleanCode = (code: string): string => code.replace(/[\s-]/g, '')

/** The time step whose code this is (now ± DRIFT_STEPS), or null. Each comparison is constant-time. */
export function stepOfCode(secret: Uint8Array, code: string, now: Date): number | null {
  const digits = cleanCode(code)
  if (!CODE_PATTERN.test(digits)) return null
  const current = Math.floor(now.getTime() / 1000 / TOTP_PERIOD_SECONDS)
  let matched: number | null = null
  for (let step = current - DRIFT_STEPS; step <= current + DRIFT_STEPS; step++) {
    // Every step is checked, whichever matches: the time taken does not tell which did.
    if (verifyHOTP(secret, BigInt(step), TOTP_DIGITS, digits) && matched === null) matched = step
  }
  return matched
}

/**
 * Claims a step for the user: true for the first use of that step's code (or of a later step's),
 * false when it (or a later one) was used already — a code seen over someone's shoulder or
 * replayed from a log is refused.
 */
export async function claimTotpStep(db: Db, userId: string, step: number): Promise<boolean> {
  const claimed = await db
    .update(users)
    .set({ totpLastStep: step })
    .where(and(eq(users.id, userId), or(isNull(users.totpLastStep), lt(users.totpLastStep, step))))
    .returning({ id: users.id })
  return claimed.length > 0
}
