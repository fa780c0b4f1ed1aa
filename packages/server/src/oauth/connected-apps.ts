import { and, desc, eq, inArray, or, sql } from 'drizzle-orm'
import type { Actor } from '../actors/actor.ts'
import { requireSignedIn } from '../accounts/roles.ts'
import { announcePrincipalsChanged } from '../api-keys/api-keys.ts'
import type { Db } from '../db/client.ts'
import { connectedApps, oauthRecords, users, type Scope } from '../db/schema.ts'
import { notFound, AppError } from '../errors.ts'
import { sha256Hex } from '../lib/crypto.ts'
import type { Services } from '../services.ts'

export interface ConnectedApp {
  id: string
  client_name: string
  client_name_verified: boolean
  client_uri: string | null
  scopes: Scope[]
  granted_by: { id: string; name: string; email: string } | null
  granted_at: string
  last_used_at: string | null
}

/** Only a grant oidc-provider still holds is listed (it ends one itself when a used refresh token comes back: a theft). */
const grantStillHeld = sql`exists (select 1 from ${oauthRecords} where ${oauthRecords.model} = 'Grant'
  and ${oauthRecords.idHash} = encode(sha256(convert_to(${connectedApps.grantId}, 'UTF8')), 'hex')
  and (${oauthRecords.expiresAt} is null or ${oauthRecords.expiresAt} > now()))`

/** Settings → Connected apps: every OAuth grant of the workspace, newest first; any member sees them. */
export async function listConnectedApps(db: Db, actor: Actor): Promise<ConnectedApp[]> {
  requireSignedIn(actor)
  const rows = await db
    .select({ app: connectedApps, user: { id: users.id, name: users.name, email: users.email } })
    .from(connectedApps)
    .leftJoin(users, eq(users.id, connectedApps.userId))
    .where(and(eq(connectedApps.orgId, actor.orgId), grantStillHeld))
    .orderBy(desc(connectedApps.createdAt))
  return rows.map(({ app, user }) => ({
    id: app.grantId,
    client_name: app.clientName,
    client_name_verified: false,
    client_uri: app.clientUri,
    scopes: app.scopes,
    granted_by: user,
    granted_at: app.createdAt.toISOString(),
    last_used_at: app.lastUsedAt?.toISOString() ?? null,
  }))
}

const mayRevokeAny = (actor: Actor): boolean => actor.user?.role === 'owner' || actor.user?.role === 'admin'

/**
 * Revokes a grant: the row, oidc-provider's grant and every code and token issued under it go
 * in one transaction, and every process forgets cached tokens on its commit, so the next MCP
 * call with them is 401 everywhere. Owners and admins revoke any grant; a member their own.
 */
export async function revokeConnectedApp(services: Pick<Services, 'db' | 'principals'>, actor: Actor, grantId: string): Promise<void> {
  const user = requireSignedIn(actor)
  await services.db.transaction(async (tx) => {
    const [app] = await tx
      .select({ userId: connectedApps.userId })
      .from(connectedApps)
      .where(and(eq(connectedApps.orgId, actor.orgId), eq(connectedApps.grantId, grantId)))
    if (!app) throw notFound('No such connected app in this workspace.')
    if (!mayRevokeAny(actor) && app.userId !== user.id) {
      throw new AppError('forbidden', "Only the workspace's owners and admins can revoke an app someone else connected.")
    }
    await endGrants(tx, [grantId])
  })
  // The NOTIFY reaches this process too, but later: the next call here must already be refused.
  services.principals.clear()
}

/** Ends every grant a person made in a workspace (they were removed from it or left), with its tokens, on every process. */
export async function revokeGrantsOfMember(tx: Db, orgId: string, userId: string): Promise<void> {
  const apps = await tx
    .select({ grantId: connectedApps.grantId })
    .from(connectedApps)
    .where(and(eq(connectedApps.orgId, orgId), eq(connectedApps.userId, userId)))
  if (apps.length > 0)
    await endGrants(
      tx,
      apps.map((app) => app.grantId),
    )
}

/** Deletes grants' rows, oidc-provider's grants and every code and token issued under them, and tells every process. */
async function endGrants(tx: Db, grantIds: string[]): Promise<void> {
  await tx.delete(connectedApps).where(inArray(connectedApps.grantId, grantIds))
  await tx
    .delete(oauthRecords)
    .where(or(inArray(oauthRecords.grantId, grantIds), and(eq(oauthRecords.model, 'Grant'), inArray(oauthRecords.idHash, grantIds.map(sha256Hex)))))
  await announcePrincipalsChanged(tx)
}
