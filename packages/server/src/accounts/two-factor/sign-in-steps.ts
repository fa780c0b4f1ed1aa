import type { AuthenticationResponseJSON } from '@simplewebauthn/server'
import { eq } from 'drizzle-orm'
import type { Db } from '../../db/client.ts'
import { users } from '../../db/schema.ts'
import { AppError } from '../../errors.ts'
import { recordAndNotify } from '../account-events.ts'
import type { Client } from '../account-context.ts'
import { completeSignIn, type SignedIn } from '../complete-sign-in.ts'
import { refuseLockedAccount, reserveSignInAttempt } from '../sign-in-attempts.ts'
import type { AccountServices } from '../account-context.ts'
import { deleteChallenge, findCookieChallenge, issueCookieChallenge, reserveAnswer, setChallenge, type AuthChallenge } from './challenges.ts'
import { authenticationOptions, passkeysOf, relyingPartyOf, verifyPasskeyAnswer } from './passkeys.ts'
import { remainingRecoveryCodes, useRecoveryCode } from './recovery-codes.ts'
import { claimTotpStep, stepOfCode } from './totp.ts'
import { totpContext, type TwoFactorServices } from './two-factor-services.ts'
import type { SecondFactorMethod, SecondFactorNeeded } from './two-factor.schemas.ts'

/*
 * Signing in with a second factor. After a right password, an account with a second factor gets
 * a sign-in step (a cookie, five minutes, five answers) instead of a session; the step is
 * finished with a code from the authenticator app, a passkey or a recovery code. Every wrong
 * answer also counts against the account's lockout, like a wrong password: however the guesses
 * are spread over steps and passwords, no more than the lockout allows are checked.
 * A passkey may also sign in on its own (it proves possession and, with user verification,
 * a PIN or biometric): no password, no further step.
 */

const WRONG_CODE = 'That code is not right, or it was used already. Enter the code your authenticator app shows now.'
const WRONG_RECOVERY_CODE = 'That recovery code is not right, or it was used already.'

/** The second factors the user has set up, in the order the sign-in page offers them; empty when none. */
export async function secondFactorsOf(db: Db, userId: string): Promise<SecondFactorMethod[]> {
  const [user] = await db.select({ totpEnabledAt: users.totpEnabledAt }).from(users).where(eq(users.id, userId))
  const methods: SecondFactorMethod[] = []
  if ((await passkeysOf(db, userId)).length > 0) methods.push('passkey')
  if (user?.totpEnabledAt) methods.push('totp')
  if (methods.length > 0 && (await remainingRecoveryCodes(db, userId)) > 0) methods.push('recovery_code')
  return methods
}

/** What a right password (or a reset link) leads to: a session, or the step that asks for the account's second factor. */
export type SignInOutcome = { signedIn: SignedIn } | { secondFactor: { token: string; expiresAt: Date; answer: SecondFactorNeeded } }

export async function afterRightPassword(services: AccountServices, user: { id: string }, client: Client, method: 'password' | 'link'): Promise<SignInOutcome> {
  const methods = await secondFactorsOf(services.db, user.id)
  if (methods.length === 0) return { signedIn: await completeSignIn(services, user, client, { method, secondFactor: false }) }
  const { token, expiresAt } = await issueCookieChallenge(services.db, 'second_factor', { userId: user.id }, services.clock.now())
  return { secondFactor: { token, expiresAt, answer: { second_factor_required: true, methods, expires_at: expiresAt.toISOString() } } }
}

/** The live step and its user, with one answer reserved (against the step and against the account's lockout). */
async function reserveStepAnswer(services: TwoFactorServices, token: string | undefined) {
  const now = services.clock.now()
  const step = await findCookieChallenge(services.db, 'second_factor', token, now)
  const [user] = await services.db
    .select()
    .from(users)
    .where(eq(users.id, step.userId ?? ''))
  if (!user || user.disabledAt) throw new AppError('gone', 'This sign-in step has expired or had too many wrong codes. Sign in again.')
  refuseLockedAccount(user, now)
  await reserveAnswer(services.db, step.id)
  await reserveSignInAttempt(services, user.id)
  return { step, user, now }
}

/** The step was answered: it is used up (a concurrent right answer loses) and the session starts. */
async function finishStep(
  services: TwoFactorServices,
  step: AuthChallenge,
  user: typeof users.$inferSelect,
  client: Client,
  method: 'password+totp' | 'password+passkey' | 'password+recovery_code',
): Promise<SignedIn> {
  if (!(await deleteChallenge(services.db, step.id))) throw new AppError('gone', 'This sign-in step has already been used. Sign in again.')
  return completeSignIn(services, user, client, { method, secondFactor: true })
}

