import { asc, eq, inArray } from 'drizzle-orm'
import type { Clock } from '../adapters/clock.ts'
import type { Db } from '../db/client.ts'
import { memberships, orgs, passkeys, users, type WorkspaceRole } from '../db/schema.ts'
import { AppError, notFound } from '../errors.ts'
import { requireOrg } from '../orgs/require-org.ts'
import { cleanName, insertWorkspace } from './me.ts'
import { checkNewPassword, hashPassword } from './passwords.ts'
import { endUserSessions } from './sessions.ts'
import { normalizeEmail } from './account-context.ts'

/** The operator's user commands (`admin user …`): accounts created here are verified (the operator vouches for the address). */

export interface UserSummary {
  id: string
  email: string
  name: string
  is_operator: boolean
  disabled: boolean
  email_verified: boolean
  /** An authenticator app or a passkey is set up. */
  two_factor: boolean
  created_at: string
  workspaces: { id: string; name: string; role: WorkspaceRole }[]
}

async function userByEmail(db: Db, email: string) {
  const [user] = await db
    .select()
    .from(users)
    .where(eq(users.email, normalizeEmail(email)))
  if (!user) throw notFound(`No user with the e-mail ${normalizeEmail(email)}.`)
  return user
}

export async function createUserAsOperator(
  services: { db: Db; clock: Clock },
  input: { email: string; name: string; password: string; operator: boolean; orgId?: string | undefined; role?: WorkspaceRole | undefined },
): Promise<UserSummary> {
  const email = normalizeEmail(input.email)
  const name = cleanName(input.name, 'The name')
  checkNewPassword(input.password, email)
  if (input.orgId) await requireOrg(services.db, input.orgId)
  const passwordHash = await hashPassword(input.password)
  const now = services.clock.now()
  const id = await services.db.transaction(async (tx) => {
    const [user] = await tx
      .insert(users)
      .values({ email, name, passwordHash, isOperator: input.operator, emailVerifiedAt: now, passwordChangedAt: now, createdAt: now })
      .onConflictDoNothing({ target: users.email })
      .returning({ id: users.id })
    if (!user) throw new AppError('conflict', `${email} already has an account.`)
    // As at sign-up, everyone starts in a workspace: the one named, or a new one of their own.
    if (input.orgId) await tx.insert(memberships).values({ orgId: input.orgId, userId: user.id, role: input.role ?? 'member', createdAt: now })
    else await insertWorkspace(tx, { name: `${name}'s workspace`, ownerId: user.id })
    return user.id
  })
  return summaryOf(services.db, id)
}

async function summaryOf(db: Db, userId: string): Promise<UserSummary> {
  const [found] = await listUsers(db, userId)
  if (!found) throw notFound('No such user.')
  return found
}

export async function listUsers(db: Db, onlyUserId?: string): Promise<UserSummary[]> {
  const rows = await db
    .select()
    .from(users)
    .where(onlyUserId ? eq(users.id, onlyUserId) : undefined)
    .orderBy(asc(users.createdAt), asc(users.email))
  return summariesOf(db, rows)
}

/** Users as the admin CLI and the Operator area both show them: with the workspaces they belong to (by name) and their role there. */
export async function summariesOf(db: Db, rows: (typeof users.$inferSelect)[]): Promise<UserSummary[]> {
  if (rows.length === 0) return []
  const ids = rows.map((row) => row.id)
  const workspaces = await db
    .select({ userId: memberships.userId, id: orgs.id, name: orgs.name, role: memberships.role })
    .from(memberships)
    .innerJoin(orgs, eq(orgs.id, memberships.orgId))
    .where(inArray(memberships.userId, ids))
    .orderBy(asc(orgs.name))
  const withPasskeys = new Set(
    (await db.selectDistinct({ userId: passkeys.userId }).from(passkeys).where(inArray(passkeys.userId, ids))).map((row) => row.userId),
  )
  return rows.map((user) => ({
    id: user.id,
    email: user.email,
    name: user.name,
    is_operator: user.isOperator,
    disabled: user.disabledAt !== null,
    email_verified: user.emailVerifiedAt !== null,
    two_factor: user.totpEnabledAt !== null || withPasskeys.has(user.id),
    created_at: user.createdAt.toISOString(),
    workspaces: workspaces.filter((w) => w.userId === user.id).map(({ id, name, role }) => ({ id, name, role })),
  }))
}

/** A disabled user cannot sign in, and every session they had ends now. */
export async function disableUser(services: { db: Db; clock: Clock }, email: string): Promise<UserSummary> {
  const user = await userByEmail(services.db, email)
  await services.db.transaction(async (tx) => {
    await tx
      .update(users)
      .set({ disabledAt: user.disabledAt ?? services.clock.now() })
      .where(eq(users.id, user.id))
    await endUserSessions(tx, user.id)
  })
  return summaryOf(services.db, user.id)
}

export async function enableUser(db: Db, email: string): Promise<UserSummary> {
  const user = await userByEmail(db, email)
  await db.update(users).set({ disabledAt: null, failedLogins: 0, lockedUntil: null }).where(eq(users.id, user.id))
  return summaryOf(db, user.id)
}

/** Makes the user an instance operator (the Operator area). */
export async function promoteUser(db: Db, email: string): Promise<UserSummary> {
  const user = await userByEmail(db, email)
  await db.update(users).set({ isOperator: true }).where(eq(users.id, user.id))
  return summaryOf(db, user.id)
}
