import { randomInt } from 'node:crypto'
import { and, count, eq, isNull } from 'drizzle-orm'
import type { Db } from '../../db/client.ts'
import { recoveryCodes } from '../../db/schema.ts'
import { sha256Hex } from '../../lib/crypto.ts'

/**
 * Recovery codes: ten single-use codes shown once when the first second factor is set up (or
 * when the user asks for new ones), for the day the phone or the security key is lost. Each is
 * ten letters and digits (50 random bits), so a plain SHA-256 of it is safe to store.
 */
export const RECOVERY_CODE_COUNT = 10
/** Lower-case letters and digits without the look-alikes 0/o and 1/l. */
const ALPHABET = 'abcdefghijkmnpqrstuvwxyz23456789'
const HALF = 5

function newRecoveryCode(): string {
  const letters = Array.from({ length: HALF * 2 }, () => ALPHABET[randomInt(ALPHABET.length)])
  return `${letters.slice(0, HALF).join('')}-${letters.slice(HALF).join('')}`
}

/** What people type, as stored: case, spaces and the dash do not matter. */
const canonical = (code: string): string => code.toLowerCase().replace(/[\s-]/g, '')

const hashOf = (code: string): string => sha256Hex(`signet-recovery-code:${canonical(code)}`)

/** Ten new codes for the user; the old ones stop working. Returns them in clear: the only time they exist so. */
export async function replaceRecoveryCodes(tx: Db, userId: string, now: Date): Promise<string[]> {
  await tx.delete(recoveryCodes).where(eq(recoveryCodes.userId, userId))
  const codes = Array.from({ length: RECOVERY_CODE_COUNT }, newRecoveryCode)
  await tx.insert(recoveryCodes).values(codes.map((code) => ({ userId, codeHash: hashOf(code), createdAt: now })))
  return codes
}

/** Uses one of the user's codes, once: of two concurrent uses of the same code exactly one wins. */
export async function useRecoveryCode(db: Db, userId: string, code: string, now: Date): Promise<boolean> {
  if (!/^[a-z0-9]{10}$/.test(canonical(code))) return false
  const used = await db
    .update(recoveryCodes)
    .set({ usedAt: now })
    .where(and(eq(recoveryCodes.userId, userId), eq(recoveryCodes.codeHash, hashOf(code)), isNull(recoveryCodes.usedAt)))
    .returning({ id: recoveryCodes.id })
  return used.length > 0
}

export async function remainingRecoveryCodes(db: Db, userId: string): Promise<number> {
  const [row] = await db
    .select({ remaining: count() })
    .from(recoveryCodes)
    .where(and(eq(recoveryCodes.userId, userId), isNull(recoveryCodes.usedAt)))
  return row?.remaining ?? 0
}

export async function deleteRecoveryCodes(tx: Db, userId: string): Promise<void> {
  await tx.delete(recoveryCodes).where(eq(recoveryCodes.userId, userId))
}
