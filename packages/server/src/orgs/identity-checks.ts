import { randomUUID } from 'node:crypto'
import { and, desc, eq } from 'drizzle-orm'
import type { Actor } from '../actors/actor.ts'
import { requireOwner, requireSignedIn } from '../accounts/roles.ts'
import type { Db } from '../db/client.ts'
import { identityChecks, orgs, type IdentityCheckStatus } from '../db/schema.ts'
import { AppError, invalid, notFound } from '../errors.ts'
import { isUuid } from '../lib/ids.ts'
import type { Services } from '../services.ts'
import { identityValidUntil, isIdentityExpired, normalizeLegalName, recordIdentityCheck } from './identity.ts'
import {
  MAX_IDENTITY_DOCUMENT_MB,
  type IdentityCheckView,
  type IdentityDocumentType,
  type IdentityStatus,
  type SubmitIdentityCheckBody,
} from './identity-checks.schemas.ts'
import { requireOrg } from './orgs.ts'

/*
 * Settings → Identity check: the one-time check sealing needs. The owner submits the legal name
 * and an ID document; the IdentityVerifier adapter decides (by default the operator does). The
 * document is kept encrypted only until the decision; approving records the identity on the org
 * (orgs/identity.ts), which is what sealing reads.
 */

export type IdentityCheckServices = Pick<Services, 'db' | 'clock' | 'logger' | 'identityVerifier' | 'identityDocuments'>

const MAX_DOCUMENT_BYTES = MAX_IDENTITY_DOCUMENT_MB * 1024 * 1024

/** The first bytes each accepted type starts with: the declared type must be what the file is. */
const MAGIC_BYTES: Record<IdentityDocumentType, { bytes: number[]; name: string }> = {
  'application/pdf': { bytes: [0x25, 0x50, 0x44, 0x46, 0x2d], name: 'PDF' },
  'image/png': { bytes: [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], name: 'PNG' },
  'image/jpeg': { bytes: [0xff, 0xd8, 0xff], name: 'JPEG' },
}

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/

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
  const [latest] = await db.select().from(identityChecks).where(eq(identityChecks.orgId, orgId)).orderBy(desc(identityChecks.createdAt)).limit(1)
  const status = identityStatusOf(org, latest, now)
  const validUntil = org.identityVerifiedAt ? identityValidUntil(org.identityVerifiedAt).toISOString() : null
  if (!latest || verifiedOutsideChecks(org.identityVerifiedAt, latest)) {
    const decidedAt = org.identityVerifiedAt?.toISOString() ?? null
    return { status, legal_name: org.legalName, submitted_at: null, decided_at: decidedAt, valid_until: validUntil, decision_reason: null, verifier: decidedAt ? 'manual' : null }
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

/** The document's bytes, checked against the declared type and the size limit. */
function decodeDocument(document: SubmitIdentityCheckBody['document']): Buffer {
  const data = document.data_base64
  if (data.length % 4 !== 0 || !BASE64.test(data)) throw invalid('document.data_base64 is not valid base64.')
  if ((data.length / 4) * 3 - (data.endsWith('==') ? 2 : data.endsWith('=') ? 1 : 0) > MAX_DOCUMENT_BYTES) {
    throw new AppError('payload_too_large', `The document is larger than ${MAX_IDENTITY_DOCUMENT_MB} MB.`)
  }
  const bytes = Buffer.from(data, 'base64')
  const magic = MAGIC_BYTES[document.content_type]
  if (bytes.length < magic.bytes.length || magic.bytes.some((byte, i) => bytes[i] !== byte)) {
    throw invalid(`The document is not a ${magic.name} file, as its content_type ${document.content_type} says. Upload a PDF, PNG or JPEG file.`)
  }
  return bytes
}

/** Only the file's own name: a browser may send a path. */
const baseName = (filename: string): string => filename.split(/[\\/]/).pop()?.trim() || 'document'

/**
 * POST /identity-check (the owner): stores the submission with its document encrypted and asks
 * the verifier. A check already waiting for a decision must be decided first (409); once
 * approved, a new submission renews it (the approved one keeps sealing working meanwhile).
 */
export async function submitIdentityCheck(services: IdentityCheckServices, actor: Actor, body: SubmitIdentityCheckBody): Promise<IdentityCheckView> {
  const owner = requireOwner(actor, 'submit the identity check')
  const legalName = normalizeLegalName(body.legal_name)
  const bytes = decodeDocument(body.document)
  const filename = baseName(body.document.filename)
  const checkId = randomUUID()
  const ciphertext = await services.identityDocuments.encrypt(bytes, checkId)
  const verifier = services.identityVerifier

  await services.db.transaction(async (tx) => {
    // The org row lock makes "one pending check per org" hold under concurrent submissions.
    await tx.select({ id: orgs.id }).from(orgs).where(eq(orgs.id, actor.orgId)).for('update')
    const [pending] = await tx
      .select({ id: identityChecks.id })
      .from(identityChecks)
      .where(and(eq(identityChecks.orgId, actor.orgId), eq(identityChecks.status, 'pending')))
    if (pending) throw new AppError('conflict', 'An identity check of this workspace is already waiting for a decision.')
    await tx.insert(identityChecks).values({
      id: checkId,
      orgId: actor.orgId,
      legalName,
      status: 'pending',
      submittedByUserId: owner.id,
      verifier: verifier.name,
      documentFilename: filename,
      documentContentType: body.document.content_type,
      documentCiphertext: ciphertext,
      createdAt: services.clock.now(),
    })
  })

  try {
    const verdict = await verifier.submit({ checkId, orgId: actor.orgId, legalName, document: { filename, contentType: body.document.content_type, bytes } })
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
export async function decideIdentityCheck(services: Pick<Services, 'db' | 'clock'>, decision: IdentityDecision): Promise<void> {
  const missing = () => notFound('No such identity check.')
  if (!isUuid(decision.checkId)) throw missing()
  const now = services.clock.now()
  await services.db.transaction(async (tx) => {
    const [check] = await tx.select().from(identityChecks).where(eq(identityChecks.id, decision.checkId)).for('update')
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
        documentFilename: null,
      })
      .where(eq(identityChecks.id, check.id))
  })
}
