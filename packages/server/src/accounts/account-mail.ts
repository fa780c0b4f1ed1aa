import type { Config } from '../config.ts'
import type { Db } from '../db/client.ts'
import { enqueueMail } from '../mail/outbox.ts'
import { alreadyRegisteredMail, linkMail, resetPasswordMail, verifyEmailMail } from '../mail/templates.ts'
import { ACCOUNT_TOKEN_TTL_MS, issueAccountToken } from './account-tokens.ts'

/** The dashboard's pages that account mails link to (the web app's routes). */
export const dashboardLink = (config: Pick<Config, 'publicUrl'>, path: string): string => `${config.publicUrl}/app/${path}`

/**
 * Mails carrying a single-use link are `sensitive`: the outbox erases their text once
 * delivered, so the database keeps no usable link.
 */
export async function mailVerificationLink(
  tx: Db,
  config: Pick<Config, 'publicUrl'>,
  user: { id: string; email: string; name: string },
  now: Date,
): Promise<void> {
  const { token } = await issueAccountToken(tx, 'verify_email', { userId: user.id, email: user.email }, now)
  const link = dashboardLink(config, `verify-email?token=${token}`)
  const validHours = ACCOUNT_TOKEN_TTL_MS.verify_email / 3600_000
  await enqueueMail(tx, [{ to: user.email, ...verifyEmailMail({ name: user.name, link, validHours }), sensitive: true }])
}

export async function mailPasswordResetLink(
  tx: Db,
  config: Pick<Config, 'publicUrl'>,
  user: { id: string; email: string; name: string },
  now: Date,
): Promise<void> {
  const { token } = await issueAccountToken(tx, 'reset_password', { userId: user.id, email: user.email }, now)
  const link = dashboardLink(config, `reset-password?token=${token}`)
  const validMinutes = ACCOUNT_TOKEN_TTL_MS.reset_password / 60_000
  await enqueueMail(tx, [{ to: user.email, ...resetPasswordMail({ name: user.name, link, validMinutes }), sensitive: true }])
}

/**
 * Instead of a one-click confirmation, once an address was signed up for again before it was
 * confirmed (sign-up.ts): the link sets the password, so whoever finishes the sign-up chooses
 * it, and nobody confirms a password someone else set. No greeting by name: the name was
 * typed by whoever signed up last.
 */
export async function mailFinishSignUpLink(tx: Db, config: Pick<Config, 'publicUrl'>, user: { id: string; email: string }, now: Date): Promise<void> {
  const { token } = await issueAccountToken(tx, 'reset_password', { userId: user.id, email: user.email }, now)
  const validMinutes = ACCOUNT_TOKEN_TTL_MS.reset_password / 60_000
  const mail = linkMail({
    subject: 'Finish creating your Signet account',
    name: null,
    lines: [
      'Someone, probably you, signed up for Signet with this address while an earlier sign-up with it was still waiting for confirmation.',
      `So that nobody but the owner of this address sets its password, finish by choosing your password here, even if you chose one when you signed up. The link works once, for ${validMinutes} minutes.`,
    ],
    button: 'Choose your password',
    link: dashboardLink(config, `reset-password?token=${token}`),
    ignore: 'If you did not sign up, ignore this e-mail: no account is created without it.',
  })
  await enqueueMail(tx, [{ to: user.email, ...mail, sensitive: true }])
}

export async function mailAlreadyRegistered(tx: Db, config: Pick<Config, 'publicUrl'>, user: { email: string; name: string }): Promise<void> {
  const mail = alreadyRegisteredMail({ name: user.name, loginLink: dashboardLink(config, 'login'), resetLink: dashboardLink(config, 'forgot-password') })
  await enqueueMail(tx, [{ to: user.email, ...mail }])
}
