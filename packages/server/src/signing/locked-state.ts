import { eq } from 'drizzle-orm'
import type { AuthMethod } from '../audit/audit-trail.ts'
import type { Db } from '../db/client.ts'
import { documents, signers } from '../db/schema.ts'
import { documentColumns, signerColumns, type SignerContext } from './signer-context.ts'

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

/** The audit fields naming the signer and their request. */
export const actorOf = (signer: SignerContext['signer'], meta: RequestMeta) => ({
  signerId: signer.id,
  actorEmail: signer.email,
  actorName: signer.name,
  ip: meta.ip,
  userAgent: meta.userAgent,
  authMethod: authMethodOf(signer),
})
