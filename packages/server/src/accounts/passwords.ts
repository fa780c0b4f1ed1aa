import { readFileSync } from 'node:fs'
import { availableParallelism } from 'node:os'
import { hash, verify, type Algorithm } from '@node-rs/argon2'
import { invalid } from '../errors.ts'
import { BoundedWork, busyWithSignIns } from './bounded-work.ts'

/**
 * Passwords: argon2id with OWASP's minimum parameters (19 MiB, 2 passes, 1 lane), hashed on
 * libuv's thread pool so the event loop keeps serving. NIST SP 800-63B rules: 8 to 128
 * characters, any characters, no composition rules, refused when it is a known common password,
 * and compared after Unicode normalisation (NFKC), so that "é" typed as one character or as
 * "e" and an accent is the same password.
 */
const ARGON2ID = 2 as Algorithm // Algorithm.Argon2id: a const enum, which type stripping cannot read.
const ARGON2_OPTIONS = { algorithm: ARGON2ID, memoryCost: 19_456, timeCost: 2, parallelism: 1 }

export const MIN_PASSWORD_LENGTH = 8
export const MAX_PASSWORD_LENGTH = 128

/**
 * Every hash and check waits its turn here. argon2 takes about 30 ms of a core and 19 MiB per
 * call: a few at a time (one core stays with the event loop, and libuv's four threads keep one
 * for file and DNS work), a short queue (about a second of waiting), and a 503 with
 * Retry-After beyond it, so that a flood of sign-ups or sign-ins cannot freeze the server or
 * exhaust its memory: it only makes the surplus try again.
 */
const HASHING_THREADS = Math.max(1, Math.min(3, availableParallelism() - 1))
const passwordWork = new BoundedWork({ concurrency: HASHING_THREADS, queue: 32 * HASHING_THREADS, busy: busyWithSignIns(2) })

/**
 * About 11,000 of the most common leaked passwords and their usual variants (a word plus "1",
 * "123", "!", a year…), lower-cased, 8 characters and longer; compared case-insensitively.
 */
const COMMON_PASSWORDS = new Set(
  readFileSync(new URL('./common-passwords.txt', import.meta.url), 'utf8')
    .split('\n')
    .filter(Boolean),
)

/** NIST SP 800-63B 5.1.1.2: NFKC, so that equivalent ways of typing a character are one password. */
const normalizePassword = (password: string): string => password.normalize('NFKC')

/**
 * Throws a 400 that says what to change; the password itself never appears in it. `field` is
 * where the request carries the password (`/new_password` when changing it).
 */
export function checkNewPassword(password: string, email?: string, field = '/password'): void {
  const normalized = normalizePassword(password)
  const length = [...normalized].length
  if (length < MIN_PASSWORD_LENGTH) throw invalid(`Choose a password of at least ${MIN_PASSWORD_LENGTH} characters.`, { field })
  if (length > MAX_PASSWORD_LENGTH) throw invalid(`Choose a password of at most ${MAX_PASSWORD_LENGTH} characters.`, { field })
  const lower = normalized.toLowerCase()
  if (COMMON_PASSWORDS.has(lower)) throw invalid('This password is one of the most common ones, which attackers try first. Choose another.', { field })
  if (email && lower === email.toLowerCase()) throw invalid('Choose a password other than your e-mail address.', { field })
}

/** 'legacy': the hash was made, before passwords were normalised, from the text exactly as typed; store a new one. */
export type PasswordVerdict = 'match' | 'legacy' | 'mismatch'

/** The argon2 work a password slot offers (withPasswordSlot). */
export interface PasswordHashing {
  /** The argon2id hash of the normalised password. */
  hash(password: string): Promise<string>
  /** Constant-time inside argon2; a malformed stored hash is a mismatch, never an exception. */
  verify(passwordHash: string, password: string): Promise<PasswordVerdict>
  /**
   * The same work against a hash no password matches, when there is no account to check
   * against: how long a sign-in takes does not tell whether the address has an account.
   */
  spendTime(password: string): Promise<void>
}

/** The forms a stored hash may have been made from: normalised, and (hashes made before normalisation) as typed. */
function candidatesOf(password: string): string[] {
  const normalized = normalizePassword(password)
  return normalized === password ? [normalized] : [normalized, password]
}

async function matchesHash(passwordHash: string, candidate: string): Promise<boolean> {
  try {
    return await verify(passwordHash, candidate)
  } catch {
    return false
  }
}

let dummyHash: Promise<string> | undefined

const argon2: PasswordHashing = {
  hash: (password) => hash(normalizePassword(password), ARGON2_OPTIONS),
  async verify(passwordHash, password) {
    const [normalized = '', asTyped] = candidatesOf(password)
    if (await matchesHash(passwordHash, normalized)) return 'match'
    if (asTyped !== undefined && (await matchesHash(passwordHash, asTyped))) return 'legacy'
    return 'mismatch'
  },
  async spendTime(password) {
    dummyHash ??= hash('signet-dummy-password-for-timing', ARGON2_OPTIONS)
    const nobodys = await dummyHash
    for (const candidate of candidatesOf(password)) await matchesHash(nobodys, candidate)
  },
}

/**
 * Runs `work` in a password slot, in its turn: 503 with Retry-After at once when the queue is
 * full, before anything is done. The work does its argon2 calls through the object it is given,
 * and may query the database too: a sign-in's queries then wait in the same queue, so what a
 * flood of them asks of the database is as bounded as their hashing. (Inside a slot, never call
 * hashPassword: it would wait for a second slot.)
 */
export function withPasswordSlot<T>(work: (hashing: PasswordHashing) => Promise<T>): Promise<T> {
  return passwordWork.run(() => work(argon2))
}

/**
 * The same 503 as withPasswordSlot's, for a request that will need a slot, before its body is
 * read and parsed: under a flood, most requests are refused at the least cost.
 */
export function refuseWhenPasswordQueueIsFull(): void {
  passwordWork.refuseWhenFull()
}

export const hashPassword = (password: string): Promise<string> => withPasswordSlot((hashing) => hashing.hash(password))

/** True when the password matches the hash (in either form). Unthrottled: a sign-in or a current password goes through sign-in-attempts.ts. */
export async function passwordMatches(passwordHash: string, password: string): Promise<boolean> {
  return (await withPasswordSlot((hashing) => hashing.verify(passwordHash, password))) !== 'mismatch'
}
