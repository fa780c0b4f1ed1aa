import { readFile, rm } from 'node:fs/promises'
import { dirname } from 'node:path'
import { asc, count, eq, gt, sql } from 'drizzle-orm'
import type { Database } from '../db/client.ts'
import { blobs } from '../db/schema.ts'
import { sha256HexAsync } from '../lib/crypto.ts'
import { blobFilePath, syncDirectory } from './blob-store.ts'
import type { S3BlobStore } from './s3-blob-store.ts'

export interface BlobMigrationSummary {
  /** Blobs the table records. */
  blobs: number
  /** Uploaded by this run. */
  uploaded: number
  /** Whose row bytes or file this run removed, after reading the object back and checking its SHA-256. */
  moved: number
  /** Already only in the bucket (an earlier run moved them). */
  alreadyMoved: number
  /** Neither here nor in the bucket: reported, never guessed at. */
  missing: string[]
  /** The object read back did not match its digest: the source was kept. */
  failed: string[]
}

const PAGE = 100

/** The bytes still kept outside the bucket, and how to remove them once the bucket holds them. */
async function localCopyOf(database: Database, sha256: string, inRow: boolean): Promise<{ bytes: Uint8Array; remove: () => Promise<void> } | undefined> {
  if (inRow) {
    const bytes = await database.blobRows.read(sha256)
    if (bytes)
      return {
        bytes,
        remove: () =>
          database.db
            .update(blobs)
            .set({ bytes: null })
            .where(eq(blobs.sha256, sha256))
            .then(() => undefined),
      }
  }
  if (!database.blobDir) return undefined
  const path = blobFilePath(database.blobDir, sha256)
  try {
    const bytes = await readFile(path)
    return {
      bytes,
      remove: async () => {
        await rm(path, { force: true })
        await syncDirectory(dirname(path))
      },
    }
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined
    throw error
  }
}

/**
 * Copies every blob kept in the blobs table's rows or in DATA_DIR/blobs into the bucket, then removes
 * that copy. Each blob is done on its own, so an interrupted run loses nothing and the next run goes
 * on: an object already there with the right size is not uploaded again, and a row's bytes or a file
 * are removed only after the object read back from the bucket hashes to the blob's SHA-256.
 */
export async function migrateBlobsToS3(database: Database, target: S3BlobStore, progress: (line: string) => void): Promise<BlobMigrationSummary> {
  const [total] = await database.db.select({ n: count() }).from(blobs)
  const summary: BlobMigrationSummary = { blobs: total?.n ?? 0, uploaded: 0, moved: 0, alreadyMoved: 0, missing: [], failed: [] }
  let after = ''
  let done = 0
  for (;;) {
    const page = await database.db
      .select({ sha256: blobs.sha256, size: blobs.size, inRow: sql<boolean>`${blobs.bytes} is not null` })
      .from(blobs)
      .where(gt(blobs.sha256, after))
      .orderBy(asc(blobs.sha256))
      .limit(PAGE)
    if (page.length === 0) break
    for (const { sha256, size, inRow } of page) {
      after = sha256
      done++
      const outcome = await migrateOne(database, target, { sha256, size, inRow }, summary)
      progress(`[${done}/${summary.blobs}] ${sha256.slice(0, 12)}… ${outcome}`)
    }
  }
  return summary
}

async function migrateOne(
  database: Database,
  target: S3BlobStore,
  blob: { sha256: string; size: number; inRow: boolean },
  summary: BlobMigrationSummary,
): Promise<string> {
  const local = await localCopyOf(database, blob.sha256, blob.inRow)
  const existing = await target.head(blob.sha256)
  if (!local) {
    if (existing?.size === blob.size) {
      summary.alreadyMoved++
      return 'already in the bucket'
    }
    summary.missing.push(blob.sha256)
    return 'MISSING: neither stored here nor in the bucket'
  }
  if (existing?.size !== local.bytes.byteLength) {
    await target.upload(blob.sha256, local.bytes)
    summary.uploaded++
  }
  const stored = await target.readObject(blob.sha256)
  if (!stored || (await sha256HexAsync(stored)) !== blob.sha256) {
    summary.failed.push(blob.sha256)
    return 'FAILED: the object read back does not match; kept here'
  }
  await local.remove()
  summary.moved++
  return `moved (${local.bytes.byteLength} bytes)`
}
