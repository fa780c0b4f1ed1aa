import { and, eq, inArray, isNull } from 'drizzle-orm'
import type { Actor } from '../actors/actor.ts'
import type { Db } from '../db/client.ts'
import { accountTokens, memberships, orgs, userSessions, users, WORKSPACE_ROLES, type WorkspaceRole } from '../db/schema.ts'
import { AppError, notFound } from '../errors.ts'
import { isUuid } from '../lib/ids.ts'
import { enqueueMail } from '../mail/outbox.ts'
import { workspaceInvitationMail } from '../mail/templates.ts'
import { ACCOUNT_TOKEN_TTL_MS, consumeToken, findLiveToken, invitationOffer, issueAccountToken, type AccountToken } from './account-tokens.ts'
import { dashboardLink } from './account-mail.ts'
import type { Me, PendingInvitation } from './accounts.schemas.ts'
import { presentMe } from './me.ts'
import { mayInvite, requireManager, requireSignedIn } from './roles.ts'
import type { SignedInSession } from './sessions.ts'
import { normalizeEmail, type AccountServices } from './account-context.ts'
import { limitInvitations } from './workspace-limits.ts'
import { lockWorkspace } from './workspace-lock.ts'

/**
 * Invitations: a single-use link mailed to one address, valid 7 days, offering a role in the
 * workspace. Owners and admins invite; only an owner invites an owner. An invitation lives only
 * as long as its sender may still send it: removing or demoting them revokes what they may no
 * longer offer, and using one checks its sender again (for invitations older than that rule).
 */

const SENDER_GONE = 'This invitation no longer works: whoever sent it can no longer invite to this workspace. Ask the workspace for a new one.'

function requireMayInvite(role: WorkspaceRole | null, offered: WorkspaceRole): void {
  if (mayInvite(role, offered)) return
  throw new AppError(
    'forbidden',
    offered === 'owner' && role === 'admin' ? 'Only an owner can invite an owner.' : "Only the workspace's owners and admins can manage members.",
  )
}

/** The role `userId` holds in the workspace now; null once they left it or their account is disabled. */
async function currentRole(tx: Db, orgId: string, userId: string | null): Promise<WorkspaceRole | null> {
  if (!userId) return null
  const [member] = await tx
    .select({ role: memberships.role })
    .from(memberships)
    .innerJoin(users, eq(users.id, memberships.userId))
    .where(and(eq(memberships.orgId, orgId), eq(memberships.userId, userId), isNull(users.disabledAt)))
  return member?.role ?? null
}

async function senderMayStillInvite(tx: Db, invitation: AccountToken): Promise<boolean> {
  const { orgId, role } = invitationOffer(invitation)
  return mayInvite(await currentRole(tx, orgId, invitation.createdByUserId), role)
}

export async function inviteMember(services: AccountServices, actor: Actor, input: { email: string; role: WorkspaceRole }): Promise<PendingInvitation> {
  const inviter = requireSignedIn(actor)
  requireMayInvite(inviter.role, input.role)
  const email = normalizeEmail(input.email)
  const now = services.clock.now()
  const invitation = await services.db.transaction(async (tx) => {
    await lockWorkspace(tx, actor.orgId)
    // Under the lock: a demotion that committed since this request was authenticated counts.
    requireMayInvite(await currentRole(tx, actor.orgId, inviter.id), input.role)
    const [member] = await tx
      .select({ userId: users.id })
      .from(memberships)
      .innerJoin(users, eq(users.id, memberships.userId))
      .where(and(eq(memberships.orgId, actor.orgId), eq(users.email, email)))
    if (member) throw new AppError('conflict', `${email} is already a member of this workspace.`, {}, {}, '/email')
    await limitInvitations(tx, actor.orgId, email)
    const { token, row } = await issueAccountToken(tx, 'invitation', { email, orgId: actor.orgId, role: input.role, createdByUserId: inviter.id }, now)
    const mail = workspaceInvitationMail({
      inviterName: inviter.name,
      inviterEmail: inviter.email,
      workspaceName: actor.orgName,
      role: input.role,
      link: dashboardLink(services.config, `invite/${token}`),
      validDays: ACCOUNT_TOKEN_TTL_MS.invitation / (24 * 3600_000),
    })
    await enqueueMail(tx, [{ to: email, orgId: actor.orgId, ...mail, sensitive: true }])
    return row
  })
  services.mail.kick()
  return { id: invitation.id, email, role: input.role, created_at: invitation.createdAt.toISOString(), expires_at: invitation.expiresAt.toISOString() }
}

