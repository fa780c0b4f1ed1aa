import { asc, count, eq, sql } from 'drizzle-orm'
import { alias } from 'drizzle-orm/pg-core'
import type { Actor } from '../actors/actor.ts'
import { requireOperator } from '../accounts/roles.ts'
import { identityChecks, orgs, users } from '../db/schema.ts'
import { AppError, invalid, notFound } from '../errors.ts'
import { isUuid } from '../lib/ids.ts'
import { decideIdentityCheck, type IdentityCheckServices } from '../orgs/identity-checks.ts'
import type { IdentityCheckQueue, IdentityCheckRecord, IdentityDecisionBody } from '../orgs/identity-checks.schemas.ts'
import type { Db } from '../db/client.ts'
import type { IdentityCheckStatus } from '../db/schema.ts'

/*
 * The operator's side of identity checks: the queue, the submitted document (the only place it
 * is ever shown) and the decision.
 */

const submitter = alias(users, 'submitter')

/** Everything but the document itself (up to 10 MB a row): lists never read it. */
const recordColumns = {
  id: identityChecks.id,
  orgId: identityChecks.orgId,
  orgName: orgs.name,
  legalName: identityChecks.legalName,
  status: identityChecks.status,
  verifier: identityChecks.verifier,
  verifierReference: identityChecks.verifierReference,
  createdAt: identityChecks.createdAt,
  submitterName: submitter.name,
  submitterEmail: submitter.email,
  documentFilename: identityChecks.documentFilename,
  documentContentType: identityChecks.documentContentType,
  hasDocument: sql<boolean>`${identityChecks.documentCiphertext} is not null`,
  decidedAt: identityChecks.decidedAt,
  decidedBy: identityChecks.decidedBy,
  decisionReason: identityChecks.decisionReason,
}

type RecordRow = Awaited<ReturnType<ReturnType<typeof selectRecords>['execute']>>[number]

function presentRecord(row: RecordRow): IdentityCheckRecord {
  return {
    id: row.id,
    org_id: row.orgId,
    org_name: row.orgName,
    legal_name: row.legalName,
    status: row.status,
    verifier: row.verifier,
    verifier_reference: row.verifierReference,
    submitted_at: row.createdAt.toISOString(),
    submitted_by: row.submitterName !== null && row.submitterEmail !== null ? { name: row.submitterName, email: row.submitterEmail } : null,
    document:
      row.hasDocument && row.documentFilename !== null && row.documentContentType !== null
        ? { filename: row.documentFilename, content_type: row.documentContentType }
        : null,
    decided_at: row.decidedAt?.toISOString() ?? null,
    decided_by: row.decidedBy,
    decision_reason: row.decisionReason,
  }
}

const selectRecords = (db: Db) =>
  db.select(recordColumns).from(identityChecks).innerJoin(orgs, eq(orgs.id, identityChecks.orgId)).leftJoin(submitter, eq(submitter.id, identityChecks.submittedByUserId))

/** The checks in one status (pending: the queue), oldest first; also what `admin org identity-checks` prints. */
export async function identityCheckQueue(db: Db, query: { status?: IdentityCheckStatus; limit?: number; offset?: number }): Promise<IdentityCheckQueue> {
  const { status = 'pending', limit = 50, offset = 0 } = query
  const [rows, [counted]] = await Promise.all([
    selectRecords(db).where(eq(identityChecks.status, status)).orderBy(asc(identityChecks.createdAt), asc(identityChecks.id)).limit(limit).offset(offset),
    db.select({ total: count() }).from(identityChecks).where(eq(identityChecks.status, status)),
  ])
  return { checks: rows.map(presentRecord), total: Number(counted?.total ?? 0) }
}

export function listIdentityChecks(db: Db, actor: Actor, query: { status?: IdentityCheckStatus; limit?: number; offset?: number }): Promise<IdentityCheckQueue> {
  requireOperator(actor)
  return identityCheckQueue(db, query)
}

async function findRecord(db: Db, checkId: string): Promise<RecordRow> {
  const [row] = isUuid(checkId) ? await selectRecords(db).where(eq(identityChecks.id, checkId)) : []
  if (!row) throw notFound('No such identity check.')
  return row
}

/** The submitted ID document, decrypted, for the operator's eyes only; gone once the check is decided. */
export async function identityCheckDocument(
  services: Pick<IdentityCheckServices, 'db' | 'identityDocuments'>,
  actor: Actor,
  checkId: string,
): Promise<{ bytes: Buffer; contentType: string; filename: string }> {
  requireOperator(actor)
  const [check] = isUuid(checkId)
    ? await services.db
        .select({ ciphertext: identityChecks.documentCiphertext, contentType: identityChecks.documentContentType, filename: identityChecks.documentFilename })
        .from(identityChecks)
        .where(eq(identityChecks.id, checkId))
    : []
  if (!check) throw notFound('No such identity check.')
  if (check.ciphertext === null || check.contentType === null) throw new AppError('gone', 'The document was erased when the check was decided.')
  return { bytes: await services.identityDocuments.decrypt(check.ciphertext, checkId), contentType: check.contentType, filename: check.filename ?? 'document' }
}

/**
 * The operator approves (optionally correcting the legal name) or rejects (saying why, for the
 * owner) a pending check; `decidedBy` is 'user:<id>' from the Operator area, 'cli' from
 * `admin org decide-identity`.
 */
export async function decideAsOperator(
  services: Pick<IdentityCheckServices, 'db' | 'clock'>,
  decidedBy: string,
  checkId: string,
  body: IdentityDecisionBody,
): Promise<IdentityCheckRecord> {
  const reason = body.reason?.trim() || null
  if (!body.approve && !reason) throw invalid('Say why the check is rejected (reason): the owner sees it.')
  if (!body.approve && body.legal_name !== undefined) throw invalid('legal_name is only for approving.')
  await decideIdentityCheck(services, {
    checkId,
    approve: body.approve,
    ...(body.legal_name !== undefined ? { legalName: body.legal_name } : {}),
    reason,
    decidedBy,
  })
  return presentRecord(await findRecord(services.db, checkId))
}

export function decideIdentityCheckAsOperator(
  services: Pick<IdentityCheckServices, 'db' | 'clock'>,
  actor: Actor,
  checkId: string,
  body: IdentityDecisionBody,
): Promise<IdentityCheckRecord> {
  const operator = requireOperator(actor)
  return decideAsOperator(services, `user:${operator.id}`, checkId, body)
}
