import { asc, eq } from 'drizzle-orm'
import type { SignedInSession } from '../accounts/sessions.ts'
import type { Db } from '../db/client.ts'
import { connectedApps, memberships, orgs, type Scope, type WorkspaceRole } from '../db/schema.ts'
import { AppError } from '../errors.ts'
import { OAUTH_SCOPES } from './oauth-urls.ts'

/** An authorization request waiting for the person's answer, as the consent page needs it. */
export interface PendingAuthorization {
  clientId: string
  /** The name the client gave itself (registration) or its metadata document gives. */
  clientName: string | null
  clientUri: string | null
  /** A metadata-document client's name comes from a document at its own https URL; a registered client's is whatever it said. */
  metadataDocument: boolean
  redirectUri: string
  /** Every scope of the request (`scope`, space-separated), ours and OpenID's. */
  requestedScope: string
  /** Answered already (the form posted twice, or replayed): the client is on its way back. */
  answered: boolean
}

export interface ConsentWorkspace {
  id: string
  name: string
  role: WorkspaceRole
  can_grant_write: boolean
  selected: boolean
}

export interface ConsentDetails {
  client: { name: string; name_verified: boolean; uri: string | null; redirect_host: string; metadata_document: boolean }
  requested: Scope[]
  workspaces: ConsentWorkspace[]
  user: { name: string; email: string }
}

/** What a request asks for among our scopes (one naming neither got both at the door: oauth-urls.ts withDefaultScopes). */
function requestedScopesOf(requestedScope: string): Scope[] {
  const asked = requestedScope.split(' ')
  return OAUTH_SCOPES.filter((scope) => asked.includes(scope))
}

const mayGrantWrite = (role: WorkspaceRole): boolean => role === 'owner' || role === 'admin'

/** The name shown for a client: its own, else its host, else its id. */
function clientDisplayName(pending: Pick<PendingAuthorization, 'clientName' | 'clientUri' | 'clientId'>): string {
  const name = pending.clientName?.trim()
  if (name) return name.slice(0, 100)
  const host = pending.clientUri ? URL.parse(pending.clientUri)?.host : undefined
  return host ?? `Unnamed app (${pending.clientId.slice(0, 12)})`
}

/** Where the redirect URI leads, for people: a host, or an app's scheme. */
function redirectHostOf(redirectUri: string): string {
  const url = URL.parse(redirectUri)
  if (!url) return redirectUri
  return url.host || `${url.protocol}//`
}

async function workspacesOf(db: Db, session: SignedInSession): Promise<ConsentWorkspace[]> {
  const rows = await db
    .select({ id: orgs.id, name: orgs.name, role: memberships.role })
    .from(memberships)
    .innerJoin(orgs, eq(orgs.id, memberships.orgId))
    .where(eq(memberships.userId, session.userId))
    .orderBy(asc(memberships.createdAt), asc(orgs.id))
  const selectedId = session.workspace?.orgId ?? rows[0]?.id
  return rows.map((row) => ({ id: row.id, name: row.name, role: row.role, can_grant_write: mayGrantWrite(row.role), selected: row.id === selectedId }))
}

/** The consent page's content: the client as it presents itself, what it asks, the person's workspaces. */
export async function describeConsent(db: Db, session: SignedInSession, pending: PendingAuthorization): Promise<ConsentDetails> {
  const workspaces = await workspacesOf(db, session)
  if (workspaces.length === 0) {
    throw new AppError('forbidden', 'You do not belong to any workspace, so there is nothing to connect an app to. Create a workspace first.')
  }
  return {
    client: {
      name: clientDisplayName(pending),
      name_verified: false,
      uri: pending.clientUri,
      redirect_host: redirectHostOf(pending.redirectUri),
      metadata_document: pending.metadataDocument,
    },
    requested: requestedScopesOf(pending.requestedScope),
    workspaces,
    user: { name: session.name, email: session.email },
  }
}

export interface ConsentAnswer {
  allow: boolean
  workspace_id?: string | undefined
  scopes?: Scope[] | undefined
}

/** Makes oidc-provider's grant (resource scopes for the MCP endpoint, plus the OpenID scopes asked) and returns its id. */
export type GrantMaker = (input: { accountId: string; clientId: string; scopes: Scope[]; openIdScopes: string[] }) => Promise<string>

/**
 * Records the person's answer. Allowed: checks the workspace is theirs and their role may grant
 * what they chose (write: owners and admins), makes the grant and lists it under Connected apps.
 * Returns the grant id for the interaction's result (none when denied).
 */
export async function answerConsent(
  db: Db,
  session: SignedInSession,
  pending: PendingAuthorization,
  answer: ConsentAnswer,
  makeGrant: GrantMaker,
): Promise<{ grantId: string } | null> {
  if (pending.answered) throw new AppError('conflict', 'This request was answered already. Go back to your app.')
  if (!answer.allow) return null
  const { scopes, workspace_id: workspaceId } = answer
  if (!scopes?.length) throw new AppError('invalid_request', 'Choose what the app may do.', {}, {}, '/scopes')
  if (!workspaceId) throw new AppError('invalid_request', 'Choose the workspace the app may use.', {}, {}, '/workspace_id')
  const requested = requestedScopesOf(pending.requestedScope)
  const refused = scopes.find((scope) => !requested.includes(scope))
  if (refused) throw new AppError('invalid_request', `The app did not ask for the ${refused} scope.`, {}, {}, '/scopes')
  const workspace = (await workspacesOf(db, session)).find((candidate) => candidate.id === workspaceId)
  if (!workspace) throw new AppError('not_found', 'You do not belong to that workspace.', {}, {}, '/workspace_id')
  if (scopes.includes('write') && !workspace.can_grant_write) {
    throw new AppError('forbidden', 'Only owners and admins can let an app send or change documents. Allow read-only access instead.', {}, {}, '/scopes')
  }
  const [org] = await db.select({ requireTwoFactor: orgs.requireTwoFactor }).from(orgs).where(eq(orgs.id, workspace.id))
  if (org?.requireTwoFactor && !session.secondFactor) {
    throw new AppError(
      'forbidden',
      `The workspace "${workspace.name}" requires a second sign-in step. Set one up in Account → Security (or sign in again with yours) first.`,
    )
  }
  const openIdScopes = pending.requestedScope.split(' ').filter((scope) => scope === 'openid' || scope === 'offline_access')
  const grantId = await makeGrant({ accountId: session.userId, clientId: pending.clientId, scopes, openIdScopes })
  await db.insert(connectedApps).values({
    grantId,
    orgId: workspace.id,
    userId: session.userId,
    clientId: pending.clientId,
    clientName: clientDisplayName(pending),
    clientUri: pending.clientUri,
    scopes,
  })
  return { grantId }
}