export async function revokeInvitation(services: AccountServices, actor: Actor, invitationId: string): Promise<void> {
  requireManager(actor, 'members')
  const revoked = isUuid(invitationId)
    ? await services.db
        .update(accountTokens)
        .set({ usedAt: services.clock.now() })
        .where(
          and(eq(accountTokens.id, invitationId), eq(accountTokens.orgId, actor.orgId), eq(accountTokens.purpose, 'invitation'), isNull(accountTokens.usedAt)),
        )
        .returning({ id: accountTokens.id })
    : []
  if (revoked.length === 0) throw notFound('No such pending invitation in this workspace.')
}

/**
 * Revokes the pending invitations `userId` sent to the workspace that `role` (null: no longer a
 * member) may not send. Called by role changes and removals, in their transaction, under the
 * workspace lock.
 */
export async function revokeInvitationsBeyond(tx: Db, orgId: string, userId: string, role: WorkspaceRole | null, now: Date): Promise<void> {
  const notAllowed = WORKSPACE_ROLES.filter((offered) => !mayInvite(role, offered))
  if (notAllowed.length === 0) return
  await tx
    .update(accountTokens)
    .set({ usedAt: now })
    .where(
      and(
        eq(accountTokens.orgId, orgId),
        eq(accountTokens.purpose, 'invitation'),
        eq(accountTokens.createdByUserId, userId),
        isNull(accountTokens.usedAt),
        inArray(accountTokens.role, notAllowed),
      ),
    )
}

/** What the invitation page shows before anyone signs in (the token is the credential). */
export async function previewInvitation(services: AccountServices, token: string) {
  const { db } = services
  const found = await findLiveToken(db, 'invitation', token, services.clock.now())
  const offer = invitationOffer(found)
  if (!(await senderMayStillInvite(db, found))) throw new AppError('gone', SENDER_GONE)
  const [org] = await db.select({ name: orgs.name }).from(orgs).where(eq(orgs.id, offer.orgId))
  const [inviter] = found.createdByUserId ? await db.select({ name: users.name }).from(users).where(eq(users.id, found.createdByUserId)) : []
  return { workspace_name: org?.name ?? '', email: offer.email, role: offer.role, inviter_name: inviter?.name ?? null }
}

/**
 * Uses the invitation, inside the caller's transaction (accepting it here, or signing up with
 * it): the workspace is locked first, as every membership change does, and the invitation's
 * sender must still be allowed to offer its role (410 otherwise). Returns what it offers.
 */
export async function consumeInvitation(tx: Db, token: string, now: Date): Promise<ReturnType<typeof invitationOffer>> {
  const offer = invitationOffer(await findLiveToken(tx, 'invitation', token, now))
  await lockWorkspace(tx, offer.orgId)
  const used = await consumeToken(tx, 'invitation', token, now)
  if (!(await senderMayStillInvite(tx, used))) throw new AppError('gone', SENDER_GONE)
  return offer
}

/**
 * The signed-in user joins the inviting workspace and this session switches to it. The
 * invitation must have been sent to their address: the link is a credential from that
 * mailbox, not for whoever it was forwarded to.
 */
export async function acceptInvitation(services: AccountServices, session: SignedInSession, token: string): Promise<Me> {
  const { db } = services
  const now = services.clock.now()
  const offer = invitationOffer(await findLiveToken(db, 'invitation', token, now))
  if (offer.email !== session.email) {
    throw new AppError('forbidden', `This invitation was sent to ${offer.email}: sign in with that address to accept it.`)
  }
  await db.transaction(async (tx) => {
    await consumeInvitation(tx, token, now)
    await tx.insert(memberships).values({ orgId: offer.orgId, userId: session.userId, role: offer.role, createdAt: now }).onConflictDoNothing()
    await tx.update(userSessions).set({ orgId: offer.orgId }).where(eq(userSessions.id, session.sessionId))
  })
  return presentMe(db, session.userId, offer.orgId)
}
