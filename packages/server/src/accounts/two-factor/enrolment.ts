import { and, desc, eq } from 'drizzle-orm'
import type { Db } from '../../db/client.ts'
import { accountEvents, memberships, orgs, passkeys, users } from '../../db/schema.ts'
import { AppError, invalid, notFound } from '../../errors.ts'
import { isUuid } from '../../lib/ids.ts'
import { describeAccountEvent, recordAndNotify, type AccountEventKind } from '../account-events.ts'
import type { Client } from '../account-context.ts'
import type { SignedInSession } from '../sessions.ts'
import { markSessionSecondFactor, requireCurrentPassword } from './step-up.ts'
import { deleteChallenge, findSessionChallenge, issueSessionChallenge } from './challenges.ts'
import { insertPasskey, passkeysOf, registrationOptions, relyingPartyOf, verifiedRegistration, type Passkey } from './passkeys.ts'
import { deleteRecoveryCodes, remainingRecoveryCodes, replaceRecoveryCodes } from './recovery-codes.ts'
import { newTotpSecret, otpauthUri, qrCodeSvg, stepOfCode, typeableSecret } from './totp.ts'
import { totpContext, type TwoFactorServices } from './two-factor-services.ts'
import type { PasskeyView, TwoFactorStatus } from './two-factor.schemas.ts'
import type { RegistrationResponseJSON } from '@simplewebauthn/server'

/*
 * Account → Security: setting up and removing second factors from a signed-in session. Every
 * change asks for the current password again (a session left open on a shared computer must
 * not be enough to take over how the account signs in), is recorded and mailed to the user.
 */

const presentPasskey = (passkey: Passkey): PasskeyView => ({
  id: passkey.id,
  name: passkey.name,
  created_at: passkey.createdAt.toISOString(),
  last_used_at: passkey.lastUsedAt?.toISOString() ?? null,
  synced: passkey.backedUp,
})

/** The workspaces of the user that require a second factor. */
export async function workspacesRequiringTwoFactor(db: Db, userId: string): Promise<{ id: string; name: string }[]> {
  return db
    .select({ id: orgs.id, name: orgs.name })
    .from(memberships)
    .innerJoin(orgs, eq(orgs.id, memberships.orgId))
    .where(and(eq(memberships.userId, userId), eq(orgs.requireTwoFactor, true)))
}

export async function twoFactorStatus(db: Db, session: SignedInSession & { secondFactor: boolean }): Promise<TwoFactorStatus> {
  const [user] = await db.select({ totpEnabledAt: users.totpEnabledAt }).from(users).where(eq(users.id, session.userId))
  const keys = await passkeysOf(db, session.userId)
  const totpEnabledAt = user?.totpEnabledAt ?? null
  return {
    enabled: totpEnabledAt !== null || keys.length > 0,
    totp: { enabled: totpEnabledAt !== null, enabled_at: totpEnabledAt?.toISOString() ?? null },
    passkeys: keys.map(presentPasskey),
    recovery_codes_left: await remainingRecoveryCodes(db, session.userId),
    required_by: await workspacesRequiringTwoFactor(db, session.userId),
    this_session: { second_factor: session.secondFactor },
  }
}

/** Whether the user has any second factor. */
export async function hasSecondFactor(db: Db, userId: string): Promise<boolean> {
  const [user] = await db.select({ totpEnabledAt: users.totpEnabledAt }).from(users).where(eq(users.id, userId))
  if (user?.totpEnabledAt) return true
  const [passkey] = await db.select({ id: passkeys.id }).from(passkeys).where(eq(passkeys.userId, userId)).limit(1)
  return passkey !== undefined
}

/** Starts setting up an authenticator app: a new secret, kept (encrypted) with this session until its first code confirms it. */
export async function startTotpSetup(services: TwoFactorServices, session: SignedInSession) {
  const now = services.clock.now()
  const secret = newTotpSecret()
  const secretCiphertext = await services.secrets.encrypt(secret, totpContext(session.userId))
  const step = await issueSessionChallenge(services.db, 'totp_enrollment', { userId: session.userId, sessionId: session.sessionId, secretCiphertext }, now)
  const uri = otpauthUri(secret, `Signet (${new URL(services.config.publicUrl).host})`, session.email)
  return { secret: typeableSecret(secret), otpauth_uri: uri, qr_svg: await qrCodeSvg(uri), expires_at: step.expiresAt.toISOString() }
}