/** A wrong answer: already counted against the step and the account (reserveStepAnswer). */
function wrongAnswer(message: string): never {
  throw new AppError('unauthenticated', message)
}

export async function finishWithTotp(services: TwoFactorServices, token: string | undefined, code: string, client: Client): Promise<SignedIn> {
  const { step, user, now } = await reserveStepAnswer(services, token)
  if (!user.totpSecretCiphertext) return wrongAnswer('No authenticator app is set up for this account: use another way to sign in.')
  const secret = await services.secrets.decrypt(user.totpSecretCiphertext, totpContext(user.id))
  const matched = stepOfCode(secret, code, now)
  if (matched === null || !(await claimTotpStep(services.db, user.id, matched))) return wrongAnswer(WRONG_CODE)
  return finishStep(services, step, user, client, 'password+totp')
}

export async function finishWithRecoveryCode(services: TwoFactorServices, token: string | undefined, code: string, client: Client): Promise<SignedIn> {
  const { step, user, now } = await reserveStepAnswer(services, token)
  if (!(await useRecoveryCode(services.db, user.id, code, now))) return wrongAnswer(WRONG_RECOVERY_CODE)
  const left = await remainingRecoveryCodes(services.db, user.id)
  await services.db.transaction((tx) =>
    recordAndNotify(
      tx,
      services.config,
      user,
      { kind: 'recovery_code.used', origin: { ip: client.ip, userAgent: client.userAgent }, details: { codes_left: left } },
      now,
    ),
  )
  services.mail.kick()
  return finishStep(services, step, user, client, 'password+recovery_code')
}

/** Options for answering the step with one of the user's passkeys; the challenge is kept with the step. */
export async function passkeyOptionsForStep(services: TwoFactorServices, token: string | undefined) {
  const now = services.clock.now()
  const step = await findCookieChallenge(services.db, 'second_factor', token, now)
  const options = await authenticationOptions(relyingPartyOf(services.config), await passkeysOf(services.db, step.userId ?? ''))
  await setChallenge(services.db, step.id, options.challenge)
  return { options: options as unknown as Record<string, unknown> }
}

export async function finishWithPasskey(
  services: TwoFactorServices,
  token: string | undefined,
  response: AuthenticationResponseJSON,
  client: Client,
): Promise<SignedIn> {
  const { step, user, now } = await reserveStepAnswer(services, token)
  if (!step.challenge) throw new AppError('conflict', 'Ask for the passkey options first.')
  await verifyPasskeyAnswer(
    services.db,
    relyingPartyOf(services.config),
    { expectedChallenge: step.challenge, response, userId: user.id, requireUserVerification: false },
    now,
  )
  return finishStep(services, step, user, client, 'password+passkey')
}

/** Passkey-only sign-in, first half: options any passkey of this site may answer, and the cookie that keeps the challenge. */
export async function startPasskeySignIn(services: TwoFactorServices) {
  const options = await authenticationOptions(relyingPartyOf(services.config), null)
  const { token, expiresAt } = await issueCookieChallenge(services.db, 'passkey_sign_in', { challenge: options.challenge }, services.clock.now())
  return { token, expiresAt, options: options as unknown as Record<string, unknown> }
}

/** Second half: the passkey names its user; user verification is required, so no other step follows. */
export async function finishPasskeySignIn(
  services: TwoFactorServices,
  token: string | undefined,
  response: AuthenticationResponseJSON,
  client: Client,
): Promise<SignedIn> {
  const now = services.clock.now()
  const step = await findCookieChallenge(services.db, 'passkey_sign_in', token, now)
  if (!(await deleteChallenge(services.db, step.id))) throw new AppError('gone', 'This sign-in step has already been used. Sign in again.')
  const passkey = await verifyPasskeyAnswer(
    services.db,
    relyingPartyOf(services.config),
    { expectedChallenge: step.challenge ?? '', response, userId: null, requireUserVerification: true },
    now,
  )
  const [user] = await services.db.select().from(users).where(eq(users.id, passkey.userId))
  if (!user) throw new AppError('unauthenticated', 'This passkey was not accepted. Try again, or use another way to sign in.')
  if (user.disabledAt) throw new AppError('forbidden', 'This account is disabled. Ask the operator of this Signet instance.')
  refuseLockedAccount(user, now)
  return completeSignIn(services, user, client, { method: 'passkey', secondFactor: true })
}
