import type { ActingUser, Actor } from '../actors/actor.ts'
import type { WorkspaceRole } from '../db/schema.ts'
import type { Abilities } from './accounts.schemas.ts'
import { AppError } from '../errors.ts'

/**
 * What a workspace role may do. API keys act as the whole org (they are created by owners and
 * admins), so only a dashboard user's role narrows what an Actor may do.
 */
export function requireSignedIn(actor: Actor): ActingUser {
  if (!actor.user) throw new AppError('unauthenticated', 'Sign in to the dashboard for this; API keys cannot use it.')
  return actor.user
}

const isManager = (role: WorkspaceRole | null | undefined): boolean => role === 'owner' || role === 'admin'

/** Keys, webhooks, billing and members: owners and admins (and API keys) only. */
export function requireManager(actor: Actor, what: string): void {
  if (actor.user && !isManager(actor.user.role)) {
    throw new AppError('forbidden', `Only the workspace's owners and admins can manage ${what}.`)
  }
}

/** Whether someone with `role` in a workspace may invite to it as `offered`: owners anyone, admins anyone but an owner. */
export const mayInvite = (role: WorkspaceRole | null | undefined, offered: WorkspaceRole): boolean =>
  role === 'owner' || (role === 'admin' && offered !== 'owner')

/** The identity check and deleting the workspace: the owner alone. */
export function requireOwner(actor: Actor, what: string): ActingUser {
  const user = requireSignedIn(actor)
  if (user.role !== 'owner') throw new AppError('forbidden', `Only the workspace's owner can ${what}.`)
  return user
}

/** The Operator area: instance operators only. */
export function requireOperator(actor: Actor): ActingUser {
  const user = requireSignedIn(actor)
  if (!user.isOperator) throw new AppError('forbidden', 'Only the instance operator can do this.')
  return user
}

/**
 * What a signed-in person may do in the workspace they act in, by the rules above: GET /me's
 * `abilities`, so the dashboard shows only what the server would allow.
 */
export const abilitiesOf = (role: WorkspaceRole | null, isOperator: boolean): Abilities => ({
  manage_api_keys: isManager(role),
  manage_connected_apps: isManager(role),
  manage_webhooks: isManager(role),
  manage_billing: isManager(role),
  manage_members: isManager(role),
  manage_owners: mayInvite(role, 'owner'),
  manage_identity_check: role === 'owner',
  require_two_factor: role === 'owner',
  operate_instance: isOperator,
})
