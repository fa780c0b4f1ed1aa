import { and, eq, isNull, lte, or, sql, type SQL } from 'drizzle-orm'
import type { Db } from '../db/client.ts'
import { users } from '../db/schema.ts'
import type { AppError } from '../errors.ts'
import { limitSignInAttempts, tooMany } from './address-limits.ts'
import { withPasswordSlot } from './passwords.ts'
import type { AccountServices, Client } from './account-context.ts'

/** Failed password attempts on one account in a row that lock it, and for how long. */
export const MAX_FAILED_LOGINS = 10
export const LOCK_MS = 15 * 60_000

export type UserRow = typeof users.$inferSelect

/** Whose password is tried: an address typed at sign-in, or the signed-in user's (a current password). */
export type AccountKey = { email: string } | { userId: string }

const whereAccount = (key: AccountKey): SQL => ('email' in key ? eq(users.email, key.email) : eq(users.id, key.userId))

/** One more failure in a row: the MAX_FAILED_LOGINS-th locks the account for LOCK_MS and starts the count again. */
function oneMoreFailure(now: Date) {
  const locks = sql`${users.failedLogins} + 1 >= ${MAX_FAILED_LOGINS}`
  return {
    failedLogins: sql`case when ${locks} then 0 else ${users.failedLogins} + 1 end`,
    lockedUntil: sql`case when ${locks} then ${new Date(now.getTime() + LOCK_MS).toISOString()}::timestamptz else ${users.lockedUntil} end`,
  }
}

const unlocked = (now: Date) => or(isNull(users.lockedUntil), lte(users.lockedUntil, now))

/**
 * Counts the attempt as a failure before the password is checked (a right password clears the
 * count afterwards: clearFailedSignIns), unless the account is locked. One statement takes the
 * row lock, so concurrent attempts are counted one after another, in every process: however
 * they arrive, no more than MAX_FAILED_LOGINS are checked before the lock. It also reads the
 * account (as it was before the count); an address without one runs the same statement.
 */
async function reserveAttempt(db: Db, key: AccountKey, now: Date): Promise<{ user: UserRow; reserved: boolean } | undefined> {
  const reservation = db.$with('reservation').as(
    db
      .update(users)
      .set(oneMoreFailure(now))
      .where(and(whereAccount(key), unlocked(now)))
      .returning({ id: users.id }),
  )
  const [row] = await db
    .with(reservation)
    .select({ user: users, reserved: sql<boolean>`exists (select 1 from ${reservation})` })
    .from(users)
    .where(whereAccount(key))
  return row
}

const accountLocked = (lockedUntil: Date, now: Date): AppError =>
  tooMany('Too many failed sign-ins for this account.', Math.max(1, Math.ceil((lockedUntil.getTime() - now.getTime()) / 1000)))

/** 429 while the account is locked, with the time left. */
export function refuseLockedAccount(user: { lockedUntil: Date | null }, now: Date): void {
  if (user.lockedUntil && user.lockedUntil > now) throw accountLocked(user.lockedUntil, now)
}

/**
 * The 429 of an account whose attempt was not counted, with the lock's end read afresh (a
 * concurrent attempt may just have set it; if it just ended, the next attempt counts).
 */
async function lockedAccount(db: Db, userId: string, now: Date): Promise<AppError> {
  const [row] = await db.select({ lockedUntil: users.lockedUntil }).from(users).where(eq(users.id, userId))
  return accountLocked(row?.lockedUntil ?? now, now)
}

/**
 * An answer to a later step of a sign-in (a second factor) is counted as a failure before it is
 * checked, as a password attempt is, so codes guessed at once cannot pass the lockout either;
 * a right answer clears the count (completeSignIn). 429 while the account is locked.
 */
export async function reserveSignInAttempt(services: Pick<AccountServices, 'db' | 'clock'>, userId: string): Promise<void> {
  const now = services.clock.now()
  const reserved = await services.db
    .update(users)
    .set(oneMoreFailure(now))
    .where(and(eq(users.id, userId), unlocked(now)))
    .returning({ id: users.id })
  if (reserved.length === 0) throw await lockedAccount(services.db, userId, now)
}

/**
 * One password attempt on an account, in a password slot (503 when the queue is full, before
 * any query): the client address's sign-in allowance, the attempt counted (reserveAttempt),
 * then the check. Returns the user when the password is right, null when it is wrong or the
 * address has no account (after the same work either way); 429 while the account is locked.
 * Sign-in and the current password of Settings both come through here.
 */
export function checkPasswordAttempt(services: AccountServices, key: AccountKey, password: string, client: Client): Promise<UserRow | null> {
  return withPasswordSlot(async (argon2) => {
    await limitSignInAttempts(services, client.ip)
    const now = services.clock.now()
    const attempt = await reserveAttempt(services.db, key, now)
    if (!attempt) {
      await argon2.spendTime(password)
      return null
    }
    if (!attempt.reserved) throw await lockedAccount(services.db, attempt.user.id, now)
    const verdict = await argon2.verify(attempt.user.passwordHash, password)
    if (verdict === 'mismatch') return null
    if (verdict === 'legacy') {
      // A hash made before passwords were normalised matched the text as typed: from now on, every equivalent form works.
      const passwordHash = await argon2.hash(password)
      await services.db
        .update(users)
        .set({ passwordHash })
        .where(and(eq(users.id, attempt.user.id), eq(users.passwordHash, attempt.user.passwordHash)))
    }
    return attempt.user
  })
}

/** The password was right: the count of failures in a row starts again (and a lock it caused ends). */
export async function clearFailedSignIns(tx: Db, userId: string): Promise<void> {
  await tx.update(users).set({ failedLogins: 0, lockedUntil: null }).where(eq(users.id, userId))
}
