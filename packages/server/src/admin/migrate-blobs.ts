import { openS3BlobStore } from '../adapters/s3-blob-store.ts'
import { migrateBlobsToS3, type BlobMigrationSummary } from '../adapters/s3-blob-migration.ts'
import { systemClock } from '../adapters/clock.ts'
import type { Config, S3Settings } from '../config.ts'
import { openInstanceDatabase } from '../db/instance.ts'
import { AppError } from '../errors.ts'

/**
 * `admin blobs migrate --to s3`: run in this process, never through a running server's socket, because it
 * prints its progress as it goes and may run for hours. On PostgreSQL the servers keep serving meanwhile
 * (started with BLOB_STORE=s3 they read a blob not yet moved from its row); the embedded database allows
 * one process, so its server is stopped first.
 */
export async function migrateBlobs(config: Config, s3: S3Settings, progress: (line: string) => void): Promise<BlobMigrationSummary> {
  const database = await openInstanceDatabase(config).catch((error: unknown) => {
    if (error instanceof AppError && error.code === 'conflict') {
      throw new AppError('conflict', `${error.message} Stop the server, run the migration, then start it with BLOB_STORE=s3.`)
    }
    throw error
  })
  try {
    const target = await openS3BlobStore(s3, database, systemClock)
    try {
      return await migrateBlobsToS3(database, target, progress)
    } finally {
      target.close()
    }
  } finally {
    await database.close()
  }
}
