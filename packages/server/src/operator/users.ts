import { desc, eq, ilike, or, type SQL } from 'drizzle-orm'
import type { Actor } from '../actors/actor.ts'
import { disableUser, enableUser, promoteUser, summariesOf } from '../accounts/admin-users.ts'
import { requireOperator } from '../accounts/roles.ts'
import type { Db } from '../db/client.ts'
import { users } from '../db/schema.ts'
import { AppError, notFound } from '../errors.ts'
import { isUuid } from '../lib/ids.ts'
import type { Services } from '../services.ts'
import type { OperatorListQuery, OperatorUser, OperatorUserList } from './operator.schemas.ts'
import { containsPattern, countAll } from './search.ts'

/** The instance's users for the Operator area: e-mail or name search (or an exact id), newest first, with their workspaces. */
export async function listUsers(db: Db, actor: Actor, query: OperatorListQuery): Promise<OperatorUserList> {
  requireOperator(actor)
  const { limit = 50, offset = 0 } = query
  const search = query.search?.trim()
  const matches: SQL | undefined = search
    ? or(ilike(users.email, containsPattern(search)), ilike(users.name, containsPattern(search)), isUuid(search) ? eq(users.id, search) : undefined)
    : undefined
  const [rows, [counted]] = await Promise.all([
    db.select().from(users).where(matches).orderBy(desc(users.createdAt), desc(users.id)).limit(limit).offset(offset),
    db.select({ total: countAll() }).from(users).where(matches),
  ])
  return {
    users: await summariesOf(db, rows),
    total: counted?.total ?? 0,
    limit,
    offset,
  }
}

/** The CLI's user commands name users by e-mail; the Operator area by id. */
async function emailOf(db: Db, userId: string): Promise<string> {
  const [user] = isUuid(userId) ? await db.select({ email: users.email }).from(users).where(eq(users.id, userId)) : []
  if (!user) throw notFound('No such user.')
  return user.email
}

/**
 * Disables a user (they cannot sign in; their sessions end now) or enables them again. An
 * operator cannot disable themselves: they would lock themselves out of the area that undoes it.
 */
export async function setUserDisabledAsOperator(
  services: Pick<Services, 'db' | 'clock'>,
  actor: Actor,
  userId: string,
  disabled: boolean,
): Promise<OperatorUser> {
  const operator = requireOperator(actor)
  if (disabled && userId === operator.id) throw new AppError('conflict', 'You cannot disable your own account.')
  const email = await emailOf(services.db, userId)
  return disabled ? disableUser(services, email) : enableUser(services.db, email)
}

/** Makes a user an instance operator (they see the Operator area from their next request). */
export async function promoteToOperator(db: Db, actor: Actor, userId: string): Promise<OperatorUser> {
  requireOperator(actor)
  return promoteUser(db, await emailOf(db, userId))
}
