import { eq } from 'drizzle-orm'
import type { Db } from '../db/client.ts'
import { blobs } from '../db/schema.ts'
import { sha256Hex } from '../lib/crypto.ts'

/**
 * Binary storage for PDFs, addressed by SHA-256. Kept in the database so a
 * document and its files commit or roll back together and one backup holds both.
 */
export interface BlobStore {
  /** Stores bytes (idempotently) inside the given transaction; returns their SHA-256. */
  put(tx: Db, bytes: Uint8Array): Promise<string>
  get(sha256: string): Promise<Uint8Array | undefined>
}

export function databaseBlobStore(db: Db): BlobStore {
  return {
    async put(tx, bytes) {
      const sha256 = sha256Hex(bytes)
      await tx.insert(blobs).values({ sha256, bytes, size: bytes.byteLength }).onConflictDoNothing()
      return sha256
    },
    async get(sha256) {
      const [row] = await db.select({ bytes: blobs.bytes }).from(blobs).where(eq(blobs.sha256, sha256))
      return row?.bytes
    },
  }
}
