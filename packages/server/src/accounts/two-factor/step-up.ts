import { eq } from 'drizzle-orm'
import type { Db } from '../../db/client.ts'
import { userSessions } from '../../db/schema.ts'
import { invalid } from '../../errors.ts'
import type { SignedInSession } from '../sessions.ts'
import { checkPasswordAttempt, clearFailedSignIns } from '../sign-in-attempts.ts'
import type { AccountServices, Client } from '../account-context.ts'

/**
 * Changes to how an account signs in ask for its password again. The attempt is counted like a
 * sign-in's (the same lock, the same per-address limit): an open session is not a way to guess it.
 */
export async function requireCurrentPassword(services: AccountServices, session: SignedInSession, password: string, client: Client): Promise<void> {
  const user = await checkPasswordAttempt(services, { userId: session.userId }, password, client)
  if (!user) throw invalid('Your password is not right.', { field: '/password' })
  await clearFailedSignIns(services.db, user.id)
}

/** The session proved a second factor now (it set one up, or signed in with one). */
export async function markSessionSecondFactor(tx: Db, sessionId: string, now: Date): Promise<void> {
  await tx.update(userSessions).set({ secondFactorAt: now }).where(eq(userSessions.id, sessionId))
}