/** A first second factor brings recovery codes; a later one leaves the existing codes as they are. */
async function recoveryCodesForNewFactor(tx: Db, userId: string, hadFactor: boolean, now: Date): Promise<string[] | null> {
  return hadFactor ? null : replaceRecoveryCodes(tx, userId, now)
}

async function notify(
  tx: Db,
  services: TwoFactorServices,
  session: SignedInSession,
  kind: AccountEventKind,
  origin: Client,
  details?: Record<string, unknown>,
) {
  await recordAndNotify(tx, services.config, { id: session.userId, email: session.email, name: session.name }, { kind, origin, details }, services.clock.now())
}

/** Confirms the app with its first code (and the password): TOTP is on from now, and this session counts as having proved it. */
export async function confirmTotpSetup(
  services: TwoFactorServices,
  session: SignedInSession,
  input: { code: string; password: string },
  origin: Client,
): Promise<{ recovery_codes: string[] | null }> {
  const now = services.clock.now()
  await requireCurrentPassword(services, session, input.password, origin)
  const step = await findSessionChallenge(services.db, 'totp_enrollment', session.sessionId, now)
  if (!step.secretCiphertext) throw new AppError('gone', 'This set-up step has expired. Start again.')
  const secret = await services.secrets.decrypt(step.secretCiphertext, totpContext(session.userId))
  const matched = stepOfCode(secret, input.code, now)
  if (matched === null) throw invalid('That code is not right. Enter the 6-digit code your authenticator app shows now.', { field: '/code' })
  const hadFactor = await hasSecondFactor(services.db, session.userId)
  const codes = await services.db.transaction(async (tx) => {
    if (!(await deleteChallenge(tx, step.id))) throw new AppError('gone', 'This set-up step has expired. Start again.')
    await tx.update(users).set({ totpSecretCiphertext: step.secretCiphertext, totpEnabledAt: now, totpLastStep: matched }).where(eq(users.id, session.userId))
    await markSessionSecondFactor(tx, session.sessionId, now)
    await notify(tx, services, session, 'totp.enabled', origin)
    return recoveryCodesForNewFactor(tx, session.userId, hadFactor, now)
  })
  services.mail.kick()
  return { recovery_codes: codes }
}

/**
 * A workspace that requires a second factor keeps its members from removing their last one:
 * they would be shut out of it at their next sign-in.
 */
async function refuseRemovingLastFactor(db: Db, userId: string, factorsLeft: number): Promise<void> {
  if (factorsLeft > 0) return
  const requiring = await workspacesRequiringTwoFactor(db, userId)
  if (requiring.length > 0) {
    const names = requiring.map((w) => `"${w.name}"`).join(', ')
    throw new AppError('conflict', `${names} requires a second sign-in step: set up another one before removing this one.`)
  }
}

export async function disableTotp(services: TwoFactorServices, session: SignedInSession, input: { password: string }, origin: Client): Promise<void> {
  await requireCurrentPassword(services, session, input.password, origin)
  const [user] = await services.db.select({ totpEnabledAt: users.totpEnabledAt }).from(users).where(eq(users.id, session.userId))
  if (!user?.totpEnabledAt) throw new AppError('conflict', 'No authenticator app is set up.')
  await refuseRemovingLastFactor(services.db, session.userId, (await passkeysOf(services.db, session.userId)).length)
  await services.db.transaction(async (tx) => {
    await tx.update(users).set({ totpSecretCiphertext: null, totpEnabledAt: null, totpLastStep: null }).where(eq(users.id, session.userId))
    await dropRecoveryCodesWithLastFactor(tx, session.userId)
    await notify(tx, services, session, 'totp.disabled', origin)
  })
  services.mail.kick()
}

/** With no second factor left, recovery codes have nothing to recover: they go too. */
async function dropRecoveryCodesWithLastFactor(tx: Db, userId: string): Promise<void> {
  if (!(await hasSecondFactor(tx, userId))) await deleteRecoveryCodes(tx, userId)
}

/**
 * Options for the browser to make a passkey; the challenge waits with this session. The password
 * is asked here, before the browser makes anything: a wrong one leaves no unused passkey behind.
 */
