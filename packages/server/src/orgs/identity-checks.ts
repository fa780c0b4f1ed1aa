import { randomUUID } from 'node:crypto'
import { and, desc, eq, sql } from 'drizzle-orm'
import type { Actor } from '../actors/actor.ts'
import { requireOwner, requireSignedIn } from '../accounts/roles.ts'
import type { Db } from '../db/client.ts'
import { identityChecks, identityDocumentKeys, orgs, type IdentityCheckStatus } from '../db/schema.ts'
import { AppError, invalid, notFound } from '../errors.ts'
import { isUuid } from '../lib/ids.ts'
import type { Services } from '../services.ts'
import { identityValidUntil, isIdentityExpired, normalizeLegalName, recordIdentityCheck } from './identity.ts'
import {
  MAX_IDENTITY_DOCUMENT_BYTES,
  MAX_IDENTITY_DOCUMENT_MB,
  MAX_IDENTITY_IMAGE_MEGAPIXELS,
  type IdentityCheckView,
  type IdentityDocumentType,
  type IdentityStatus,
} from './identity-checks.schemas.ts'
import { requireOrg } from './require-org.ts'

/*
 * Settings → Identity check: the one-time check sealing needs. The owner submits the legal name
 * and an ID document; the IdentityVerifier adapter decides (by default the operator does).
 * Approving records the identity on the org (orgs/identity.ts), which is what sealing reads.
 *
 * The document is personal data kept only until the decision. It is checked to be, all of it,
 * the PDF, PNG or JPEG it says it is (parsed or decoded in a PDF worker), encrypted under a key
 * of its own, and stored with the other files in the blob store; its key, wrapped with the
 * instance key, is a row of identity_document_keys. The decision deletes both and rewrites that
 * small table (VACUUM FULL), so that no copy of the ciphertext left anywhere (a backup of the
 * blob files, dead rows, WAL) can be opened again: crypto-shredding.
 */

export type IdentityCheckServices = Pick<Services, 'config' | 'db' | 'clock' | 'blobs' | 'pdfWork' | 'identityVerifier' | 'identityDocuments' | 'logger'>

const EXTENSIONS: Record<IdentityDocumentType, string> = { 'application/pdf': 'pdf', 'image/png': 'png', 'image/jpeg': 'jpg' }

/** The name an identity document is downloaded under: made here, never the uploader's (which may say anything). */
export const identityDocumentFilename = (checkId: string, type: IdentityDocumentType): string => `identity-document-${checkId}.${EXTENSIONS[type]}`

/** The org's identity as it stands, from its latest check and the identity recorded on the org (which the CLI may also set). */
export function identityStatusOf(
  org: { identityVerifiedAt: Date | null },
  latest: { status: IdentityCheckStatus; decidedAt: Date | null } | undefined,
  now: Date,
): IdentityStatus {
  const verifiedAt = org.identityVerifiedAt
  if (latest && !verifiedOutsideChecks(verifiedAt, latest) && latest.status !== 'approved') return latest.status
  if (!verifiedAt) return 'none'
  return isIdentityExpired(verifiedAt, now) ? 'expired' : 'approved'
}

/** True when the operator's CLI recorded the identity after the latest check was decided. */
const verifiedOutsideChecks = (verifiedAt: Date | null, latest: { decidedAt: Date | null }): boolean =>
  verifiedAt !== null && latest.decidedAt !== null && latest.decidedAt < verifiedAt

/** GET /identity-check: any member of the workspace may see where the check stands. */
export async function getIdentityCheck(services: Pick<Services, 'db' | 'clock'>, actor: Actor): Promise<IdentityCheckView> {
  requireSignedIn(actor)
  return identityCheckView(services.db, actor.orgId, services.clock.now())
}

