import { constants } from 'node:fs'
import { mkdir, open, readFile, rename, rm, stat, type FileHandle } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import { Readable } from 'node:stream'
import { eq } from 'drizzle-orm'
import type { Database, Db } from '../db/client.ts'
import { blobs } from '../db/schema.ts'
import { randomToken, sha256HexAsync } from '../lib/crypto.ts'

/**
 * Binary storage for PDFs and images, addressed by SHA-256. Every blob has a row in the
 * blobs table (documents refer to it by key), and its bytes are either in that row
 * (PostgreSQL, moved by binary COPY) or in a file under the blob directory (the embedded
 * database).
 *
 * Files, because PGlite runs on the server's own thread: a 25 MB value through it held
 * every other request for seconds. Storing is two steps. `stage` hashes the bytes (unless a
 * PDF worker did) and writes and syncs the file — before any transaction opens, because
 * PGlite runs one transaction at a time and every other query would wait on the disk.
 * `put` then records the blob in the transaction that refers to it, so a committed row
 * always has its bytes; a rolled-back or crashed transaction leaves at most an unreferenced
 * file. Hashing and file I/O run off the event loop (Web Crypto and libuv's thread pool).
 */
export interface BlobStore {
  /** Makes bytes ready to be stored, outside any transaction. A worker that hashed them passes the digest. */
  stage(bytes: Uint8Array, sha256?: string): Promise<StagedBlob>
  /** Stores a staged blob (idempotently) inside the given transaction; returns its SHA-256. */
  put(tx: Db, blob: StagedBlob): Promise<string>
  get(sha256: string): Promise<Uint8Array | undefined>
  /** The blob as a stream with its size, to send to a client without holding it whole (files, S3); undefined when absent. */
  open(sha256: string): Promise<BlobStream | undefined>
  /**
   * Deletes a blob's row inside the given transaction (on PostgreSQL its bytes go with it); after
   * the commit, `release` removes its file. Only for bytes nothing else can share: a blob is
   * addressed by its content, so every holder of the same bytes holds the same blob.
   */
  delete(tx: Db, sha256: string): Promise<void>
  /** Removes the file of a blob no row records (any more): after `delete` committed, or when the transaction a staged blob was meant for failed. */
  release(sha256: string): Promise<void>
}

export interface BlobStream {
  size: number
  stream: Readable
}

/** Bytes already in memory, as a stream (the blobs table gives its value whole). */
export const streamOfBytes = (bytes: Uint8Array): BlobStream => ({
  size: bytes.byteLength,
  stream: Readable.from([Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)]),
})

declare const staged: unique symbol
/** Bytes and their digest, ready for `put` (only `stage` makes one). */
export interface StagedBlob {
  readonly sha256: string
  readonly bytes: Uint8Array
  readonly [staged]: true
}

export async function digestOf(bytes: Uint8Array, known: string | undefined): Promise<{ sha256: string; bytes: Uint8Array }> {
  assertNotEmpty(bytes)
  return { sha256: known ?? (await sha256HexAsync(bytes)), bytes }
}

/** A stored file is never empty: empty bytes mean a buffer was handed to a PDF worker and used again by mistake. */
function assertNotEmpty(bytes: Uint8Array): void {
  if (bytes.byteLength === 0) throw new Error('refusing to store an empty blob (was the buffer handed over to a PDF worker?)')
}

export function databaseBlobStore(database: Pick<Database, 'blobRows'>): BlobStore {
  return {
    stage: async (bytes, known) => (await digestOf(bytes, known)) as StagedBlob,
    async put(tx, blob) {
      await database.blobRows.write(tx, blob.sha256, blob.bytes)
      return blob.sha256
    },
    get: (sha256) => database.blobRows.read(sha256),
    open: async (sha256) => {
      const bytes = await database.blobRows.read(sha256)
      return bytes && streamOfBytes(bytes)
    },
    delete: deleteRow,
    // The bytes were in the row.
    release: () => Promise.resolve(),
  }
}

export async function deleteRow(tx: Db, sha256: string): Promise<void> {
  await tx.delete(blobs).where(eq(blobs.sha256, sha256))
}

export const SHA256_HEX = /^[0-9a-f]{64}$/

export async function syncDirectory(path: string): Promise<void> {
  const directory = await open(path, constants.O_RDONLY)
  try {
    await directory.sync()
  } finally {
    await directory.close()
  }
}

/** Writes `bytes` to `path` so that after this returns, a crash cannot leave a partial file there. */
async function writeDurably(path: string, bytes: Uint8Array): Promise<void> {
  await mkdir(dirname(path), { recursive: true })
  const temporary = `${path}.${randomToken(6)}.tmp`
  const file = await open(temporary, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, 0o600)
  try {
    await file.writeFile(bytes)
    await file.sync()
  } finally {
    await file.close()
  }
  try {
    await rename(temporary, path)
  } catch (error) {
    await rm(temporary, { force: true })
    throw error
  }
  await syncDirectory(dirname(path))
}

/** Where the file store keeps a blob (s3-blob-migration.ts moves it from there). */
export const blobFilePath = (directory: string, sha256: string): string => join(directory, sha256.slice(0, 2), sha256)

export function fileBlobStore(database: Pick<Database, 'db' | 'blobRows'>, directory: string): BlobStore {
  const pathOf = (sha256: string): string => blobFilePath(directory, sha256)
  return {
    async stage(bytes, known) {
      const blob = await digestOf(bytes, known)
      const path = pathOf(blob.sha256)
      const existing = await stat(path).catch(() => null)
      if (existing?.size !== bytes.byteLength) await writeDurably(path, bytes)
      return blob as StagedBlob
    },
    async put(tx, blob) {
      await tx.insert(blobs).values({ sha256: blob.sha256, bytes: null, size: blob.bytes.byteLength }).onConflictDoNothing()
      return blob.sha256
    },
    async get(sha256) {
      if (!SHA256_HEX.test(sha256)) return undefined
      try {
        return await readFile(pathOf(sha256))
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error
        // Blobs stored before the files existed are still in their rows.
        return database.blobRows.read(sha256)
      }
    },
    async open(sha256) {
      if (!SHA256_HEX.test(sha256)) return undefined
      let file: FileHandle
      try {
        file = await open(pathOf(sha256), constants.O_RDONLY)
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error
        const bytes = await database.blobRows.read(sha256)
        return bytes && streamOfBytes(bytes)
      }
      // Opened first, then measured: a release after this point cannot pull the file from under the stream.
      const { size } = await file.stat().catch(async (error: unknown) => {
        await file.close()
        throw error
      })
      return { size, stream: file.createReadStream() }
    },
    delete: deleteRow,
    async release(sha256) {
      if (!SHA256_HEX.test(sha256)) return
      // A row means the same bytes were stored again meanwhile: the file is theirs now.
      const [row] = await database.db.select({ sha256: blobs.sha256 }).from(blobs).where(eq(blobs.sha256, sha256))
      if (row) return
      const path = pathOf(sha256)
      if (!(await stat(path).catch(() => null))) return
      await rm(path, { force: true })
      // Durably gone: a crash must not bring the file back.
      await syncDirectory(dirname(path))
    },
  }
}

/** The blob store a database keeps its bytes in: files for the embedded engine, the blobs table for PostgreSQL. */
export const blobStoreFor = (database: Database): BlobStore => (database.blobDir ? fileBlobStore(database, database.blobDir) : databaseBlobStore(database))