export async function startPasskeySetup(services: TwoFactorServices, session: SignedInSession, input: { password: string }, origin: Client) {
  await requireCurrentPassword(services, session, input.password, origin)
  const rp = relyingPartyOf(services.config)
  const options = await registrationOptions(rp, { id: session.userId, email: session.email, name: session.name }, await passkeysOf(services.db, session.userId))
  await issueSessionChallenge(
    services.db,
    'passkey_registration',
    { userId: session.userId, sessionId: session.sessionId, challenge: options.challenge },
    services.clock.now(),
  )
  return { options: options as unknown as Record<string, unknown> }
}

/** The passkey the browser made for the options startPasskeySetup gave this session (which asked for the password). */
export async function addPasskey(
  services: TwoFactorServices,
  session: SignedInSession,
  input: { name: string; response: RegistrationResponseJSON },
  origin: Client,
): Promise<{ passkey: PasskeyView; recovery_codes: string[] | null }> {
  const now = services.clock.now()
  const name = input.name.trim()
  if (name === '') throw invalid('Name the passkey, e.g. the device it is on.', { field: '/name' })
  const step = await findSessionChallenge(services.db, 'passkey_registration', session.sessionId, now)
  const info = await verifiedRegistration(relyingPartyOf(services.config), step.challenge ?? '', input.response)
  const hadFactor = await hasSecondFactor(services.db, session.userId)
  const result = await services.db.transaction(async (tx) => {
    if (!(await deleteChallenge(tx, step.id))) throw new AppError('gone', 'This set-up step has expired. Start again.')
    const passkey = await insertPasskey(tx, session.userId, name, info, now)
    await markSessionSecondFactor(tx, session.sessionId, now)
    await notify(tx, services, session, 'passkey.added', origin, { name })
    return { passkey: presentPasskey(passkey), recovery_codes: await recoveryCodesForNewFactor(tx, session.userId, hadFactor, now) }
  })
  services.mail.kick()
  return result
}

export async function removePasskey(
  services: TwoFactorServices,
  session: SignedInSession,
  passkeyId: string,
  input: { password: string },
  origin: Client,
): Promise<void> {
  await requireCurrentPassword(services, session, input.password, origin)
  const keys = await passkeysOf(services.db, session.userId)
  const passkey = isUuid(passkeyId) ? keys.find((key) => key.id === passkeyId) : undefined
  if (!passkey) throw notFound('No such passkey of yours.')
  const [user] = await services.db.select({ totpEnabledAt: users.totpEnabledAt }).from(users).where(eq(users.id, session.userId))
  await refuseRemovingLastFactor(services.db, session.userId, keys.length - 1 + (user?.totpEnabledAt ? 1 : 0))
  await services.db.transaction(async (tx) => {
    await tx.delete(passkeys).where(and(eq(passkeys.id, passkey.id), eq(passkeys.userId, session.userId)))
    await dropRecoveryCodesWithLastFactor(tx, session.userId)
    await notify(tx, services, session, 'passkey.removed', origin, { name: passkey.name })
  })
  services.mail.kick()
}

export async function regenerateRecoveryCodes(
  services: TwoFactorServices,
  session: SignedInSession,
  input: { password: string },
  origin: Client,
): Promise<{ recovery_codes: string[] }> {
  await requireCurrentPassword(services, session, input.password, origin)
  if (!(await hasSecondFactor(services.db, session.userId)))
    throw new AppError('conflict', 'Set up an authenticator app or a passkey first: recovery codes stand in for one.')
  const codes = await services.db.transaction(async (tx) => {
    const fresh = await replaceRecoveryCodes(tx, session.userId, services.clock.now())
    await notify(tx, services, session, 'recovery_codes.generated', origin)
    return fresh
  })
  services.mail.kick()
  return { recovery_codes: codes }
}

/** The user's own security log, newest first. */
export async function listAccountEvents(db: Db, session: SignedInSession) {
  const rows = await db
    .select()
    .from(accountEvents)
    .where(eq(accountEvents.userId, session.userId))
    .orderBy(desc(accountEvents.createdAt), desc(accountEvents.id))
    .limit(100)
  return {
    events: rows.map((row) => ({
      kind: row.kind,
      description: describeAccountEvent(row.kind),
      created_at: row.createdAt.toISOString(),
      ip: row.ip,
      user_agent: row.userAgent,
      // The operator's reset from the command line names no user, but it was not the user either.
      by_someone_else: (row.actorUserId !== null && row.actorUserId !== row.userId) || row.kind === 'two_factor.reset_by_operator',
    })),
  }
}
