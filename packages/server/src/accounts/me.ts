import { and, asc, eq } from 'drizzle-orm'
import type { Db } from '../db/client.ts'
import { memberships, orgs, userSessions, users } from '../db/schema.ts'
import { invalid, notFound } from '../errors.ts'
import { isUuid } from '../lib/ids.ts'
import { describeHiddenText, problemInName } from '../lib/visible-text.ts'
import type { Me } from './accounts.schemas.ts'
import { abilitiesOf } from './roles.ts'
import type { SignedInSession } from './sessions.ts'
import { limitWorkspaceCreation } from './workspace-limits.ts'

/** The user, the workspace a session acts in and every workspace they belong to: what the dashboard shows in its header. */
export async function presentMe(db: Db, userId: string, selectedOrgId: string | null): Promise<Me> {
  const [user] = await db.select().from(users).where(eq(users.id, userId))
  if (!user) throw notFound('No such user.')
  const rows = await db
    .select({ id: orgs.id, name: orgs.name, plan: orgs.plan, role: memberships.role, require_two_factor: orgs.requireTwoFactor })
    .from(memberships)
    .innerJoin(orgs, eq(orgs.id, memberships.orgId))
    .where(eq(memberships.userId, userId))
    .orderBy(asc(memberships.createdAt), asc(orgs.id))
  const workspace = rows.find((row) => row.id === selectedOrgId) ?? null
  return {
    user: { id: user.id, email: user.email, name: user.name, is_operator: user.isOperator, email_verified: user.emailVerifiedAt !== null },
    workspace,
    workspaces: rows,
    abilities: abilitiesOf(workspace?.role ?? null, user.isOperator),
  }
}

export const meOf = (db: Db, session: SignedInSession): Promise<Me> => presentMe(db, session.userId, session.workspace?.orgId ?? null)

/**
 * A person's or a workspace's name as stored: trimmed, not blank, showing all it holds (the CLI's
 * too, which no schema checks). `field` is where the request carries the name, when one does.
 */
export const cleanName = (name: string, what: string, field?: string): string => {
  const trimmed = name.trim()
  if (trimmed.length === 0) throw invalid(`${what} cannot be blank.`, { field })
  const problem = problemInName(trimmed)
  if (problem) throw invalid(`${what} ${describeHiddenText(problem)}.`, { field })
  return trimmed
}

export async function updateMe(db: Db, session: SignedInSession, input: { name: string }): Promise<Me> {
  await db
    .update(users)
    .set({ name: cleanName(input.name, 'Your name', '/name') })
    .where(eq(users.id, session.userId))
  return meOf(db, session)
}

/** Makes the session act in another of the user's workspaces; one they do not belong to is a 404. */
export async function switchWorkspace(db: Db, session: SignedInSession, workspaceId: string): Promise<Me> {
  const [membership] = isUuid(workspaceId)
    ? await db
        .select()
        .from(memberships)
        .where(and(eq(memberships.orgId, workspaceId), eq(memberships.userId, session.userId)))
    : []
  if (!membership) throw notFound('You do not belong to that workspace.')
  await db.update(userSessions).set({ orgId: workspaceId }).where(eq(userSessions.id, session.sessionId))
  return presentMe(db, session.userId, workspaceId)
}

/**
 * A new Free workspace with its creator as owner (no API key: owners create keys in Settings).
 * `nameField` is where the request carries the name, when one does.
 */
export async function insertWorkspace(tx: Db, input: { name: string; ownerId: string; nameField?: string }): Promise<string> {
  const [org] = await tx
    .insert(orgs)
    .values({ name: cleanName(input.name, 'The workspace name', input.nameField), plan: 'free' })
    .returning({ id: orgs.id })
  if (!org) throw new Error('insert returned no row')
  await tx.insert(memberships).values({ orgId: org.id, userId: input.ownerId, role: 'owner' })
  return org.id
}

/** A further workspace of the signed-in person, within their limits (accounts/workspace-limits.ts). */
export async function createWorkspace(db: Db, session: SignedInSession, input: { name: string }): Promise<Me> {
  const orgId = await db.transaction(async (tx) => {
    await limitWorkspaceCreation(tx, session.userId)
    const id = await insertWorkspace(tx, { name: input.name, ownerId: session.userId, nameField: '/name' })
    await tx.update(userSessions).set({ orgId: id }).where(eq(userSessions.id, session.sessionId))
    return id
  })
  return presentMe(db, session.userId, orgId)
}
