import { and, eq, isNull, notExists } from 'drizzle-orm'
import type { Actor } from '../../actors/actor.ts'
import type { Db } from '../../db/client.ts'
import { memberships, orgs, passkeys, users } from '../../db/schema.ts'
import { AppError } from '../../errors.ts'
import { recordAndNotify, type EventOrigin } from '../account-events.ts'
import { requireOwner, requireSignedIn } from '../roles.ts'
import { hasSecondFactor } from './enrolment.ts'
import type { TwoFactorServices } from './two-factor-services.ts'

/*
 * Settings → Members: an owner may require a second factor of everyone who signs in to the
 * workspace. A member without one can still sign in, but their session sees only their own
 * account pages until they set one up (http/auth.ts principalOf); API keys are unaffected.
 */

/** Members who have neither an authenticator app nor a passkey. */
function membersWithoutSecondFactor(db: Db, orgId: string) {
  return db
    .select({ user_id: users.id, name: users.name, email: users.email })
    .from(memberships)
    .innerJoin(users, eq(users.id, memberships.userId))
    .where(
      and(
        eq(memberships.orgId, orgId),
        isNull(users.totpEnabledAt),
        notExists(db.select({ id: passkeys.id }).from(passkeys).where(eq(passkeys.userId, users.id))),
      ),
    )
    .orderBy(users.email)
}

/** Whether the workspace requires a second factor; owners and admins also see who has none yet. */
export async function workspaceSecurity(db: Db, actor: Actor) {
  const user = requireSignedIn(actor)
  const [org] = await db.select({ requireTwoFactor: orgs.requireTwoFactor }).from(orgs).where(eq(orgs.id, actor.orgId))
  return {
    require_two_factor: org?.requireTwoFactor ?? false,
    members_without_two_factor: user.role === 'member' ? [] : await membersWithoutSecondFactor(db, actor.orgId),
  }
}

/**
 * Turns the rule on or off (owners only). Turning it on needs the owner to have a second factor
 * themself — otherwise they would shut themself out. Every member is told by mail, and the
 * change is in each one's security log.
 */
export async function setWorkspaceTwoFactor(services: TwoFactorServices, actor: Actor, input: { require_two_factor: boolean }, origin: EventOrigin) {
  const owner = requireOwner(actor, 'require two-factor sign-in')
  const { db } = services
  if (input.require_two_factor && !(await hasSecondFactor(db, owner.id))) {
    throw new AppError('conflict', 'Set up a second sign-in step for yourself first (Account → Security): the rule applies to you too.')
  }
  const now = services.clock.now()
  await db.transaction(async (tx) => {
    const [before] = await tx.select({ requireTwoFactor: orgs.requireTwoFactor }).from(orgs).where(eq(orgs.id, actor.orgId)).for('update')
    if (!before || before.requireTwoFactor === input.require_two_factor) return
    await tx.update(orgs).set({ requireTwoFactor: input.require_two_factor }).where(eq(orgs.id, actor.orgId))
    const members = await tx
      .select({ id: users.id, email: users.email, name: users.name })
      .from(memberships)
      .innerJoin(users, eq(users.id, memberships.userId))
      .where(eq(memberships.orgId, actor.orgId))
    const kind = input.require_two_factor ? 'workspace.two_factor_required' : 'workspace.two_factor_optional'
    for (const member of members) {
      await recordAndNotify(
        tx,
        services.config,
        member,
        { kind, orgId: actor.orgId, actorUserId: owner.id, origin, details: { workspace: actor.orgName } },
        now,
      )
    }
  })
  services.mail.kick()
  return workspaceSecurity(db, actor)
}
