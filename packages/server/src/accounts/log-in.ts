import { and, eq, isNull, sql } from 'drizzle-orm'
import { accountTokens, users } from '../db/schema.ts'
import { AppError, invalid } from '../errors.ts'
import { mailPasswordResetLink, mailVerificationLink } from './account-mail.ts'
import { consumeToken, findLiveToken } from './account-tokens.ts'
import type { Me } from './accounts.schemas.ts'
import { limitAccountMail, limitSignInAttempts, tooMany } from './address-limits.ts'
import { presentMe } from './me.ts'
import { checkNewPassword, hashPassword, passwordMatches, spendPasswordCheckTime } from './passwords.ts'
import { createSession, endUserSessions, type NewSession, type SignedInSession } from './sessions.ts'
import { afterAnswer, normalizeEmail, type AccountServices, type Client } from './sign-up.ts'

/** Failed sign-ins of one account in a row that lock it, and for how long. */
export const MAX_FAILED_LOGINS = 10
export const LOCK_MS = 15 * 60_000

const WRONG_CREDENTIALS = 'Wrong e-mail or password.'

export interface SignedIn {
  session: NewSession
  me: Me
}

/**
 * Sign-in: an unknown address and a wrong password give the same 401 after the same argon2
 * work. Limits: every attempt counts against the client's address (RATE_LIMITS sign-in per
 * hour), and MAX_FAILED_LOGINS failures in a row lock the account for LOCK_MS. The right
 * password on an unverified account answers 403 and mails a fresh verification link.
 */
export async function logIn(services: AccountServices, input: { email: string; password: string }, client: Client): Promise<SignedIn> {
  const { db, config } = services
  await limitSignInAttempts(services, client.ip)
  const email = normalizeEmail(input.email)
  await failuresBeingRecorded.get(email)
  const now = services.clock.now()
  const [user] = await db.select().from(users).where(eq(users.email, email))
  if (!user) {
    await spendPasswordCheckTime(input.password)
    throw new AppError('unauthenticated', WRONG_CREDENTIALS)
  }
  if (user.lockedUntil && user.lockedUntil > now) {
    throw tooMany('Too many failed sign-ins for this account.', Math.ceil((user.lockedUntil.getTime() - now.getTime()) / 1000))
  }
  if (!(await passwordMatches(user.passwordHash, input.password))) {
    recordFailedLoginAfterAnswer(services, email, user.id, now)
    throw new AppError('unauthenticated', WRONG_CREDENTIALS)
  }
  if (user.disabledAt) throw new AppError('forbidden', 'This account is disabled. Ask the operator of this Signet instance.')
  if (!user.emailVerifiedAt) {
    await resendVerification(services, user, client, now)
    throw new AppError('forbidden', `Verify your e-mail first: we sent a new confirmation link to ${user.email}.`)
  }
  const session = await db.transaction(async (tx) => {
    await tx.update(users).set({ failedLogins: 0, lockedUntil: null }).where(eq(users.id, user.id))
    return createSession(tx, config, { userId: user.id, ip: client.ip, userAgent: client.userAgent }, now)
  })
  return { session, me: await presentMe(db, user.id, session.orgId) }
}

/**
 * Failures being written, by address. The write runs after the answer (a wrong password must
 * not take longer than an unknown address); the next attempt for the same address in this
 * process waits for it, so the count is never read stale here.
 */
const failuresBeingRecorded = new Map<string, Promise<void>>()

function recordFailedLoginAfterAnswer(services: AccountServices, email: string, userId: string, now: Date): void {
  const recording = new Promise<void>((resolve) => setImmediate(resolve))
    .then(() => recordFailedLogin(services, userId, now))
    .catch((error: unknown) => services.logger.error({ err: error }, 'recording a failed sign-in failed'))
    .finally(() => {
      if (failuresBeingRecorded.get(email) === recording) failuresBeingRecorded.delete(email)
    })
  failuresBeingRecorded.set(email, recording)
}

