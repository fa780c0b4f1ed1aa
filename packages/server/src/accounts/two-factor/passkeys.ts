import {
  generateAuthenticationOptions,
  generateRegistrationOptions,
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
  type AuthenticationResponseJSON,
  type PublicKeyCredentialCreationOptionsJSON,
  type PublicKeyCredentialRequestOptionsJSON,
  type RegistrationResponseJSON,
} from '@simplewebauthn/server'
import { and, asc, eq } from 'drizzle-orm'
import type { Config } from '../../config.ts'
import type { Db } from '../../db/client.ts'
import { passkeys } from '../../db/schema.ts'
import { AppError, invalid } from '../../errors.ts'

/**
 * Passkeys (WebAuthn) through @simplewebauthn/server. The relying party is this instance: its
 * id is PUBLIC_URL's host name and only PUBLIC_URL's origin may answer, so a passkey made here
 * works nowhere else and a look-alike site cannot use it.
 */
export interface RelyingParty {
  id: string
  origin: string
  name: string
}

export const relyingPartyOf = (config: Pick<Config, 'publicUrl'>): RelyingParty => {
  const url = new URL(config.publicUrl)
  return { id: url.hostname, origin: url.origin, name: 'Signet' }
}

export type Passkey = typeof passkeys.$inferSelect

const CEREMONY_TIMEOUT_MS = 5 * 60_000

export const passkeysOf = (db: Db, userId: string): Promise<Passkey[]> =>
  db.select().from(passkeys).where(eq(passkeys.userId, userId)).orderBy(asc(passkeys.createdAt))

const descriptorOf = (passkey: Passkey) => ({ id: passkey.credentialId, transports: passkey.transports ?? undefined })

/** What the browser needs to make a passkey for this user; their existing ones are excluded (one per authenticator). */
export function registrationOptions(
  rp: RelyingParty,
  user: { id: string; email: string; name: string },
  existing: Passkey[],
): Promise<PublicKeyCredentialCreationOptionsJSON> {
  return generateRegistrationOptions({
    rpName: rp.name,
    rpID: rp.id,
    userName: user.email,
    userDisplayName: user.name,
    userID: new Uint8Array(Buffer.from(user.id.replaceAll('-', ''), 'hex')),
    timeout: CEREMONY_TIMEOUT_MS,
    attestationType: 'none',
    excludeCredentials: existing.map(descriptorOf),
    // A discoverable credential lets the user sign in with the passkey alone, without typing an address.
    authenticatorSelection: { residentKey: 'preferred', userVerification: 'preferred' },
  })
}

/** Checks the browser's answer to registrationOptions (the body's `response`); the credential to store, or a 400 that says what to do. */
export async function verifiedRegistration(rp: RelyingParty, expectedChallenge: string, response: RegistrationResponseJSON) {
  const verification = await verifyRegistrationResponse({
    response,
    expectedChallenge,
    expectedOrigin: rp.origin,
    expectedRPID: rp.id,
    requireUserVerification: false,
  }).catch((error: unknown) => {
    throw invalid(`The passkey could not be checked: ${error instanceof Error ? error.message : 'unknown reason'}. Try again.`, { field: '/response' })
  })
  if (!verification.verified) throw invalid('The passkey could not be checked. Try again.', { field: '/response' })
  return verification.registrationInfo
}

export async function insertPasskey(tx: Db, userId: string, name: string, info: Awaited<ReturnType<typeof verifiedRegistration>>, now: Date): Promise<Passkey> {
  const [row] = await tx
    .insert(passkeys)
    .values({
      userId,
      name,
      credentialId: info.credential.id,
      publicKey: info.credential.publicKey,
      counter: info.credential.counter,
      transports: info.credential.transports ?? null,
      deviceType: info.credentialDeviceType,
      backedUp: info.credentialBackedUp,
      createdAt: now,
    })
    .onConflictDoNothing({ target: passkeys.credentialId })
    .returning()
  if (!row) throw new AppError('conflict', 'This passkey is already registered.')
  return row
}

/**
 * What the browser needs to sign in with a passkey: the user's own passkeys when the password
 * already named the user (second step), none when any passkey of this site may answer
 * (passkey-only sign-in, where the passkey itself names the user).
 */
export function authenticationOptions(rp: RelyingParty, allowed: Passkey[] | null): Promise<PublicKeyCredentialRequestOptionsJSON> {
  return generateAuthenticationOptions({
    rpID: rp.id,
    timeout: CEREMONY_TIMEOUT_MS,
    allowCredentials: allowed?.map(descriptorOf),
    // Passkey-only sign-in must prove two factors on the device (possession and PIN/biometrics).
    userVerification: allowed ? 'preferred' : 'required',
  })
}

const NOT_ACCEPTED = 'This passkey was not accepted. Try again, or use another way to sign in.'

/**
 * Checks a passkey's answer to a challenge, for `userId` when it is known; returns the passkey
 * used, with its counter and last use updated (a cloned authenticator shows as a counter that
 * goes back, which the library refuses).
 */
export async function verifyPasskeyAnswer(
  db: Db,
  rp: RelyingParty,
  input: { expectedChallenge: string; response: AuthenticationResponseJSON; userId: string | null; requireUserVerification: boolean },
  now: Date,
): Promise<Passkey> {
  const [passkey] = await db
    .select()
    .from(passkeys)
    .where(and(eq(passkeys.credentialId, input.response.id), input.userId ? eq(passkeys.userId, input.userId) : undefined))
  if (!passkey) throw new AppError('unauthenticated', NOT_ACCEPTED)
  const verification = await verifyAuthenticationResponse({
    response: input.response,
    expectedChallenge: input.expectedChallenge,
    expectedOrigin: rp.origin,
    expectedRPID: rp.id,
    credential: {
      id: passkey.credentialId,
      publicKey: new Uint8Array(passkey.publicKey),
      counter: passkey.counter,
      transports: passkey.transports ?? undefined,
    },
    requireUserVerification: input.requireUserVerification,
  }).catch(() => ({ verified: false as const, authenticationInfo: undefined }))
  if (!verification.verified || !verification.authenticationInfo) throw new AppError('unauthenticated', NOT_ACCEPTED)
  const { newCounter, credentialBackedUp } = verification.authenticationInfo
  await db.update(passkeys).set({ counter: newCounter, backedUp: credentialBackedUp, lastUsedAt: now }).where(eq(passkeys.id, passkey.id))
  return passkey
}
