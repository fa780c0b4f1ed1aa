import { and, asc, eq, gt, isNull, ne } from 'drizzle-orm'
import type { Actor } from '../actors/actor.ts'
import type { Db } from '../db/client.ts'
import type { Services } from '../services.ts'
import { accountTokens, memberships, userSessions, users, type WorkspaceRole } from '../db/schema.ts'
import { AppError, notFound } from '../errors.ts'
import { isUuid } from '../lib/ids.ts'
import type { Member, PendingInvitation } from './accounts.schemas.ts'
import { revokeInvitationsBeyond } from './invitations.ts'
import { requireManager, requireSignedIn } from './roles.ts'
import { firstWorkspaceOf } from './sessions.ts'
import { lockWorkspace } from './workspace-lock.ts'
import { revokeGrantsOfMember } from '../oauth/connected-apps.ts'
import { announcePrincipalsChanged } from '../api-keys/api-keys.ts'

const LAST_OWNER = 'A workspace needs at least one owner: make someone else owner first.'

/** Invitations of the workspace still waiting for an answer. */
export async function pendingInvitations(db: Db, orgId: string, now: Date): Promise<PendingInvitation[]> {
  const rows = await db
    .select()
    .from(accountTokens)
    .where(and(eq(accountTokens.orgId, orgId), eq(accountTokens.purpose, 'invitation'), isNull(accountTokens.usedAt), gt(accountTokens.expiresAt, now)))
    .orderBy(asc(accountTokens.createdAt))
  return rows.map((row) => ({
    id: row.id,
    email: row.email ?? '',
    role: row.role ?? 'member',
    created_at: row.createdAt.toISOString(),
    expires_at: row.expiresAt.toISOString(),
  }))
}

/** Everyone in the actor's workspace, and who is invited: any role may look. */
export async function listMembers(db: Db, actor: Actor, now: Date): Promise<{ members: Member[]; invitations: PendingInvitation[] }> {
  const rows = await db
    .select({ user_id: users.id, email: users.email, name: users.name, role: memberships.role, joined: memberships.createdAt })
    .from(memberships)
    .innerJoin(users, eq(users.id, memberships.userId))
    .where(eq(memberships.orgId, actor.orgId))
    .orderBy(asc(memberships.createdAt), asc(users.email))
  return {
    members: rows.map(({ joined, ...member }) => ({ ...member, joined_at: joined.toISOString() })),
    invitations: await pendingInvitations(db, actor.orgId, now),
  }
}

/** Owners may do anything to roles; admins may not touch owners nor make one. */
function requireMayAssign(actor: Actor, from: WorkspaceRole, to: WorkspaceRole): void {
  requireManager(actor, 'members')
  if (actor.user?.role === 'admin' && (from === 'owner' || to === 'owner')) {
    throw new AppError('forbidden', 'Only an owner can make someone an owner or change an owner.')
  }
}

async function membershipOf(tx: Db, orgId: string, userId: string) {
  const [membership] = isUuid(userId)
    ? await tx
        .select({ role: memberships.role, joined: memberships.createdAt, email: users.email, name: users.name })
        .from(memberships)
        .innerJoin(users, eq(users.id, memberships.userId))
        .where(and(eq(memberships.orgId, orgId), eq(memberships.userId, userId)))
        .for('update', { of: memberships })
    : []
  if (!membership) throw notFound('No such member in this workspace.')
  return membership
}

/** Whether another owner than `userId` remains. Exact: the caller holds the workspace lock, so no other change runs meanwhile. */
async function anotherOwnerRemains(tx: Db, orgId: string, userId: string): Promise<boolean> {
  const owners = await tx
    .select({ userId: memberships.userId })
    .from(memberships)
    .where(and(eq(memberships.orgId, orgId), eq(memberships.role, 'owner'), ne(memberships.userId, userId)))
    .limit(1)
  return owners.length > 0
}

/**
 * Changes a member's role; the invitations they sent that the new role may not send are revoked,
 * and every process forgets the OAuth tokens it cached, so an app the member connected loses at
 * once what the new role may not hold (write, for a member).
 */
export async function updateMember(
  services: Pick<Services, 'db' | 'principals'>,
  actor: Actor,
  userId: string,
  role: WorkspaceRole,
  now: Date,
): Promise<Member> {
  const updated = await services.db.transaction(async (tx) => {
    await lockWorkspace(tx, actor.orgId)
    const member = await membershipOf(tx, actor.orgId, userId)
    requireMayAssign(actor, member.role, role)
    if (member.role === 'owner' && role !== 'owner' && !(await anotherOwnerRemains(tx, actor.orgId, userId))) throw new AppError('conflict', LAST_OWNER)
    await tx
      .update(memberships)
      .set({ role })
      .where(and(eq(memberships.orgId, actor.orgId), eq(memberships.userId, userId)))
    await revokeInvitationsBeyond(tx, actor.orgId, userId, role, now)
    await announcePrincipalsChanged(tx)
    return { user_id: userId, email: member.email, name: member.name, role, joined_at: member.joined.toISOString() }
  })
  // This process at once: the member's next request here must not wait for the notification.
  services.principals.clear()
  return updated
}

/**
 * Removes a member, or lets a member leave (anyone may remove themselves). Their sessions
 * acting in this workspace move to another of theirs, or to none; their pending invitations
 * to it are revoked, and so are the apps they connected to it (Connected apps).
 */
export async function removeMember(services: Pick<Services, 'db' | 'principals'>, actor: Actor, userId: string, now: Date): Promise<void> {
  const { db } = services
  const self = requireSignedIn(actor).id === userId
  await db.transaction(async (tx) => {
    await lockWorkspace(tx, actor.orgId)
    const member = await membershipOf(tx, actor.orgId, userId)
    if (!self) requireMayAssign(actor, member.role, member.role)
    if (member.role === 'owner' && !(await anotherOwnerRemains(tx, actor.orgId, userId))) throw new AppError('conflict', LAST_OWNER)
    await tx.delete(memberships).where(and(eq(memberships.orgId, actor.orgId), eq(memberships.userId, userId)))
    await revokeInvitationsBeyond(tx, actor.orgId, userId, null, now)
    await revokeGrantsOfMember(tx, actor.orgId, userId)
    const next = await firstWorkspaceOf(tx, userId)
    await tx
      .update(userSessions)
      .set({ orgId: next })
      .where(and(eq(userSessions.userId, userId), eq(userSessions.orgId, actor.orgId)))
  })
  // revokeGrantsOfMember NOTIFYs every process; this one forgets the member's app tokens at once.
  services.principals.clear()
}
