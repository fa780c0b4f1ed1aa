import { eq } from 'drizzle-orm'
import type { AuthMethod } from '../audit/audit-trail.ts'
import type { Db } from '../db/client.ts'
import { documents, signers } from '../db/schema.ts'
import { documentColumns, signerColumns, type EmbeddedAccess, type SignerContext } from './signer-context.ts'

/** Who is acting on a signing link, as the audit trail records it. */
export interface RequestMeta {
  ip: string
  userAgent: string | null
}

/**
 * Locks the document row for the rest of the transaction and re-reads what the
 * decision depends on. Every signer transition starts here, so two signers acting
 * at the same instant are serialised and see each other's effects.
 */
export async function lockSignerState(tx: Db, context: SignerContext): Promise<Pick<SignerContext, 'document' | 'signer'>> {
  const [document] = await tx.select(documentColumns).from(documents).where(eq(documents.id, context.document.id)).for('update')
  const [signer] = await tx.select(signerColumns).from(signers).where(eq(signers.id, context.signer.id))
  if (!document || !signer) throw new Error('signer or document vanished')
  return { document, signer }
}

export const authMethodOf = (signer: { authRequired: boolean }): AuthMethod => (signer.authRequired ? 'email_link+email_code' : 'email_link')

/**
 * The audit fields naming the signer and their request. On an embedded page (signing/embed) the
 * integrator's credential vouched for the signer: the method is that credential's, and `data` says
 * the event happened embedded and who vouched (events add their own `data` fields beside it).
 */
export const actorOf = (signer: SignerContext['signer'], meta: RequestMeta, embedded?: EmbeddedAccess) => ({
  signerId: signer.id,
  actorEmail: signer.email,
  actorName: signer.name,
  ip: meta.ip,
  userAgent: meta.userAgent,
  authMethod: embedded ? vouchingMethodOf(embedded) : authMethodOf(signer),
  ...(embedded ? { data: embeddedAuditData(embedded) } : {}),
})

/** The auth method of the credential that vouched for an embedded signer (the first word of vouchedBy). */
const vouchingMethodOf = (embedded: EmbeddedAccess): AuthMethod =>
  embedded.vouchedBy.startsWith('session ') ? 'session' : embedded.vouchedBy.startsWith('oauth ') ? 'oauth' : 'api_key'

/** What every audit event of an embedded page carries in `data`. */
export const embeddedAuditData = (embedded: EmbeddedAccess) => ({
  embedded: true,
  vouched_by: embedded.vouchedBy,
  signer_authenticated_by_integrator: embedded.signerAuthenticated,
})
