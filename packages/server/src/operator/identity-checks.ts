import { asc, count, eq, sql } from 'drizzle-orm'
import { alias } from 'drizzle-orm/pg-core'
import type { Actor } from '../actors/actor.ts'
import { requireOperator } from '../accounts/roles.ts'
import { identityChecks, identityDocumentKeys, orgs, users } from '../db/schema.ts'
import { AppError, invalid, notFound } from '../errors.ts'
import { isUuid } from '../lib/ids.ts'
import { decideIdentityCheck, identityDocumentFilename, type IdentityCheckServices } from '../orgs/identity-checks.ts'
import {
  IDENTITY_DOCUMENT_TYPES,
  type IdentityCheckQueue,
  type IdentityCheckRecord,
  type IdentityDecisionBody,
  type IdentityDocumentType,
} from '../orgs/identity-checks.schemas.ts'
import type { Db } from '../db/client.ts'
import type { IdentityCheckStatus } from '../db/schema.ts'

/*
 * The operator's side of identity checks: the queue, the submitted document (the only place it
 * is ever shown) and the decision.
 */

const submitter = alias(users, 'submitter')

/** Everything but the document itself (a document stored before the blob store was up to 10 MB of its row): lists never read it. */
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
  documentContentType: identityChecks.documentContentType,
  hasDocument: sql<boolean>`${identityChecks.documentBlobSha256} is not null or ${identityChecks.documentCiphertext} is not null`,
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
      row.hasDocument && isDocumentType(row.documentContentType)
        ? { filename: identityDocumentFilename(row.id, row.documentContentType), content_type: row.documentContentType }
        : null,
    decided_at: row.decidedAt?.toISOString() ?? null,
    decided_by: row.decidedBy,
    decision_reason: row.decisionReason,
  }
}

/** Every stored type was checked on submission; the download names only these three. */
const isDocumentType = (type: string | null): type is IdentityDocumentType => (IDENTITY_DOCUMENT_TYPES as readonly (string | null)[]).includes(type)

const selectRecords = (db: Db) =>
  db
    .select(recordColumns)
    .from(identityChecks)
    .innerJoin(orgs, eq(orgs.id, identityChecks.orgId))
    .leftJoin(submitter, eq(submitter.id, identityChecks.submittedByUserId))

/** The checks in one status (pending: the queue), oldest first; also what `admin org identity-checks` prints. */
export async function identityCheckQueue(db: Db, query: { status?: IdentityCheckStatus; limit?: number; offset?: number }): Promise<IdentityCheckQueue> {
  const { status = 'pending', limit = 50, offset = 0 } = query
  const [rows, [counted]] = await Promise.all([
    selectRecords(db).where(eq(identityChecks.status, status)).orderBy(asc(identityChecks.createdAt), asc(identityChecks.id)).limit(limit).offset(offset),
    db.select({ total: count() }).from(identityChecks).where(eq(identityChecks.status, status)),
  ])
  return { checks: rows.map(presentRecord), total: Number(counted?.total ?? 0) }
}

export function listIdentityChecks(
  db: Db,
  actor: Actor,
  query: { status?: IdentityCheckStatus; limit?: number; offset?: number },
): Promise<IdentityCheckQueue> {
  requireOperator(actor)
  return identityCheckQueue(db, query)
}

async function findRecord(db: Db, checkId: string): Promise<RecordRow> {
  const [row] = isUuid(checkId) ? await selectRecords(db).where(eq(identityChecks.id, checkId)) : []
  if (!row) throw notFound('No such identity check.')
  return row
}

/**
 * The submitted ID document, decrypted, for the operator's eyes only; gone once the check is
 * decided. Its name is made here (identity-document-<id>.pdf, .png or .jpg) and its type is the
 * one it was checked to be on submission.
 */
export async function identityCheckDocument(
  services: Pick<IdentityCheckServices, 'db' | 'blobs' | 'identityDocuments'>,
  actor: Actor,
  checkId: string,
): Promise<{ bytes: Buffer; contentType: IdentityDocumentType; filename: string }> {
  requireOperator(actor)
  const [check] = isUuid(checkId)
    ? await services.db
        .select({
          contentType: identityChecks.documentContentType,
          blobSha256: identityChecks.documentBlobSha256,
          wrappedKey: identityDocumentKeys.wrappedKey,
          legacyCiphertext: identityChecks.documentCiphertext,
        })
        .from(identityChecks)
        .leftJoin(identityDocumentKeys, eq(identityDocumentKeys.checkId, identityChecks.id))
        .where(eq(identityChecks.id, checkId))
    : []
  if (!check) throw notFound('No such identity check.')
  const erased = () => new AppError('gone', 'The document was erased when the check was decided.')
  if (!isDocumentType(check.contentType)) throw erased()
  let bytes: Buffer
  if (check.blobSha256 !== null && check.wrappedKey !== null) {
    const ciphertext = await services.blobs.get(check.blobSha256)
    if (!ciphertext) throw new Error(`the identity document of check ${checkId} is missing from the blob store`)
    bytes = await services.identityDocuments.open({ ciphertext, wrappedKey: check.wrappedKey }, checkId)
  } else if (check.legacyCiphertext !== null) {
    bytes = await services.identityDocuments.openLegacy(check.legacyCiphertext, checkId)
  } else {
    throw erased()
  }
  return { bytes, contentType: check.contentType, filename: identityDocumentFilename(checkId, check.contentType) }
}

/**
 * The operator approves (optionally correcting the legal name) or rejects (saying why, for the
 * owner) a pending check; `decidedBy` is 'user:<id>' from the Operator area, 'cli' from
 * `admin org decide-identity`.
 */
export async function decideAsOperator(
  services: Pick<IdentityCheckServices, 'db' | 'clock' | 'blobs'>,
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
  services: Pick<IdentityCheckServices, 'db' | 'clock' | 'blobs'>,
  actor: Actor,
  checkId: string,
  body: IdentityDecisionBody,
): Promise<IdentityCheckRecord> {
  const operator = requireOperator(actor)
  return decideAsOperator(services, `user:${operator.id}`, checkId, body)
}
