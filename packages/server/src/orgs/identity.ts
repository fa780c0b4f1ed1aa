import { eq } from 'drizzle-orm'
import type { Db } from '../db/client.ts'
import { orgs } from '../db/schema.ts'
import { AppError, invalid } from '../errors.ts'
import { requireOrg } from './require-org.ts'
import { describeHiddenText, problemInName } from '../lib/visible-text.ts'

/** An identity check vouches for the org this long; then sealing needs a new one. */
export const IDENTITY_VALID_DAYS = 365
const DAY_MS = 86_400_000

export interface VerifiedIdentity {
  legalName: string
  verifiedAt: Date
}

/** A legal name as seals print it: trimmed, inner whitespace collapsed, 1 to 200 characters. */
export function normalizeLegalName(raw: string): string {
  const legalName = raw.trim().replace(/\s+/g, ' ')
  if (legalName.length === 0 || legalName.length > 200) throw invalid('The legal name must be 1 to 200 characters.')
  // Printed on every seal and read by agents: the same rule as every other name (the query string and the CLI included).
  const problem = problemInName(legalName)
  if (problem) throw invalid(`The legal name ${describeHiddenText(problem)}.`)
  return legalName
}

/**
 * Records that the org's identity was checked (by the operator's CLI, or an identity check
 * from the dashboard being approved: orgs/identity-checks.ts). Seals print this legal name.
 */
export async function recordIdentityCheck(db: Db, input: { orgId: string; legalName: string; now: Date }) {
  const legalName = normalizeLegalName(input.legalName)
  await requireOrg(db, input.orgId)
  await db.update(orgs).set({ legalName, identityVerifiedAt: input.now }).where(eq(orgs.id, input.orgId))
  return { org_id: input.orgId, legal_name: legalName, identity_verified_at: input.now.toISOString(), valid_until: identityValidUntil(input.now).toISOString() }
}

/** The last day an identity check made at `verifiedAt` vouches for the org. */
export const identityValidUntil = (verifiedAt: Date): Date => new Date(verifiedAt.getTime() + IDENTITY_VALID_DAYS * DAY_MS)

export const isIdentityExpired = (verifiedAt: Date, now: Date): boolean => now.getTime() > identityValidUntil(verifiedAt).getTime()

/** Where the owner submits or renews the check. */
export const identityCheckPage = (publicUrl: string): string => `Settings → Identity check in the dashboard (${publicUrl}/app/settings/identity)`

/** The org's identity check, or the 412 that explains how to get one. */
export function requireVerifiedIdentity(org: { legalName: string | null; identityVerifiedAt: Date | null }, now: Date, publicUrl: string): VerifiedIdentity {
  const { legalName, identityVerifiedAt } = org
  if (!legalName || !identityVerifiedAt) {
    throw new AppError(
      'precondition_failed',
      `Sealing needs a one-time identity check of this org first. The workspace owner submits it in ${identityCheckPage(publicUrl)}.`,
    )
  }
  if (isIdentityExpired(identityVerifiedAt, now)) {
    throw new AppError(
      'precondition_failed',
      `This org's identity check is more than ${IDENTITY_VALID_DAYS} days old. Sealing needs a new one: the workspace owner renews it in ${identityCheckPage(publicUrl)}.`,
    )
  }
  return { legalName, verifiedAt: identityVerifiedAt }
}