/** One more failure; the MAX_FAILED_LOGINS-th locks the account and starts the count again. */
async function recordFailedLogin(services: AccountServices, userId: string, now: Date): Promise<void> {
  const locks = sql`${users.failedLogins} + 1 >= ${MAX_FAILED_LOGINS}`
  await services.db
    .update(users)
    .set({
      failedLogins: sql`case when ${locks} then 0 else ${users.failedLogins} + 1 end`,
      lockedUntil: sql`case when ${locks} then ${new Date(now.getTime() + LOCK_MS).toISOString()}::timestamptz else ${users.lockedUntil} end`,
    })
    .where(eq(users.id, userId))
}

/** A new link for an unverified account that signs in with the right password (within the per-address mail limit). */
async function resendVerification(services: AccountServices, user: { id: string; email: string; name: string }, client: Client, now: Date): Promise<void> {
  try {
    await limitAccountMail(services, client.ip)
  } catch (error) {
    if (error instanceof AppError && error.code === 'rate_limited') return
    throw error
  }
  await services.db.transaction((tx) => mailVerificationLink(tx, services.config, user, now))
  services.mail.kick()
}

/**
 * Mails a reset link when the address has an (enabled) account; the answer is the same, and
 * as fast, either way (the lookup runs after it).
 */
export async function forgotPassword(services: AccountServices, input: { email: string }, client: Client): Promise<{ message: string }> {
  await limitAccountMail(services, client.ip)
  const email = normalizeEmail(input.email)
  afterAnswer(services, 'password reset mail', async () => {
    const [user] = await services.db.select().from(users).where(eq(users.email, email))
    if (user && !user.disabledAt) await services.db.transaction((tx) => mailPasswordResetLink(tx, services.config, user, services.clock.now()))
  })
  return { message: `If ${email} has a Signet account, we sent it a link to choose a new password. The link works for one hour.` }
}

/**
 * A new password from a mailed link: the link works once, within an hour; using it ends every
 * session (whoever knew the old password is signed out), unlocks the account, confirms the
 * address (the mail reached it) and signs this browser in.
 */
export async function resetPassword(services: AccountServices, input: { token: string; password: string }, client: Client): Promise<SignedIn> {
  const { db, config } = services
  const now = services.clock.now()
  const found = await findLiveToken(db, 'reset_password', input.token, now)
  const [user] = await db.select().from(users).where(eq(users.id, found.userId ?? ''))
  if (!user || user.disabledAt) throw new AppError('gone', 'This password reset link no longer works. Ask the operator of this Signet instance.')
  checkNewPassword(input.password, user.email)
  const passwordHash = await hashPassword(input.password)
  const session = await db.transaction(async (tx) => {
    await consumeToken(tx, 'reset_password', input.token, now)
    // Any other reset link of this user dies with this one.
    await tx
      .update(accountTokens)
      .set({ usedAt: now })
      .where(and(eq(accountTokens.userId, user.id), eq(accountTokens.purpose, 'reset_password'), isNull(accountTokens.usedAt)))
    await tx
      .update(users)
      .set({ passwordHash, passwordChangedAt: now, failedLogins: 0, lockedUntil: null, emailVerifiedAt: user.emailVerifiedAt ?? now })
      .where(eq(users.id, user.id))
    await endUserSessions(tx, user.id)
    return createSession(tx, config, { userId: user.id, ip: client.ip, userAgent: client.userAgent }, now)
  })
  return { session, me: await presentMe(db, user.id, session.orgId) }
}

/** Needs the current password; ends the user's other sessions (this one stays). */
export async function changePassword(services: AccountServices, session: SignedInSession, input: { current_password: string; new_password: string }): Promise<void> {
  const { db } = services
  const [user] = await db.select().from(users).where(eq(users.id, session.userId))
  if (!user || !(await passwordMatches(user.passwordHash, input.current_password))) throw invalid('Your current password is not right.')
  checkNewPassword(input.new_password, user.email)
  const passwordHash = await hashPassword(input.new_password)
  await db.transaction(async (tx) => {
    await tx.update(users).set({ passwordHash, passwordChangedAt: services.clock.now() }).where(eq(users.id, user.id))
    await endUserSessions(tx, user.id, session.sessionId)
  })
}
