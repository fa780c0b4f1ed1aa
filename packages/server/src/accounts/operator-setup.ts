import { and, eq, isNull } from 'drizzle-orm'
import type { Db } from '../db/client.ts'
import { accountTokens, users } from '../db/schema.ts'
import { AppError } from '../errors.ts'
import { consumeToken, issueAccountToken } from './account-tokens.ts'
import { dashboardLink } from './account-mail.ts'
import type { SetUpOperatorBody } from './accounts.schemas.ts'
import type { SignedIn } from './complete-sign-in.ts'
import { cleanName, insertWorkspace, presentMe } from './me.ts'
import { checkNewPassword, hashPassword } from './passwords.ts'
import { createSession } from './sessions.ts'
import { normalizeEmail, type AccountServices, type Client } from './account-context.ts'

/**
 * The instance operator is created from a link only the person who started the server sees
 * (printed by `npm start`), never by being first at the sign-up page: a stranger who signs up
 * first gets an ordinary account.
 */
export async function operatorExists(db: Db): Promise<boolean> {
  const [operator] = await db.select({ id: users.id }).from(users).where(eq(users.isOperator, true)).limit(1)
  return operator !== undefined
}

/** While no operator exists: a new setup link (the previous ones stop working); else null. */
export async function issueOperatorSetupLink(services: Pick<AccountServices, 'db' | 'clock' | 'config'>): Promise<string | null> {
  if (await operatorExists(services.db)) return null
  const now = services.clock.now()
  const token = await services.db.transaction(async (tx) => {
    await tx
      .update(accountTokens)
      .set({ usedAt: now })
      .where(and(eq(accountTokens.purpose, 'operator_setup'), isNull(accountTokens.usedAt)))
    return (await issueAccountToken(tx, 'operator_setup', {}, now)).token
  })
  return dashboardLink(services.config, `setup?token=${token}`)
}

export async function setUpOperator(services: AccountServices, body: SetUpOperatorBody, client: Client): Promise<SignedIn> {
  const { db, config } = services
  const now = services.clock.now()
  const email = normalizeEmail(body.email)
  const name = cleanName(body.name, 'Your name', '/name')
  checkNewPassword(body.password, email)
  const passwordHash = await hashPassword(body.password)
  const { userId, session } = await db.transaction(async (tx) => {
    await consumeToken(tx, 'operator_setup', body.token, now)
    if (await operatorExists(tx)) throw new AppError('gone', 'This instance already has its operator: sign in instead.')
    const [user] = await tx
      .insert(users)
      .values({ email, name, passwordHash, isOperator: true, emailVerifiedAt: now, passwordChangedAt: now, createdAt: now })
      .onConflictDoNothing({ target: users.email })
      .returning({ id: users.id })
    if (!user)
      throw new AppError(
        'conflict',
        `${email} already has an account: sign in, and make it the operator with \`npm run -s admin -- user promote --email ${email}\`.`,
        {},
        {},
        '/email',
      )
    await insertWorkspace(tx, { name: body.workspace_name, ownerId: user.id, nameField: '/workspace_name' })
    return {
      userId: user.id,
      session: await createSession(tx, config, { userId: user.id, ip: client.ip, userAgent: client.userAgent, authMethod: 'link' }, now),
    }
  })
  return { session, me: await presentMe(db, userId, session.orgId) }
}
