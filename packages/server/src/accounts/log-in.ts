import { and, eq, isNull } from 'drizzle-orm'
import type { Db } from '../db/client.ts'
import { accountTokens, users } from '../db/schema.ts'
import { AppError, invalid } from '../errors.ts'
import { recordAndNotify } from './account-events.ts'
import { mailPasswordResetLink } from './account-mail.ts'
import { consumeToken, findLiveToken } from './account-tokens.ts'
import { limitAccountMail } from './address-limits.ts'
import { checkNewPassword, hashPassword, withPasswordSlot } from './passwords.ts'
import { endUserSessions, type SignedInSession } from './sessions.ts'
import { checkPasswordAttempt, clearFailedSignIns, type UserRow } from './sign-in-attempts.ts'
import { afterRightPassword, type SignInOutcome } from './two-factor/sign-in-steps.ts'
import { mailSignUpLinkAgain, reserveAfterAnswer } from './sign-up.ts'
import { normalizeEmail, type AccountServices, type Client } from './account-context.ts'

const WRONG_CREDENTIALS = 'Wrong e-mail or password.'

/**
 * Sign-in: an unknown address and a wrong password give the same 401 after the same argon2
 * work. Limits (sign-in-attempts.ts): every attempt counts against the client's address
 * (RATE_LIMITS sign-in per hour) and is counted on the account before its password is checked,
 * so MAX_FAILED_LOGINS failures in a row lock the account for LOCK_MS however many arrive at
 * once. The right password on an unconfirmed account answers 403 and mails a fresh link; on an
 * account with a second factor it opens the step that asks for it instead of a session.
 */
export async function logIn(services: AccountServices, input: { email: string; password: string }, client: Client): Promise<SignInOutcome> {
  const user = await checkPasswordAttempt(services, { email: normalizeEmail(input.email) }, input.password, client)
  // No field: an unknown address and a wrong password must answer alike, so the refusal names neither value.
  if (!user) throw new AppError('unauthenticated', WRONG_CREDENTIALS)
  if (user.disabledAt) throw new AppError('forbidden', 'This account is disabled. Ask the operator of this Signet instance.')
  if (!user.emailVerifiedAt) {
    await clearFailedSignIns(services.db, user.id)
    await mailSignUpLinkAgainWithinLimit(services, user, client)
    throw new AppError('forbidden', `Verify your e-mail first: we sent a new confirmation link to ${user.email}.`)
  }
  return afterRightPassword(services, user, client, 'password')
}

/** A new link for an unconfirmed account that signs in with the right password (within the per-address mail limit). */
async function mailSignUpLinkAgainWithinLimit(services: AccountServices, user: UserRow, client: Client): Promise<void> {
  try {
    await limitAccountMail(services, client.ip)
  } catch (error) {
    if (error instanceof AppError && error.code === 'rate_limited') return
    throw error
  }
  await services.db.transaction((tx) => mailSignUpLinkAgain(tx, services.config, user, services.clock.now()))
  services.mail.kick()
}

/**
 * Mails a reset link when the address has an (enabled) account; the answer is the same, and
 * as fast, either way (the lookup runs after it).
 */
export async function forgotPassword(services: AccountServices, input: { email: string }, client: Client): Promise<{ message: string }> {
  const later = reserveAfterAnswer(services)
  try {
    await limitAccountMail(services, client.ip)
    const email = normalizeEmail(input.email)
    later.start('password reset mail', async () => {
      const [user] = await services.db.select().from(users).where(eq(users.email, email))
      if (user && !user.disabledAt) await services.db.transaction((tx) => mailPasswordResetLink(tx, services.config, user, services.clock.now()))
    })
    return { message: `If ${email} has a Signet account, we sent it a link to choose a new password. The link works for one hour.` }
  } finally {
    later.release()
  }
}

/** Every reset link of the user still unused stops working. */
async function endResetLinks(tx: Db, userId: string, now: Date): Promise<void> {
  await tx
    .update(accountTokens)
    .set({ usedAt: now })
    .where(and(eq(accountTokens.userId, userId), eq(accountTokens.purpose, 'reset_password'), isNull(accountTokens.usedAt)))
}

/**
 * A new password from a mailed link: the link works once, within an hour; using it ends every
 * session (whoever knew the old password is signed out), unlocks the account, confirms the
 * address (the mail reached it) and signs this browser in — after the second factor, when the
 * account has one (a mailbox alone must not be enough to get in). The user is told by mail,
 * unless the link finished an unconfirmed sign-up (there was no password of theirs to reset).
 */
export async function resetPassword(services: AccountServices, input: { token: string; password: string }, client: Client): Promise<SignInOutcome> {
  const { db, config } = services
  const now = services.clock.now()
  // The link's lookup waits in the password queue too: a flood of made-up links stays bounded.
  const { user, passwordHash } = await withPasswordSlot(async (argon2) => {
    const found = await findLiveToken(db, 'reset_password', input.token, now)
    const [user] = await db
      .select()
      .from(users)
      .where(eq(users.id, found.userId ?? ''))
    if (!user || user.disabledAt) throw new AppError('gone', 'This password reset link no longer works. Ask the operator of this Signet instance.')
    checkNewPassword(input.password, user.email)
    return { user, passwordHash: await argon2.hash(input.password) }
  })
  await db.transaction(async (tx) => {
    await consumeToken(tx, 'reset_password', input.token, now)
    // Any other reset link of this user dies with this one.
    await endResetLinks(tx, user.id, now)
    await tx
      .update(users)
      .set({ passwordHash, passwordChangedAt: now, failedLogins: 0, lockedUntil: null, emailVerifiedAt: user.emailVerifiedAt ?? now })
      .where(eq(users.id, user.id))
    await endUserSessions(tx, user.id)
    if (user.emailVerifiedAt) await recordAndNotify(tx, config, user, { kind: 'password.reset', origin: client }, now)
  })
  services.mail.kick()
  return afterRightPassword(services, user, client, 'link')
}

/**
 * Needs the current password, whose wrong guesses count like failed sign-ins (the same lock);
 * ends the user's other sessions (this one stays) and every reset link still unused (one
 * mailed before the change must not undo it), and tells the user by mail.
 */
export async function changePassword(
  services: AccountServices,
  session: SignedInSession,
  input: { current_password: string; new_password: string },
  client: Client,
): Promise<void> {
  checkNewPassword(input.new_password, session.email, '/new_password')
  const user = await checkPasswordAttempt(services, { userId: session.userId }, input.current_password, client)
  if (!user) throw invalid('Your current password is not right.', { field: '/current_password' })
  const passwordHash = await hashPassword(input.new_password)
  const now = services.clock.now()
  await services.db.transaction(async (tx) => {
    // The links first, then the user: the order resetPassword locks them in.
    await endResetLinks(tx, user.id, now)
    await tx.update(users).set({ passwordHash, passwordChangedAt: now, failedLogins: 0, lockedUntil: null }).where(eq(users.id, user.id))
    await endUserSessions(tx, user.id, session.sessionId)
    await recordAndNotify(tx, services.config, user, { kind: 'password.changed', origin: client }, now)
  })
  services.mail.kick()
}
