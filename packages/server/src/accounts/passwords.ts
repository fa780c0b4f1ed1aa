import { readFileSync } from 'node:fs'
import { hash, verify, type Algorithm } from '@node-rs/argon2'
import { invalid } from '../errors.ts'

/**
 * Passwords: argon2id with OWASP's minimum parameters (19 MiB, 2 passes, 1 lane), hashed on
 * libuv's thread pool so the event loop keeps serving. NIST SP 800-63B rules: 8 to 128
 * characters, any characters, no composition rules, refused when it is a known common password.
 */
const ARGON2ID = 2 as Algorithm // Algorithm.Argon2id: a const enum, which type stripping cannot read.
const ARGON2_OPTIONS = { algorithm: ARGON2ID, memoryCost: 19_456, timeCost: 2, parallelism: 1 }

export const MIN_PASSWORD_LENGTH = 8
export const MAX_PASSWORD_LENGTH = 128

/**
 * About 11,000 of the most common leaked passwords and their usual variants (a word plus "1",
 * "123", "!", a year…), lower-cased, 8 characters and longer; compared case-insensitively.
 */
const COMMON_PASSWORDS = new Set(readFileSync(new URL('./common-passwords.txt', import.meta.url), 'utf8').split('\n').filter(Boolean))

/** Throws a 400 that says what to change; the password itself never appears in it. */
export function checkNewPassword(password: string, email?: string): void {
  const length = [...password].length
  if (length < MIN_PASSWORD_LENGTH) throw invalid(`Choose a password of at least ${MIN_PASSWORD_LENGTH} characters.`)
  if (length > MAX_PASSWORD_LENGTH) throw invalid(`Choose a password of at most ${MAX_PASSWORD_LENGTH} characters.`)
  const lower = password.toLowerCase()
  if (COMMON_PASSWORDS.has(lower)) throw invalid('This password is one of the most common ones, which attackers try first. Choose another.')
  if (email && lower === email.toLowerCase()) throw invalid('Choose a password other than your e-mail address.')
}

export const hashPassword = (password: string): Promise<string> => hash(password, ARGON2_OPTIONS)

/** Constant-time inside argon2; a malformed stored hash is a mismatch, never an exception. */
export async function passwordMatches(passwordHash: string, password: string): Promise<boolean> {
  try {
    return await verify(passwordHash, password)
  } catch {
    return false
  }
}

let dummyHash: Promise<string> | undefined

/**
 * Spends the time a real check takes when there is no account to check against, so that how
 * long a login takes does not tell whether the e-mail address has an account.
 */
export async function spendPasswordCheckTime(password: string): Promise<void> {
  dummyHash ??= hashPassword('signet-dummy-password-for-timing')
  await passwordMatches(await dummyHash, password)
}
