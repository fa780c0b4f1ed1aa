import { and, eq, gt, sql } from 'drizzle-orm'
import type { Db } from '../db/client.ts'
import { accountTokens, memberships, orgs, users } from '../db/schema.ts'
import { AppError } from '../errors.ts'

/**
 * How many workspaces a person creates and how many invitations go out, so that one account
 * cannot turn the service into a mailer (invitations carry a name and a workspace name the
 * inviter chose) nor farm the Free plan's monthly allowance one workspace at a time. Numbers a
 * real team does not meet; an instance that onboards a whole company at once adds its people
 * with the operator CLI (`user create`), which these limits do not count.
 *
 * Days are rolling 24 hours measured on the database's clock, the one that stamped the rows.
 * Each check counts rows in the transaction that then inserts, after taking a lock that every
 * competing insert takes too, so concurrent requests cannot pass it together.
 */
export const WORKSPACE_LIMITS = {
  /** Workspaces one person may create in 24 hours (whatever their plans). */
  createdPerDay: 10,
  /** Free workspaces one person may own at once: each comes with the Free plan's monthly sends. */
  freeOwned: 5,
  /** Invitations one workspace may send in 24 hours (revoked ones count: their mail went out). */
  invitationsPerWorkspacePerDay: 100,
  /** Invitations one address may receive in 24 hours, from all workspaces together: protects an inbox. */
  invitationsPerAddressPerDay: 5,
} as const

const DAY_SECONDS = 24 * 3600
const withinLastDay = (column: typeof orgs.createdAt | typeof accountTokens.createdAt) => gt(column, sql`now() - interval '1 day'`)

/** Seconds until the oldest of the day's rows leaves the window: when one more becomes possible. */
const secondsUntilOneLeaves = (column: typeof orgs.createdAt | typeof accountTokens.createdAt) =>
  sql<number>`ceil(extract(epoch from (min(${column}) + interval '1 day' - now())))`.mapWith(Number)

/** "3 minutes", "5 hours" */
function describeWait(seconds: number): string {
  if (seconds < 3600) {
    const minutes = Math.max(1, Math.ceil(seconds / 60))
    return `${minutes} minute${minutes === 1 ? '' : 's'}`
  }
  const hours = Math.ceil(seconds / 3600)
  return `${hours} hour${hours === 1 ? '' : 's'}`
}

function tooMany(message: string, waitSeconds: number): AppError {
  const seconds = Math.min(DAY_SECONDS, Math.max(1, waitSeconds))
  return new AppError('rate_limited', `${message} Try again in ${describeWait(seconds)}.`, {}, { 'retry-after': String(seconds) })
}

/**
 * Refuses a new workspace beyond the person's limits. Locks the user's row first: two
 * workspaces created at once by the same person are counted one after the other.
 */
export async function limitWorkspaceCreation(tx: Db, userId: string): Promise<void> {
  await tx.select({ id: users.id }).from(users).where(eq(users.id, userId)).for('no key update')
  const owned = and(eq(memberships.userId, userId), eq(memberships.role, 'owner'))
  const [counts] = await tx
    .select({
      free: sql<number>`count(*) filter (where ${orgs.plan} = 'free')`.mapWith(Number),
      lastDay: sql<number>`count(*) filter (where ${withinLastDay(orgs.createdAt)})`.mapWith(Number),
    })
    .from(memberships)
    .innerJoin(orgs, eq(orgs.id, memberships.orgId))
    .where(owned)
  if ((counts?.free ?? 0) >= WORKSPACE_LIMITS.freeOwned) {
    throw new AppError(
      'conflict',
      `You already own ${WORKSPACE_LIMITS.freeOwned} workspaces on the Free plan, the most one person can. Upgrade one of them, or work in one you have.`,
    )
  }
  if ((counts?.lastDay ?? 0) >= WORKSPACE_LIMITS.createdPerDay) {
    const [oldest] = await tx
      .select({ wait: secondsUntilOneLeaves(orgs.createdAt) })
      .from(memberships)
      .innerJoin(orgs, eq(orgs.id, memberships.orgId))
      .where(and(owned, withinLastDay(orgs.createdAt)))
    throw tooMany(`You have created ${WORKSPACE_LIMITS.createdPerDay} workspaces in the last 24 hours, the most one person can.`, oldest?.wait ?? DAY_SECONDS)
  }
}

/**
 * Refuses an invitation beyond the workspace's daily limit or the address's. Call after
 * lockWorkspace (which serialises one workspace's invitations); the address is locked here,
 * always second, so invitations from different workspaces to one address are counted one at a
 * time and no two transactions wait for each other's first lock.
 */
export async function limitInvitations(tx: Db, orgId: string, email: string): Promise<void> {
  const invitations = (scope: ReturnType<typeof eq>) => and(eq(accountTokens.purpose, 'invitation'), scope, withinLastDay(accountTokens.createdAt))
  const day = { count: sql<number>`count(*)`.mapWith(Number), wait: secondsUntilOneLeaves(accountTokens.createdAt) }

  const [sent] = await tx
    .select(day)
    .from(accountTokens)
    .where(invitations(eq(accountTokens.orgId, orgId)))
  if (sent && sent.count >= WORKSPACE_LIMITS.invitationsPerWorkspacePerDay) {
    throw tooMany(`This workspace has sent ${WORKSPACE_LIMITS.invitationsPerWorkspacePerDay} invitations in the last 24 hours, the most it can.`, sent.wait)
  }
  await tx.execute(sql`select pg_advisory_xact_lock(hashtextextended(${`signet:invitations-to:${email}`}, 0))`)
  const [received] = await tx
    .select(day)
    .from(accountTokens)
    .where(invitations(eq(accountTokens.email, email)))
  if (received && received.count >= WORKSPACE_LIMITS.invitationsPerAddressPerDay) {
    throw tooMany(
      `${email} has been invited ${WORKSPACE_LIMITS.invitationsPerAddressPerDay} times in the last 24 hours, the most one address can be.`,
      received.wait,
    )
  }
}
