import type { Plan, Scope } from '../db/schema.ts'

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
}