async function identityCheckView(db: Db, orgId: string, now: Date): Promise<IdentityCheckView> {
  const org = await requireOrg(db, orgId)
  const [latest] = await db
    .select({
      legalName: identityChecks.legalName,
      status: identityChecks.status,
      verifier: identityChecks.verifier,
      createdAt: identityChecks.createdAt,
      decidedAt: identityChecks.decidedAt,
      decisionReason: identityChecks.decisionReason,
    })
    .from(identityChecks)
    .where(eq(identityChecks.orgId, orgId))
    .orderBy(desc(identityChecks.createdAt))
    .limit(1)
  const status = identityStatusOf(org, latest, now)
  const validUntil = org.identityVerifiedAt ? identityValidUntil(org.identityVerifiedAt).toISOString() : null
  if (!latest || verifiedOutsideChecks(org.identityVerifiedAt, latest)) {
    const decidedAt = org.identityVerifiedAt?.toISOString() ?? null
    return {
      status,
      legal_name: org.legalName,
      submitted_at: null,
      decided_at: decidedAt,
      valid_until: validUntil,
      decision_reason: null,
      verifier: decidedAt ? 'manual' : null,
    }
  }
  return {
    status,
    legal_name: latest.legalName,
    submitted_at: latest.createdAt.toISOString(),
    decided_at: latest.decidedAt?.toISOString() ?? null,
    valid_until: validUntil,
    decision_reason: latest.decisionReason,
    verifier: latest.verifier,
  }
}

export interface IdentitySubmissionInput {
  legalName: string
  /** The Content-Type the document was sent with. */
  contentType: IdentityDocumentType
  document: Uint8Array
}

/**
 * The document if it is, all of it, what its type says: a PDF that opens (within the PDF limits),
 * or a PNG or JPEG that decodes, up to its end marker (400 or 413 otherwise). Consumes `bytes`.
 */
async function readableDocument(services: Pick<Services, 'pdfWork' | 'config'>, bytes: Uint8Array, type: IdentityDocumentType): Promise<Uint8Array> {
  if (type === 'application/pdf') return (await services.pdfWork.inspect(bytes)).pdf
  const maxPixels = Math.min(services.config.pdfLimits.maxImagePixels, MAX_IDENTITY_IMAGE_MEGAPIXELS * 1_000_000)
  return services.pdfWork.checkImage(bytes, type, maxPixels)
}

async function requireNoPendingCheck(db: Db, orgId: string): Promise<void> {
  const [pending] = await db
    .select({ id: identityChecks.id })
    .from(identityChecks)
    .where(and(eq(identityChecks.orgId, orgId), eq(identityChecks.status, 'pending')))
  if (pending) throw new AppError('conflict', 'An identity check of this workspace is already waiting for a decision.')
}

/**
 * POST /identity-check (the owner): stores the submission with its document encrypted and asks
 * the verifier. A check already waiting for a decision must be decided first (409); once
 * approved, a new submission renews it (the approved one keeps sealing working meanwhile).
 */
export async function submitIdentityCheck(services: IdentityCheckServices, actor: Actor, input: IdentitySubmissionInput): Promise<IdentityCheckView> {
  const owner = requireOwner(actor, 'submit the identity check')
  const legalName = normalizeLegalName(input.legalName)
  if (input.document.byteLength === 0) throw invalid('Send the ID document (a PDF, PNG or JPEG file) as the request body.')
  if (input.document.byteLength > MAX_IDENTITY_DOCUMENT_BYTES)
    throw new AppError('payload_too_large', `The document is larger than ${MAX_IDENTITY_DOCUMENT_MB} MB.`)
  // Before the work on the file; checked again under the org's lock.
  await requireNoPendingCheck(services.db, actor.orgId)
  const document = await readableDocument(services, input.document, input.contentType)
  const checkId = randomUUID()
  const sealed = await services.identityDocuments.seal(document, checkId)
  const ciphertext = await services.blobs.stage(sealed.ciphertext)
  const verifier = services.identityVerifier

  try {
    await services.db.transaction(async (tx) => {
      // The org row lock makes "one pending check per org" hold under concurrent submissions.
      await tx.select({ id: orgs.id }).from(orgs).where(eq(orgs.id, actor.orgId)).for('update')
      await requireNoPendingCheck(tx, actor.orgId)
      await tx.insert(identityChecks).values({
        id: checkId,
        orgId: actor.orgId,
        legalName,
        status: 'pending',
        submittedByUserId: owner.id,
        verifier: verifier.name,
        documentContentType: input.contentType,
        documentBlobSha256: await services.blobs.put(tx, ciphertext),
        createdAt: services.clock.now(),
      })
      await tx.insert(identityDocumentKeys).values({ checkId, wrappedKey: Buffer.from(sealed.wrappedKey) })
    })
  } catch (error) {
    await services.blobs.release(ciphertext.sha256)
    throw error
  }

  try {
    const filename = identityDocumentFilename(checkId, input.contentType)
    const verdict = await verifier.submit({ checkId, orgId: actor.orgId, legalName, document: { filename, contentType: input.contentType, bytes: document } })
    if (verdict.status === 'pending') {
      if (verdict.reference) await services.db.update(identityChecks).set({ verifierReference: verdict.reference }).where(eq(identityChecks.id, checkId))
    } else {
      await decideIdentityCheck(services, {
        checkId,
        approve: verdict.status === 'approved',
        reason: verdict.reason ?? null,
        reference: verdict.reference ?? null,
        decidedBy: verifier.name,
      })
    }
  } catch (error) {
    // The submission is stored: the operator can still decide it.
    services.logger.error({ err: error, checkId }, `identity verifier ${verifier.name} failed; the check waits for the operator`)
  }
  return identityCheckView(services.db, actor.orgId, services.clock.now())
}

