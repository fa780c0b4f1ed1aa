import type { Config } from '../config.ts'
import type { Db } from '../db/client.ts'
import { enqueueMail } from '../mail/outbox.ts'
import { alreadyRegisteredMail, resetPasswordMail, verifyEmailMail } from '../mail/templates.ts'
import { ACCOUNT_TOKEN_TTL_MS, issueAccountToken } from './account-tokens.ts'

/** The dashboard's pages that account mails link to (the web app's routes). */
export const dashboardLink = (config: Pick<Config, 'publicUrl'>, path: string): string => `${config.publicUrl}/app/${path}`

/**
 * Mails carrying a single-use link are `sensitive`: the outbox erases their text once
 * delivered, so the database keeps no usable link.
 */
export async function mailVerificationLink(tx: Db, config: Pick<Config, 'publicUrl'>, user: { id: string; email: string; name: string }, now: Date): Promise<void> {
  const { token } = await issueAccountToken(tx, 'verify_email', { userId: user.id, email: user.email }, now)
  const link = dashboardLink(config, `verify-email?token=${token}`)
  const validHours = ACCOUNT_TOKEN_TTL_MS.verify_email / 3600_000
  await enqueueMail(tx, [{ to: user.email, ...verifyEmailMail({ name: user.name, link, validHours }), sensitive: true }])
}

export async function mailPasswordResetLink(tx: Db, config: Pick<Config, 'publicUrl'>, user: { id: string; email: string; name: string }, now: Date): Promise<void> {
  const { token } = await issueAccountToken(tx, 'reset_password', { userId: user.id, email: user.email }, now)
  const link = dashboardLink(config, `reset-password?token=${token}`)
  const validMinutes = ACCOUNT_TOKEN_TTL_MS.reset_password / 60_000
  await enqueueMail(tx, [{ to: user.email, ...resetPasswordMail({ name: user.name, link, validMinutes }), sensitive: true }])
}

export async function mailAlreadyRegistered(tx: Db, config: Pick<Config, 'publicUrl'>, user: { email: string; name: string }): Promise<void> {
  const mail = alreadyRegisteredMail({ name: user.name, loginLink: dashboardLink(config, 'login'), resetLink: dashboardLink(config, 'forgot-password') })
  await enqueueMail(tx, [{ to: user.email, ...mail }])
}
