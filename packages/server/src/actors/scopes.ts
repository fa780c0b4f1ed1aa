import { AppError } from '../errors.ts'
import { SCOPES, type Scope } from '../db/schema.ts'
import type { Actor } from './actor.ts'

export { SCOPES, type Scope }

/** The words for a credential whose scopes fall short: an API key or an OAuth grant. */
const credentialOf = (actor: Pick<Actor, 'authMethod'>): string => (actor.authMethod === 'oauth' ? 'OAuth grant' : 'API key')

/** What a credential with these scopes is, in a refusal: "read-only", "write-only". */
const limitedTo = (scopes: readonly Scope[]): string => (scopes.length === 1 ? `${scopes[0]}-only` : 'without scopes')

/** Whether the actor holds the scope (the agent tools a caller is shown). */
export const hasScope = (actor: Pick<Actor, 'scopes'>, scope: Scope): boolean => actor.scopes.includes(scope)

/**
 * The one scope check of the service: every REST route an API key reaches (http/auth.ts, by the
 * request's method) and every agent tool (mcp/toolbox.ts) call it, for API keys and OAuth tokens alike.
 * `what` names the refused action for the caller: "POST /api/v1/documents", "the tool void_document".
 */
export function requireScope(actor: Pick<Actor, 'scopes' | 'authMethod'>, scope: Scope, what: string): void {
  if (hasScope(actor, scope)) return
  throw new AppError('insufficient_scope', `This ${credentialOf(actor)} is ${limitedTo(actor.scopes)}: ${what} needs the ${scope} scope.`)
}
