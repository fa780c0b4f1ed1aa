import { and, eq, isNull } from 'drizzle-orm'
import type { Actor } from '../actors/actor.ts'
import { accountTokens, memberships, orgs, userSessions, users, type WorkspaceRole } from '../db/schema.ts'
import { AppError, notFound } from '../errors.ts'
import { isUuid } from '../lib/ids.ts'
import { enqueueMail } from '../mail/outbox.ts'
import { workspaceInvitationMail } from '../mail/templates.ts'
import { ACCOUNT_TOKEN_TTL_MS, consumeToken, findLiveToken, invitationOffer, issueAccountToken } from './account-tokens.ts'
import { dashboardLink } from './account-mail.ts'
import type { Me, PendingInvitation } from './accounts.schemas.ts'
import { presentMe } from './me.ts'
import { requireManager, requireSignedIn } from './roles.ts'
import type { SignedInSession } from './sessions.ts'
import { normalizeEmail, type AccountServices } from './sign-up.ts'

/**
 * Invitations: a single-use link mailed to one address, valid 7 days, offering a role in the
 * workspace. Owners and admins invite; only an owner invites an owner.
 */
export async function inviteMember(services: AccountServices, actor: Actor, input: { email: string; role: WorkspaceRole }): Promise<PendingInvitation> {
  const inviter = requireSignedIn(actor)
  requireManager(actor, 'members')
  if (input.role === 'owner' && inviter.role !== 'owner') throw new AppError('forbidden', 'Only an owner can invite an owner.')
  const email = normalizeEmail(input.email)
  const now = services.clock.now()
  const invitation = await services.db.transaction(async (tx) => {
    const [member] = await tx
      .select({ userId: users.id })
      .from(memberships)
      .innerJoin(users, eq(users.id, memberships.userId))
      .where(and(eq(memberships.orgId, actor.orgId), eq(users.email, email)))
    if (member) throw new AppError('conflict', `${email} is already a member of this workspace.`)
    const { token, row } = await issueAccountToken(tx, 'invitation', { email, orgId: actor.orgId, role: input.role, createdByUserId: inviter.id }, now)
    const mail = workspaceInvitationMail({
      inviterName: inviter.name,
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
        .where(and(eq(accountTokens.id, invitationId), eq(accountTokens.orgId, actor.orgId), eq(accountTokens.purpose, 'invitation'), isNull(accountTokens.usedAt)))
        .returning({ id: accountTokens.id })
    : []
  if (revoked.length === 0) throw notFound('No such pending invitation in this workspace.')
}

/** What the invitation page shows before anyone signs in (the token is the credential). */
export async function previewInvitation(services: AccountServices, token: string) {
  const found = await findLiveToken(services.db, 'invitation', token, services.clock.now())
  const offer = invitationOffer(found)
  const [org] = await services.db.select({ name: orgs.name }).from(orgs).where(eq(orgs.id, offer.orgId))
  const [inviter] = found.createdByUserId ? await services.db.select({ name: users.name }).from(users).where(eq(users.id, found.createdByUserId)) : []
  return { workspace_name: org?.name ?? '', email: offer.email, role: offer.role, inviter_name: inviter?.name ?? null }
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
    await consumeToken(tx, 'invitation', token, now)
    await tx.insert(memberships).values({ orgId: offer.orgId, userId: session.userId, role: offer.role, createdAt: now }).onConflictDoNothing()
    await tx.update(userSessions).set({ orgId: offer.orgId }).where(eq(userSessions.id, session.sessionId))
  })
  return presentMe(db, session.userId, offer.orgId)
}
