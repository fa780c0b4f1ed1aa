import { eq } from 'drizzle-orm'
import type { Db } from '../../db/client.ts'
import { authChallenges, passkeys, users } from '../../db/schema.ts'
import { notFound } from '../../errors.ts'
import { isUuid } from '../../lib/ids.ts'
import { recordAndNotify, type EventOrigin } from '../account-events.ts'
import { endUserSessions } from '../sessions.ts'
import { deleteRecoveryCodes } from './recovery-codes.ts'
import type { TwoFactorServices } from './two-factor-services.ts'

/**
 * The last resort for a user who lost every second factor and their recovery codes: the
 * operator (who has checked who is asking, outside Signet) removes the authenticator app, the
 * passkeys and the recovery codes, and ends the user's sessions. The user is mailed and the
 * reset is in their security log with the operator's name. `operatorId` is null from the CLI.
 */
export async function resetTwoFactor(
  services: Pick<TwoFactorServices, 'db' | 'clock' | 'config'> & Partial<Pick<TwoFactorServices, 'mail'>>,
  target: { userId?: string; email?: string },
  by: { operatorId: string | null; origin: EventOrigin | null },
): Promise<void> {
  const user = await findUser(services.db, target)
  await services.db.transaction(async (tx) => {
    await tx
      .update(users)
      .set({ totpSecretCiphertext: null, totpEnabledAt: null, totpLastStep: null, failedLogins: 0, lockedUntil: null })
      .where(eq(users.id, user.id))
    await tx.delete(passkeys).where(eq(passkeys.userId, user.id))
    await deleteRecoveryCodes(tx, user.id)
    await tx.delete(authChallenges).where(eq(authChallenges.userId, user.id))
    await endUserSessions(tx, user.id)
    await recordAndNotify(
      tx,
      services.config,
      user,
      { kind: 'two_factor.reset_by_operator', actorUserId: by.operatorId, origin: by.origin },
      services.clock.now(),
    )
  })
  // The CLI without a running server has no dispatcher: the notice waits in the outbox for the next start.
  services.mail?.kick()
}

async function findUser(db: Db, target: { userId?: string; email?: string }) {
  const where =
    target.userId !== undefined ? (isUuid(target.userId) ? eq(users.id, target.userId) : undefined) : eq(users.email, (target.email ?? '').trim().toLowerCase())
  const [user] = where ? await db.select({ id: users.id, email: users.email, name: users.name }).from(users).where(where) : []
  if (!user) throw notFound('No such user.')
  return user
}
