import { eq } from 'drizzle-orm'
import type { Db } from '../db/client.ts'
import { orgs } from '../db/schema.ts'
import { AppError, invalid } from '../errors.ts'
import { requireOrg } from './orgs.ts'

/** An identity check vouches for the org this long; then sealing needs a new one. */
export const IDENTITY_VALID_DAYS = 365
const DAY_MS = 86_400_000

export interface VerifiedIdentity {
  legalName: string
  verifiedAt: Date
}

/**
 * Records that the operator checked who the org is (for now through the CLI; the
 * dashboard's ID-document check later). Seals print this legal name.
 */
export async function recordIdentityCheck(db: Db, input: { orgId: string; legalName: string; now: Date }) {
  const legalName = input.legalName.trim().replace(/\s+/g, ' ')
  if (legalName.length === 0 || legalName.length > 200) throw invalid('The legal name must be 1 to 200 characters.')
  await requireOrg(db, input.orgId)
  await db.update(orgs).set({ legalName, identityVerifiedAt: input.now }).where(eq(orgs.id, input.orgId))
  const validUntil = new Date(input.now.getTime() + IDENTITY_VALID_DAYS * DAY_MS)
  return { org_id: input.orgId, legal_name: legalName, identity_verified_at: input.now.toISOString(), valid_until: validUntil.toISOString() }
}

/** The org's identity check, or the 412 that explains how to get one. */
export function requireVerifiedIdentity(org: { legalName: string | null; identityVerifiedAt: Date | null }, now: Date): VerifiedIdentity {
  const { legalName, identityVerifiedAt } = org
  if (!legalName || !identityVerifiedAt) {
    throw new AppError('precondition_failed', 'Sealing needs a one-time identity check of this org first. Ask the operator to verify it (admin org verify-identity).')
  }
  if (now.getTime() - identityVerifiedAt.getTime() > IDENTITY_VALID_DAYS * DAY_MS) {
    throw new AppError('precondition_failed', `This org's identity check is more than ${IDENTITY_VALID_DAYS} days old. Sealing needs a new one.`)
  }
  return { legalName, verifiedAt: identityVerifiedAt }
}
