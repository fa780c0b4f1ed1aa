import { randomBytes } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { blobStoreFor, type BlobStore } from '../src/adapters/blob-store.ts'
import { eq } from 'drizzle-orm'
import { openDatabase, type Database } from '../src/db/client.ts'
import * as schema from '../src/db/schema.ts'
import { sha256Hex } from '../src/lib/crypto.ts'
import { createScratchDatabase } from './helpers/postgres.ts'
import { drained } from './helpers/blob-streams.ts'
import { inMemoryDatabase } from './helpers/test-server.ts'

/* The blob store of whichever database this run uses (PGlite files, or PostgreSQL rows read by COPY). */
describe(`blob store (${process.env.DATABASE_URL ? 'PostgreSQL' : 'PGlite'})`, () => {
  let database: Database
  let blobs: BlobStore
  let drop = () => Promise.resolve()

  beforeAll(async () => {
    const scratch = process.env.DATABASE_URL ? await createScratchDatabase(process.env.DATABASE_URL) : undefined
    if (scratch) drop = scratch.drop
    database = await openDatabase(scratch ? { databaseUrl: scratch.url } : await inMemoryDatabase())
    blobs = blobStoreFor(database)
  })
  afterAll(async () => {
    await database.close()
    await drop()
  })

  const store = async (bytes: Uint8Array) => {
    const blob = await blobs.stage(bytes)
    return database.db.transaction((tx) => blobs.put(tx, blob))
  }

  it('gives back exactly the bytes stored, from one byte to megabytes', async () => {
    for (const size of [1, 70_000, 3 * 1024 * 1024 + 17]) {
      const bytes = randomBytes(size)
      const sha256 = await store(bytes)
      expect(sha256).toBe(sha256Hex(bytes))
      const read = await blobs.get(sha256)
      expect(read?.byteLength).toBe(size)
      expect(Buffer.compare(Buffer.from(read ?? []), bytes)).toBe(0)
      const opened = await blobs.open(sha256)
      expect(opened?.size).toBe(size)
      expect(Buffer.compare(await drained(opened), bytes)).toBe(0)
    }
  })

  it('stores the same bytes once, however often and however concurrently they are put', async () => {
    const bytes = randomBytes(512 * 1024)
    const digests = await Promise.all([store(bytes), store(bytes), store(bytes)])
    expect(new Set(digests)).toEqual(new Set([sha256Hex(bytes)]))
    expect(await store(bytes)).toBe(sha256Hex(bytes))
    const rows = await database.db
      .select({ size: schema.blobs.size })
      .from(schema.blobs)
      .where(eq(schema.blobs.sha256, sha256Hex(bytes)))
    expect(rows).toEqual([{ size: bytes.byteLength }])
    expect(Buffer.compare(Buffer.from((await blobs.get(sha256Hex(bytes))) ?? []), bytes)).toBe(0)
  })

  it('stores nothing for a transaction that rolls back, and stores outside one too', async () => {
    const bytes = randomBytes(1000)
    const blob = await blobs.stage(bytes)
    await expect(
      database.db.transaction(async (tx) => {
        await blobs.put(tx, blob)
        throw new Error('rolled back')
      }),
    ).rejects.toThrow('rolled back')
    const rows = await database.db
      .select({ size: schema.blobs.size })
      .from(schema.blobs)
      .where(eq(schema.blobs.sha256, sha256Hex(bytes)))
    expect(rows).toEqual([])
    const sha256 = await blobs.put(database.db, blob)
    expect(Buffer.compare(Buffer.from((await blobs.get(sha256)) ?? []), bytes)).toBe(0)
  })

  it('answers undefined for a digest it does not hold, or that is not a digest', async () => {
    expect(await blobs.get(sha256Hex(randomBytes(8)))).toBeUndefined()
    expect(await blobs.get("x' OR '1'='1")).toBeUndefined()
    expect(await blobs.open(sha256Hex(randomBytes(8)))).toBeUndefined()
    expect(await blobs.open('../../etc/passwd')).toBeUndefined()
  })
})
