import type { Plan, Scope, WorkspaceRole } from '../db/schema.ts'

/** The org a request acts for, as authentication found it (an API key's org, or the dashboard's selected workspace). */
export interface Principal {
  orgId: string
  orgName: string
  plan: Plan
}

/** What a presented credential grants: the org it acts for and what it may do there (actors/scopes.ts). */
export interface Grant {
  principal: Principal
  scopes: readonly Scope[]
  /** For an OAuth access token: the client it was issued to and the person who granted it. */
  oauth?: OAuthGrantHolder
}

/** Who holds an OAuth grant: the client (an AI agent) and the workspace member who allowed it. */
export interface OAuthGrantHolder {
  grantId: string
  clientName: string
  user: { id: string; email: string; name: string; role: WorkspaceRole; isOperator: boolean }
}
