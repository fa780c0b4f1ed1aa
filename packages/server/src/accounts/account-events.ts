import type { Config } from '../config.ts'
import type { Db } from '../db/client.ts'
import { accountEvents } from '../db/schema.ts'
import { enqueueMail } from '../mail/outbox.ts'
import { linkMail } from '../mail/templates.ts'
import { dashboardLink } from './account-mail.ts'

/**
 * The account-security trail (table account_events): every change to how someone signs in is
 * recorded with who did it and from where, and most are mailed to the user, so that a change
 * they did not make does not go unnoticed.
 */
export type AccountEventKind =
  | 'password.changed'
  | 'password.reset'
  | 'totp.enabled'
  | 'totp.disabled'
  | 'passkey.added'
  | 'passkey.removed'
  | 'recovery_codes.generated'
  | 'recovery_code.used'
  | 'two_factor.reset_by_operator'
  | 'workspace.two_factor_required'
  | 'workspace.two_factor_optional'

/** Where a request came from, when a person made it (null for the CLI and background work). */
export interface EventOrigin {
  ip: string | null
  userAgent: string | null
}

export interface AccountEvent {
  userId: string
  kind: AccountEventKind
  orgId?: string | null
  /** Who acted, when not the user themself (an operator, a workspace owner). */
  actorUserId?: string | null
  origin?: EventOrigin | null
  details?: Record<string, unknown>
}

/** What a security notice says happened, in the user's words. */
const NOTICES: Record<AccountEventKind, string> = {
  'password.changed': 'The password of your Signet account was changed.',
  'password.reset': 'The password of your Signet account was reset with a link mailed to this address.',
  'totp.enabled': 'An authenticator app was set up as a second sign-in step for your Signet account.',
  'totp.disabled': 'The authenticator app was removed from your Signet account: signing in no longer asks for its code.',
  'passkey.added': 'A passkey was added to your Signet account.',
  'passkey.removed': 'A passkey was removed from your Signet account.',
  'recovery_codes.generated': 'New recovery codes were made for your Signet account; the old ones no longer work.',
  'recovery_code.used': 'A recovery code was used to sign in to your Signet account.',
  'two_factor.reset_by_operator':
    "The operator of this Signet instance removed your account's second sign-in steps (authenticator app, passkeys and recovery codes), as you asked.",
  'workspace.two_factor_required': 'A workspace you belong to now requires a second sign-in step for every member.',
  'workspace.two_factor_optional': 'A workspace you belong to no longer requires a second sign-in step.',
}

/** What happened, in words, for the user's security log (kinds recorded by older versions are shown as they are). */
export const describeAccountEvent = (kind: string): string => (kind in NOTICES ? NOTICES[kind as AccountEventKind] : kind)

/** Appends the event (inside the caller's transaction). */
export async function recordAccountEvent(tx: Db, event: AccountEvent, now: Date): Promise<void> {
  await tx.insert(accountEvents).values({
    userId: event.userId,
    kind: event.kind,
    orgId: event.orgId ?? null,
    actorUserId: event.actorUserId ?? null,
    ip: event.origin?.ip ?? null,
    userAgent: event.origin?.userAgent?.slice(0, 500) ?? null,
    details: event.details ?? null,
    createdAt: now,
  })
}

/** Records the event and mails the user a notice of it, in the same transaction (the outbox sends it after commit). */
export async function recordAndNotify(
  tx: Db,
  config: Pick<Config, 'publicUrl'>,
  user: { id: string; email: string; name: string },
  event: Omit<AccountEvent, 'userId'>,
  now: Date,
): Promise<void> {
  await recordAccountEvent(tx, { ...event, userId: user.id }, now)
  await enqueueMail(tx, [{ to: user.email, ...securityNoticeMail(config, user.name, event, now) }])
}

function securityNoticeMail(config: Pick<Config, 'publicUrl'>, name: string, event: Omit<AccountEvent, 'userId'>, now: Date) {
  const where = event.origin?.ip ? ` from the address ${event.origin.ip}` : ''
  return linkMail({
    subject: 'Security notice for your Signet account',
    name,
    lines: [NOTICES[event.kind], `When: ${now.toUTCString()}${where}.`],
    button: 'Review your account',
    link: dashboardLink(config, 'account/security'),
    ignore: 'If this was not you, reset your password now and tell the operator of this Signet instance.',
  })
}
