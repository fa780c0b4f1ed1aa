import { randomBytes } from 'node:crypto'
import { existsSync } from 'node:fs'
import { eq } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { blobFilePath, blobStoreFor } from '../src/adapters/blob-store.ts'
import { migrateBlobsToS3 } from '../src/adapters/s3-blob-migration.ts'
import { openS3BlobStore, type S3BlobStore } from '../src/adapters/s3-blob-store.ts'
import { openDatabase, type Database } from '../src/db/client.ts'
import * as schema from '../src/db/schema.ts'
import { systemClock } from '../src/adapters/clock.ts'
import { sha256Hex } from '../src/lib/crypto.ts'
import { startLocalS3, S3RVER_CREDENTIALS, type LocalS3 } from './helpers/local-s3.ts'
import { createScratchDatabase } from './helpers/postgres.ts'
import { cleanUpProcesses, makeTempDir, runCli, runCliJson, writePdf, type CreatedOrg } from './helpers/processes.ts'
import { inMemoryDatabase } from './helpers/test-server.ts'

const engine = process.env.DATABASE_URL ? 'PostgreSQL' : 'PGlite'

describe(`admin blobs migrate --to s3 (${engine})`, () => {
  let s3: LocalS3

  beforeAll(async () => {
    s3 = await startLocalS3()
  })
  afterAll(async () => {
    await cleanUpProcesses()
    await s3.close()
  })

  describe('the migration', () => {
    let database: Database
    let bucket: S3BlobStore
    let drop = () => Promise.resolve()

    beforeAll(async () => {
      for (const [name, value] of Object.entries(S3RVER_CREDENTIALS)) vi.stubEnv(name, value)
      const scratch = process.env.DATABASE_URL ? await createScratchDatabase(process.env.DATABASE_URL) : undefined
      if (scratch) drop = scratch.drop
      database = await openDatabase(scratch ? { databaseUrl: scratch.url } : await inMemoryDatabase())
      bucket = await openS3BlobStore(s3.pathStyle, database, systemClock)
    })
    afterAll(async () => {
      bucket?.close()
      await database?.close()
      await drop()
      vi.unstubAllEnvs()
    })

    /** Where the bytes are outside the bucket: 'row', 'file' or 'gone'. */
    const localPlaceOf = async (sha256: string) => {
      const [row] = await database.db.select({ bytes: schema.blobs.bytes }).from(schema.blobs).where(eq(schema.blobs.sha256, sha256))
      if (row?.bytes) return 'row'
      return database.blobDir && existsSync(blobFilePath(database.blobDir, sha256)) ? 'file' : 'gone'
    }

    it('moves every blob, survives an interruption, keeps what it cannot verify, and is a no-op when run again', async () => {
      const before = blobStoreFor(database)
      const contents = Array.from({ length: 6 }, (_, i) => randomBytes(10_000 + i))
      const digests: string[] = []
      for (const bytes of contents) {
        const staged = await before.stage(bytes)
        digests.push(await database.db.transaction((tx) => before.put(tx, staged)))
      }
      // On the embedded database, a blob from before the files existed, still in its row.
      const inRow = randomBytes(3_000)
      if (database.blobDir) {
        await database.blobRows.write(database.db, sha256Hex(inRow), inRow)
        contents.push(inRow)
        digests.push(sha256Hex(inRow))
        expect(await localPlaceOf(sha256Hex(inRow))).toBe('row')
      }
      const sourceOf = (sha256: string) => (database.blobDir && sha256 !== sha256Hex(inRow) ? 'file' : 'row')
      const sorted = [...digests].sort()
      const [first, second, uploadedBeforeCrash, corrupted] = sorted as [string, string, string, string]
      // A crash between an upload and the removal of the source; and an object of the right size but wrong bytes.
      await bucket.upload(uploadedBeforeCrash, (await before.get(uploadedBeforeCrash))!)
      await bucket.upload(corrupted, randomBytes((await before.get(corrupted))!.byteLength))

      const lines: string[] = []
      const interrupted = migrateBlobsToS3(database, bucket, (line) => {
        lines.push(line)
        if (lines.length === 2) throw new Error('interrupted')
      })
      await expect(interrupted).rejects.toThrow('interrupted')
      expect(lines[0]).toMatch(new RegExp(`^\\[1/${digests.length}\\] ${first.slice(0, 12)}… moved`))
      expect([await localPlaceOf(first), await localPlaceOf(second)]).toEqual(['gone', 'gone'])
      expect(await localPlaceOf(sorted.at(-1)!)).not.toBe('gone')

      const summary = await migrateBlobsToS3(database, bucket, () => {})
      expect(summary).toEqual({
        blobs: digests.length,
        uploaded: digests.length - 4,
        moved: digests.length - 3,
        alreadyMoved: 2,
        missing: [],
        failed: [corrupted],
      })
      // The blob whose object did not match keeps its source; every other one is only in the bucket now.
      for (const sha256 of sorted) expect(await localPlaceOf(sha256)).toBe(sha256 === corrupted ? sourceOf(sha256) : 'gone')
      for (const [i, sha256] of digests.entries()) {
        if (sha256 !== corrupted) expect(Buffer.compare(Buffer.from((await bucket.readObject(sha256)) ?? []), contents[i]!)).toBe(0)
      }

      // With the bad object replaced by the right bytes, the next run moves that blob too; then nothing is left to do.
      await bucket.upload(corrupted, (await before.get(corrupted))!)
      expect(await migrateBlobsToS3(database, bucket, () => {})).toMatchObject({ moved: 1, alreadyMoved: digests.length - 1, failed: [] })
      expect(await migrateBlobsToS3(database, bucket, () => {})).toMatchObject({ uploaded: 0, moved: 0, alreadyMoved: digests.length })
    })
  })

  it('runs as the operator command, printing progress and a summary', async () => {
    const dataDir = makeTempDir('s3-migrate')
    const org = await runCliJson<CreatedOrg>(dataDir, ['org', 'create', '--name', 'Migrating'])
    await runCliJson(dataDir, ['template', 'create', '--org', org.org_id, '--name', 'Lease', '--pdf', await writePdf(dataDir, 'lease.pdf', 1)])

    const refused = await runCli(dataDir, ['blobs', 'migrate', '--to', 's3'])
    expect(refused.code).toBe(1)
    expect(refused.stderr).toMatch(/Set BLOB_STORE=s3 and S3_BUCKET/)

    const migrated = await runCli(dataDir, ['blobs', 'migrate', '--to', 's3'], s3.env)
    expect(migrated.code, migrated.stderr).toBe(0)
    expect(migrated.stderr).toMatch(/\[1\/1\] [0-9a-f]{12}… moved/)
    expect(JSON.parse(migrated.stdout)).toMatchObject({ blobs: 1, uploaded: 1, moved: 1, alreadyMoved: 0, missing: [], failed: [] })

    const again = await runCliJson(dataDir, ['blobs', 'migrate', '--to', 's3'], s3.env)
    expect(again).toMatchObject({ blobs: 1, uploaded: 0, moved: 0, alreadyMoved: 1 })
  }, 240_000)
})
