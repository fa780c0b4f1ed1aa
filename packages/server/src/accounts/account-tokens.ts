import { and, eq, gt, isNull } from 'drizzle-orm'
import type { Db } from '../db/client.ts'
import { accountTokens, type AccountTokenPurpose, type WorkspaceRole } from '../db/schema.ts'
import { AppError, notFound } from '../errors.ts'
import { digestsEqual, randomToken, sha256Hex } from '../lib/crypto.ts'

/** Single-use links mailed or printed to people: 256-bit random, only their SHA-256 stored. */
export const ACCOUNT_TOKEN_TTL_MS: Record<AccountTokenPurpose, number> = {
  verify_email: 48 * 3600_000,
  reset_password: 3600_000,
  invitation: 7 * 24 * 3600_000,
  operator_setup: 30 * 24 * 3600_000,
}

const TOKEN_PATTERN = /^[A-Za-z0-9_-]{43}$/

export interface TokenDetails {
  userId?: string
  email?: string
  orgId?: string
  role?: WorkspaceRole
  createdByUserId?: string
}

export type AccountToken = typeof accountTokens.$inferSelect

/** Creates a token (inside the caller's transaction) and returns it: the only time it exists in clear. */
export async function issueAccountToken(tx: Db, purpose: AccountTokenPurpose, details: TokenDetails, now: Date): Promise<{ token: string; row: AccountToken }> {
  const token = randomToken(32)
  const [row] = await tx
    .insert(accountTokens)
    .values({ tokenHash: sha256Hex(token), purpose, ...details, expiresAt: new Date(now.getTime() + ACCOUNT_TOKEN_TTL_MS[purpose]) })
    .returning()
  if (!row) throw new Error('insert returned no row')
  return { token, row }
}

const LINK_MESSAGES: Record<AccountTokenPurpose, { unknown: string; spent: string }> = {
  verify_email: {
    unknown: 'This verification link is not valid. Sign in to get a new one.',
    spent: 'This verification link has expired or was already used. Sign in to get a new one.',
  },
  reset_password: {
    unknown: 'This password reset link is not valid. Ask for a new one.',
    spent: 'This password reset link has expired or was already used. Ask for a new one.',
  },
  invitation: {
    unknown: 'This invitation is not valid. Ask the workspace for a new one.',
    spent: 'This invitation has expired, was revoked or was already used. Ask the workspace for a new one.',
  },
  operator_setup: {
    unknown: 'This setup link is not valid. Restart the server for a new one.',
    spent: 'This setup link has expired or was already used. Restart the server for a new one.',
  },
}

/** The live token (unused, unexpired) with this value, or a 404 (unknown) / 410 (used or expired) that says what to do. */
export async function findLiveToken(db: Db, purpose: AccountTokenPurpose, token: string, now: Date): Promise<AccountToken> {
  const messages = LINK_MESSAGES[purpose]
  const presentedHash = sha256Hex(token)
  const [row] = TOKEN_PATTERN.test(token)
    ? await db
        .select()
        .from(accountTokens)
        .where(and(eq(accountTokens.tokenHash, presentedHash), eq(accountTokens.purpose, purpose)))
    : []
  // The lookup is by hash; the constant-time check guards against any index-side shortcut.
  if (!row || !digestsEqual(row.tokenHash, presentedHash)) throw notFound(messages.unknown)
  if (row.usedAt || row.expiresAt <= now) throw new AppError('gone', messages.spent)
  return row
}

/**
 * Uses the token once: the conditional update lets exactly one of two concurrent uses win.
 * Call inside the transaction that does what the token allows.
 */
export async function consumeToken(tx: Db, purpose: AccountTokenPurpose, token: string, now: Date): Promise<AccountToken> {
  const found = await findLiveToken(tx, purpose, token, now)
  const [used] = await tx
    .update(accountTokens)
    .set({ usedAt: now })
    .where(and(eq(accountTokens.id, found.id), isNull(accountTokens.usedAt), gt(accountTokens.expiresAt, now)))
    .returning()
  if (!used) throw new AppError('gone', LINK_MESSAGES[purpose].spent)
  return used
}

/** The workspace and role an invitation token offers (both always set on invitations). */
export function invitationOffer(row: AccountToken): { orgId: string; role: WorkspaceRole; email: string } {
  if (!row.orgId || !row.role || !row.email) throw new Error(`invitation ${row.id} lacks its workspace, role or address`)
  return { orgId: row.orgId, role: row.role, email: row.email }
}
