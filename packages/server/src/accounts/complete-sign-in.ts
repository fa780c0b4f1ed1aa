import type { Me } from './accounts.schemas.ts'
import { presentMe } from './me.ts'
import { createSession, type NewSession, type SessionAuthMethod } from './sessions.ts'
import { clearFailedSignIns } from './sign-in-attempts.ts'
import type { AccountServices, Client } from './account-context.ts'

export interface SignedIn {
  session: NewSession
  me: Me
}

/**
 * The last step of every sign-in, once whatever it asks was proved (the password, a second
 * factor, a passkey): the count of failed attempts starts again and a new session begins,
 * marked with how it signed in and whether a second factor was proved.
 */
export async function completeSignIn(
  services: AccountServices,
  user: { id: string },
  client: Client,
  how: { method: SessionAuthMethod; secondFactor: boolean },
): Promise<SignedIn> {
  const now = services.clock.now()
  const session = await services.db.transaction(async (tx) => {
    await clearFailedSignIns(tx, user.id)
    const secondFactorAt = how.secondFactor ? now : null
    return createSession(tx, services.config, { userId: user.id, ip: client.ip, userAgent: client.userAgent, authMethod: how.method, secondFactorAt }, now)
  })
  return { session, me: await presentMe(services.db, user.id, session.orgId) }
}
