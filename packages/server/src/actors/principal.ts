import type { Plan } from '../db/schema.ts'

/** The org a request acts for, as authentication found it (an API key's org, or the dashboard's selected workspace). */
export interface Principal {
  orgId: string
  orgName: string
  plan: Plan
}
