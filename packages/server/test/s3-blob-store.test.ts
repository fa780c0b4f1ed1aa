import { randomBytes } from 'node:crypto'
import { existsSync } from 'node:fs'
import { eq } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { blobFilePath, blobStoreFor } from '../src/adapters/blob-store.ts'
import { openS3BlobStore, UNREFERENCED_OBJECT_AGE_MS, type S3BlobStore } from '../src/adapters/s3-blob-store.ts'
import { openDatabase, type Database } from '../src/db/client.ts'
import * as schema from '../src/db/schema.ts'
import { sha256Hex } from '../src/lib/crypto.ts'
import { movableClock } from './helpers/clock.ts'
import { startLocalS3, S3RVER_CREDENTIALS, virtualHostHandler, type LocalS3 } from './helpers/local-s3.ts'
import { createScratchDatabase } from './helpers/postgres.ts'
import { drained } from './helpers/blob-streams.ts'
import { inMemoryDatabase } from './helpers/test-server.ts'

const engine = process.env.DATABASE_URL ? 'PostgreSQL' : 'PGlite'

describe(`S3 blob store (${engine})`, () => {
  let s3: LocalS3
  let database: Database
  let drop = () => Promise.resolve()
  const time = movableClock()
  const stores: S3BlobStore[] = []
  const hostnames: string[] = []

  beforeAll(async () => {
    for (const [name, value] of Object.entries(S3RVER_CREDENTIALS)) vi.stubEnv(name, value)
    s3 = await startLocalS3()
    const scratch = process.env.DATABASE_URL ? await createScratchDatabase(process.env.DATABASE_URL) : undefined
    if (scratch) drop = scratch.drop
    database = await openDatabase(scratch ? { databaseUrl: scratch.url } : await inMemoryDatabase())
  })
  afterAll(async () => {
    for (const store of stores) store.close()
    await database.close()
    await drop()
    await s3.close()
    vi.unstubAllEnvs()
  })

  const open = async (style: 'path' | 'virtual-hosted') => {
    const store =
      style === 'path'
        ? await openS3BlobStore(s3.pathStyle, database, time.clock)
        : await openS3BlobStore(s3.virtualHosted, database, time.clock, virtualHostHandler(hostnames))
    stores.push(store)
    return store
  }
  const rowOf = async (sha256: string) => (await database.db.select().from(schema.blobs).where(eq(schema.blobs.sha256, sha256)))[0]

  for (const style of ['path', 'virtual-hosted'] as const) {
    it(`stores, reads and releases a blob as an object (${style} addressing)`, async () => {
      const blobs = await open(style)
      const bytes = randomBytes(200_000)
      const staged = await blobs.stage(bytes)
      const sha256 = await database.db.transaction((tx) => blobs.put(tx, staged))
      expect(sha256).toBe(sha256Hex(bytes))
      expect(await blobs.head(sha256)).toMatchObject({ size: bytes.byteLength })
      // The row is recorded without its bytes, and no file is written beside it.
      expect(await rowOf(sha256)).toMatchObject({ bytes: null, size: bytes.byteLength })
      if (database.blobDir) expect(existsSync(blobFilePath(database.blobDir, sha256))).toBe(false)
      expect(Buffer.compare(Buffer.from((await blobs.get(sha256)) ?? []), bytes)).toBe(0)
      // Streamed as the bucket sends it, with its length.
      const opened = await blobs.open(sha256)
      expect(opened?.size).toBe(bytes.byteLength)
      expect(Buffer.compare(await drained(opened), bytes)).toBe(0)

      // Released while a row records it: kept.
      await blobs.release(sha256)
      expect(await blobs.head(sha256)).toBeDefined()
      await database.db.transaction((tx) => blobs.delete(tx, sha256))
      await blobs.release(sha256)
      expect(await blobs.head(sha256)).toBeUndefined()
      expect(await blobs.get(sha256)).toBeUndefined()
      if (style === 'virtual-hosted') expect(new Set(hostnames)).toEqual(new Set([`${s3.bucket}.s3.localhost`]))
    })
  }

  it('reads blobs stored before the switch from their rows or files', async () => {
    const before = blobStoreFor(database)
    const bytes = randomBytes(5_000)
    const staged = await before.stage(bytes)
    const sha256 = await database.db.transaction((tx) => before.put(tx, staged))
    const blobs = await open('path')
    expect(await blobs.head(sha256)).toBeUndefined()
    expect(Buffer.compare(Buffer.from((await blobs.get(sha256)) ?? []), bytes)).toBe(0)
    expect(Buffer.compare(await drained(await blobs.open(sha256)), bytes)).toBe(0)
    expect(await blobs.get("x' OR '1'='1")).toBeUndefined()
    expect(await blobs.open("x' OR '1'='1")).toBeUndefined()
  })

  it('leaves an object a rolled-back transaction staged, and the sweep deletes it after a day, not before', async () => {
    const blobs = await open('path')
    const kept = await blobs.stage(randomBytes(1_000))
    await database.db.transaction((tx) => blobs.put(tx, kept))
    const orphan = await blobs.stage(randomBytes(1_000))
    await expect(
      database.db.transaction(async (tx) => {
        await blobs.put(tx, orphan)
        throw new Error('the transaction fails after the upload')
      }),
    ).rejects.toThrow('the transaction fails')
    expect(await rowOf(orphan.sha256)).toBeUndefined()
    expect(await blobs.head(orphan.sha256)).toBeDefined()

    expect(await blobs.sweepUnreferenced(time.clock.now())).toBe(0)
    time.advance(UNREFERENCED_OBJECT_AGE_MS - 60_000)
    expect(await blobs.sweepUnreferenced(time.clock.now())).toBe(0)
    expect(await blobs.head(orphan.sha256)).toBeDefined()

    time.advance(2 * 60_000)
    expect(await blobs.sweepUnreferenced(time.clock.now())).toBeGreaterThanOrEqual(1)
    expect(await blobs.head(orphan.sha256)).toBeUndefined()
    // The object a row records stays, however old.
    expect(await blobs.head(kept.sha256)).toBeDefined()
    expect(await blobs.get(kept.sha256)).toBeDefined()
  })
})
