import type { Principal } from '../actors/principal.ts'
import { checkAuditChain, readAuditTrail, type AuditEvent } from '../audit/audit-trail.ts'
import type { Db } from '../db/client.ts'
import type { DocumentAudit } from './documents.schemas.ts'
import { findDocument } from './find-document.ts'

const presentEvent = (event: AuditEvent): DocumentAudit['events'][number] => ({
  seq: event.seq,
  at: event.occurredAt.toISOString(),
  event: event.type,
  actor: event.actorEmail ?? event.actorName,
  signer_id: event.signerId,
  ip: event.ip,
  user_agent: event.userAgent,
  auth_method: event.authMethod,
  agent_triggered: event.agentTriggered,
  data: event.data,
  hash: event.hash,
})

/** The document's audit trail in order, with its hash chain checked as the signed PDF's certificate checks it. */
export async function getDocumentAudit(db: Db, principal: Principal, documentId: string): Promise<DocumentAudit> {
  const document = await findDocument(db, principal.orgId, documentId)
  const trail = await readAuditTrail(db, document.id)
  return { events: trail.map(presentEvent), chain_valid: checkAuditChain(trail).intact }
}