export interface IdentityDecision {
  checkId: string
  approve: boolean
  /** The legal name as verified, when it differs from the one submitted. */
  legalName?: string
  reason: string | null
  reference?: string | null
  /** 'user:<id>' (an operator), 'cli', or the verifier's name. */
  decidedBy: string
}

/**
 * Decides a pending check, once: approving records the identity on the org (sealing works from
 * then on); either way the document is erased. The decision, who made it and when remain.
 */
export async function decideIdentityCheck(services: Pick<Services, 'db' | 'clock' | 'blobs'>, decision: IdentityDecision): Promise<void> {
  const missing = () => notFound('No such identity check.')
  if (!isUuid(decision.checkId)) throw missing()
  const now = services.clock.now()
  const erased = await services.db.transaction(async (tx) => {
    const [check] = await tx
      .select({
        id: identityChecks.id,
        orgId: identityChecks.orgId,
        status: identityChecks.status,
        legalName: identityChecks.legalName,
        blobSha256: identityChecks.documentBlobSha256,
        legacy: sql<boolean>`${identityChecks.documentCiphertext} is not null`,
      })
      .from(identityChecks)
      .where(eq(identityChecks.id, decision.checkId))
      .for('update')
    if (!check) throw missing()
    if (check.status !== 'pending') throw new AppError('conflict', `This identity check was already ${check.status}.`)
    const legalName = decision.legalName === undefined ? check.legalName : normalizeLegalName(decision.legalName)
    if (decision.approve) await recordIdentityCheck(tx, { orgId: check.orgId, legalName, now })
    await tx
      .update(identityChecks)
      .set({
        status: decision.approve ? 'approved' : 'rejected',
        legalName,
        decidedAt: now,
        decidedBy: decision.decidedBy,
        decisionReason: decision.reason,
        ...(decision.reference ? { verifierReference: decision.reference } : {}),
        documentCiphertext: null,
        documentBlobSha256: null,
        documentFilename: null,
      })
      .where(eq(identityChecks.id, check.id))
    await tx.delete(identityDocumentKeys).where(eq(identityDocumentKeys.checkId, check.id))
    // The ciphertext is fresh random bytes under a fresh key: its digest names no other blob.
    if (check.blobSha256) await services.blobs.delete(tx, check.blobSha256)
    return check
  })
  await eraseLeftovers(services, erased)
}

/**
 * After the commit, what the deleted rows leave: the ciphertext's file (the embedded database's
 * blob store), and the dead row versions that still hold the key in the table's file until a
 * vacuum — VACUUM FULL writes the small table anew without them (a plain VACUUM leaves the bytes
 * in the page). A document stored before per-document keys was encrypted with the instance key
 * itself, so its dead row must go from identity_checks the same way.
 */
async function eraseLeftovers(services: Pick<Services, 'db' | 'blobs'>, erased: { blobSha256: string | null; legacy: boolean }): Promise<void> {
  if (erased.blobSha256) await services.blobs.release(erased.blobSha256)
  await services.db.execute(sql`VACUUM FULL identity_document_keys`)
  if (erased.legacy) await services.db.execute(sql`VACUUM FULL identity_checks`)
}
