import { and, eq, lt, sql } from 'drizzle-orm'
import type { Db } from '../../db/client.ts'
import { authChallenges, type AuthChallengePurpose } from '../../db/schema.ts'
import { AppError } from '../../errors.ts'
import { digestsEqual, randomToken, sha256Hex } from '../../lib/crypto.ts'

/**
 * The short-lived steps of signing in and of setting up a second factor (table auth_challenges).
 * A step started before sign-in (a password accepted, a passkey sign-in begun) is named by a
 * random value the browser keeps in a cookie, stored here as SHA-256 only; a step started from
 * a session belongs to that session. Each lives minutes and allows a few wrong answers.
 */
const TTL_MS: Record<AuthChallengePurpose, number> = {
  second_factor: 5 * 60_000,
  passkey_sign_in: 5 * 60_000,
  passkey_registration: 10 * 60_000,
  totp_enrollment: 15 * 60_000,
}

/** Wrong codes one step allows; then it is gone and sign-in starts again with the password (which counts too). */
export const MAX_CHALLENGE_ATTEMPTS = 5

const TOKEN_PATTERN = /^[A-Za-z0-9_-]{43}$/

export type AuthChallenge = typeof authChallenges.$inferSelect

const SIGN_IN_AGAIN = 'This sign-in step has expired or had too many wrong codes. Sign in again.'
const START_AGAIN = 'This set-up step has expired. Start again.'

async function pruneExpired(tx: Db, now: Date): Promise<void> {
  await tx.delete(authChallenges).where(lt(authChallenges.expiresAt, now))
}

/** A step named by a cookie: returns the value for the cookie (the only time it exists in clear). */
export async function issueCookieChallenge(
  tx: Db,
  purpose: 'second_factor' | 'passkey_sign_in',
  details: { userId?: string; challenge?: string },
  now: Date,
): Promise<{ token: string; expiresAt: Date }> {
  await pruneExpired(tx, now)
  const token = randomToken(32)
  const expiresAt = new Date(now.getTime() + TTL_MS[purpose])
  await tx
    .insert(authChallenges)
    .values({ tokenHash: sha256Hex(token), purpose, userId: details.userId, challenge: details.challenge, createdAt: now, expiresAt })
  return { token, expiresAt }
}

/** The live step a cookie names, or 410 (unknown, expired or used up: the person signs in again). */
export async function findCookieChallenge(db: Db, purpose: 'second_factor' | 'passkey_sign_in', token: string | undefined, now: Date): Promise<AuthChallenge> {
  const presentedHash = token && TOKEN_PATTERN.test(token) ? sha256Hex(token) : null
  const [row] = presentedHash
    ? await db
        .select()
        .from(authChallenges)
        .where(and(eq(authChallenges.tokenHash, presentedHash), eq(authChallenges.purpose, purpose)))
    : []
  if (!row || !presentedHash || !row.tokenHash || !digestsEqual(row.tokenHash, presentedHash) || row.expiresAt <= now) {
    throw new AppError('gone', SIGN_IN_AGAIN)
  }
  return row
}

/** A step of a signed-in session (setting up TOTP or a passkey); replaces the session's earlier one of the same kind. */
export async function issueSessionChallenge(
  tx: Db,
  purpose: 'passkey_registration' | 'totp_enrollment',
  details: { userId: string; sessionId: string; challenge?: string; secretCiphertext?: Uint8Array },
  now: Date,
): Promise<AuthChallenge> {
  await pruneExpired(tx, now)
  await tx.delete(authChallenges).where(and(eq(authChallenges.sessionId, details.sessionId), eq(authChallenges.purpose, purpose)))
  const [row] = await tx
    .insert(authChallenges)
    .values({ purpose, ...details, createdAt: now, expiresAt: new Date(now.getTime() + TTL_MS[purpose]) })
    .returning()
  if (!row) throw new Error('insert returned no row')
  return row
}

export async function findSessionChallenge(db: Db, purpose: 'passkey_registration' | 'totp_enrollment', sessionId: string, now: Date): Promise<AuthChallenge> {
  const [row] = await db
    .select()
    .from(authChallenges)
    .where(and(eq(authChallenges.sessionId, sessionId), eq(authChallenges.purpose, purpose)))
  if (!row || row.expiresAt <= now) throw new AppError('gone', START_AGAIN)
  return row
}

/**
 * Reserves one answer before it is checked: the step's attempt count goes up now (at most
 * MAX_CHALLENGE_ATTEMPTS in flight or spent, however they arrive) and is given back on success
 * by deleting the step. 410 when none is left.
 */
export async function reserveAnswer(db: Db, id: string): Promise<void> {
  const [row] = await db
    .update(authChallenges)
    .set({ attempts: sql`${authChallenges.attempts} + 1` })
    .where(and(eq(authChallenges.id, id), lt(authChallenges.attempts, MAX_CHALLENGE_ATTEMPTS)))
    .returning({ id: authChallenges.id })
  if (!row) throw new AppError('gone', SIGN_IN_AGAIN)
}

/** Keeps a WebAuthn challenge with a step (the latest options asked for are the ones that count). */
export async function setChallenge(db: Db, id: string, challenge: string): Promise<void> {
  await db.update(authChallenges).set({ challenge }).where(eq(authChallenges.id, id))
}

/** Ends a step (it was answered, or its session changed what it was for). Returns false when it was already gone. */
export async function deleteChallenge(tx: Db, id: string): Promise<boolean> {
  const deleted = await tx.delete(authChallenges).where(eq(authChallenges.id, id)).returning({ id: authChallenges.id })
  return deleted.length > 0
}
