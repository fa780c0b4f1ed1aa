import type { Readable } from 'node:stream'
import type * as S3Sdk from '@aws-sdk/client-s3'
import type { S3Client, S3ClientConfig } from '@aws-sdk/client-s3'
import { eq, inArray } from 'drizzle-orm'
import { ConfigError, type S3Settings } from '../config.ts'
import type { Database } from '../db/client.ts'
import { blobs } from '../db/schema.ts'
import type { Clock } from './clock.ts'
import { blobStoreFor, deleteRow, digestOf, SHA256_HEX, type BlobStore, type BlobStream, type StagedBlob } from './blob-store.ts'

/** An object no row records is deleted once it is this old: far longer than any stage-then-commit takes. */
export const UNREFERENCED_OBJECT_AGE_MS = 24 * 3600_000
/**
 * `stage` trusts an existing object only when it is younger than this: an older one may be an unreferenced
 * leftover the sweep is about to delete, so it is written again (which makes it young).
 */
const TRUSTED_OBJECT_AGE_MS = UNREFERENCED_OBJECT_AGE_MS / 2
/** How often the sweep of unreferenced objects runs (compose-services.ts). */
export const UNREFERENCED_SWEEP_MS = 3600_000

const PREFIX = 'blobs/'
export const objectKeyOf = (sha256: string): string => `${PREFIX}${sha256.slice(0, 2)}/${sha256}`
const shaOfKey = (key: string): string | undefined => {
  const sha256 = key.slice(key.lastIndexOf('/') + 1)
  return key.startsWith(PREFIX) && SHA256_HEX.test(sha256) ? sha256 : undefined
}

export interface StoredObject {
  size: number
  lastModified: Date
}

/**
 * The blob store on an S3-compatible bucket. Rows stay in the blobs table (documents refer to them) with
 * `bytes` NULL, as the file store's; the object `blobs/ab/<sha256>` holds the bytes. `stage` uploads before
 * any transaction opens, so a crash or a rollback leaves at most an unreferenced object, which
 * `sweepUnreferenced` deletes after a day. Blobs stored before the switch are read from their row or file
 * until `admin blobs migrate --to s3` moves them.
 */
export interface S3BlobStore extends BlobStore {
  head(sha256: string): Promise<StoredObject | undefined>
  /** Uploads bytes whose digest the caller computed. */
  upload(sha256: string, bytes: Uint8Array): Promise<void>
  /** The object's bytes only, no fallback (what the migration verifies). */
  readObject(sha256: string): Promise<Uint8Array | undefined>
  /** Deletes objects older than a day (at `now`) that no row records; returns how many. */
  sweepUnreferenced(now: Date): Promise<number>
  close(): void
}

type Sdk = typeof S3Sdk
/** Loaded when first needed: importing the SDK would add a fraction of a second to every start, BLOB_STORE=s3 or not. */
const loadSdk = (): Promise<Sdk> => import('@aws-sdk/client-s3')

const statusOf = (error: unknown): number | undefined => (error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode

export async function s3ClientFor(settings: S3Settings, requestHandler?: S3ClientConfig['requestHandler']): Promise<S3Client> {
  const { S3Client } = await loadSdk()
  return new S3Client({
    region: settings.region,
    forcePathStyle: settings.forcePathStyle,
    ...(settings.endpoint ? { endpoint: settings.endpoint } : {}),
    // Checksums only where S3 demands them: several S3-compatible servers reject the SDK's default CRC32 headers.
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
    // A dead endpoint fails the start within seconds instead of hanging it.
    requestHandler: requestHandler ?? { connectionTimeout: 5_000 },
  })
}

/** What a failed HeadBucket says about the configuration, naming the setting to fix. */
function refusalFor(error: unknown, settings: S3Settings): string {
  const name = (error as Error).name
  const status = statusOf(error)
  const detail = `(${name}${status ? ` ${status}` : ''}: ${(error as Error).message || 'no message'})`
  if (status === 404 || name === 'NoSuchBucket' || name === 'NotFound') return `S3_BUCKET: the bucket "${settings.bucket}" does not exist ${detail}`
  if (name === 'CredentialsProviderError')
    return `AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY: no S3 credentials were found (nor a profile or an instance role) ${detail}`
  if (status === 401 || status === 403 || name === 'InvalidAccessKeyId' || name === 'SignatureDoesNotMatch') {
    return `AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY: S3 refused these credentials for the bucket "${settings.bucket}" ${detail}`
  }
  if (status === 301 || status === 400) return `S3_REGION: the bucket "${settings.bucket}" did not answer in region ${settings.region} ${detail}`
  const endpoint = settings.endpoint ?? `unset: AWS's endpoint for ${settings.region}`
  return `S3_ENDPOINT (${endpoint}): the S3 service could not be reached ${detail}`
}

/** Builds the store and checks the bucket answers (HeadBucket); a ConfigError naming the setting otherwise. */
export async function openS3BlobStore(
  settings: S3Settings,
  database: Database,
  clock: Clock,
  requestHandler?: S3ClientConfig['requestHandler'],
): Promise<S3BlobStore> {
  const sdk = await loadSdk()
  const client = await s3ClientFor(settings, requestHandler)
  try {
    await client.send(new sdk.HeadBucketCommand({ Bucket: settings.bucket }))
  } catch (error) {
    client.destroy()
    throw new ConfigError([refusalFor(error, settings)])
  }
  return s3BlobStore(sdk, client, settings.bucket, database, clock)
}

function s3BlobStore(sdk: Sdk, client: S3Client, bucket: string, database: Database, clock: Clock): S3BlobStore {
  // Blobs from before the switch: in their rows (PostgreSQL) or files (embedded database).
  const previous = blobStoreFor(database)

  const head = async (sha256: string): Promise<StoredObject | undefined> => {
    try {
      const object = await client.send(new sdk.HeadObjectCommand({ Bucket: bucket, Key: objectKeyOf(sha256) }))
      return { size: object.ContentLength ?? 0, lastModified: object.LastModified ?? new Date(0) }
    } catch (error) {
      if (statusOf(error) === 404) return undefined
      throw error
    }
  }
  const upload = async (sha256: string, bytes: Uint8Array): Promise<void> => {
    await client.send(new sdk.PutObjectCommand({ Bucket: bucket, Key: objectKeyOf(sha256), Body: bytes, ContentLength: bytes.byteLength }))
  }
  const openObject = async (sha256: string): Promise<BlobStream | undefined> => {
    if (!SHA256_HEX.test(sha256)) return undefined
    try {
      const object = await client.send(new sdk.GetObjectCommand({ Bucket: bucket, Key: objectKeyOf(sha256) }))
      return { size: object.ContentLength ?? 0, stream: object.Body as Readable }
    } catch (error) {
      if (statusOf(error) === 404) return undefined
      throw error
    }
  }
  const readObject = async (sha256: string): Promise<Uint8Array | undefined> => {
    const object = await openObject(sha256)
    if (!object) return undefined
    const chunks: Buffer[] = []
    for await (const chunk of object.stream) chunks.push(chunk as Buffer)
    return Buffer.concat(chunks)
  }
  const recorded = async (sha256s: string[]): Promise<Set<string>> => {
    if (sha256s.length === 0) return new Set()
    const rows = await database.db.select({ sha256: blobs.sha256 }).from(blobs).where(inArray(blobs.sha256, sha256s))
    return new Set(rows.map((row) => row.sha256))
  }
  const remove = (sha256: string) => client.send(new sdk.DeleteObjectCommand({ Bucket: bucket, Key: objectKeyOf(sha256) }))

  return {
    async stage(bytes, known) {
      const blob = await digestOf(bytes, known)
      const existing = await head(blob.sha256)
      const trusted = existing?.size === bytes.byteLength && clock.now().getTime() - existing.lastModified.getTime() < TRUSTED_OBJECT_AGE_MS
      if (!trusted) await upload(blob.sha256, bytes)
      return blob as StagedBlob
    },
    async put(tx, blob) {
      await tx.insert(blobs).values({ sha256: blob.sha256, bytes: null, size: blob.bytes.byteLength }).onConflictDoNothing()
      return blob.sha256
    },
    async get(sha256) {
      return (await readObject(sha256)) ?? (SHA256_HEX.test(sha256) ? previous.get(sha256) : undefined)
    },
    // Passed on as S3 sends it: a download never holds the whole file in the server.
    async open(sha256) {
      return (await openObject(sha256)) ?? (SHA256_HEX.test(sha256) ? previous.open(sha256) : undefined)
    },
    head,
    upload,
    readObject,
    delete: deleteRow,
    async release(sha256) {
      if (!SHA256_HEX.test(sha256)) return
      // A row means the same bytes were stored again meanwhile: the object is theirs now.
      const [row] = await database.db.select({ sha256: blobs.sha256 }).from(blobs).where(eq(blobs.sha256, sha256))
      if (row) return
      await remove(sha256)
      await previous.release(sha256)
    },
    async sweepUnreferenced(now) {
      const cutoff = now.getTime() - UNREFERENCED_OBJECT_AGE_MS
      let deleted = 0
      for await (const page of sdk.paginateListObjectsV2({ client }, { Bucket: bucket, Prefix: PREFIX })) {
        const old = (page.Contents ?? []).flatMap((object) => {
          const sha256 = object.Key ? shaOfKey(object.Key) : undefined
          return sha256 && (object.LastModified?.getTime() ?? 0) < cutoff ? [sha256] : []
        })
        const kept = await recorded(old)
        for (const sha256 of old.filter((candidate) => !kept.has(candidate))) {
          // Looked at again just before deleting: a stage since the listing rewrote (and so renewed) it.
          const current = await head(sha256)
          if (!current || current.lastModified.getTime() >= cutoff || (await recorded([sha256])).size > 0) continue
          await remove(sha256)
          deleted++
        }
      }
      return deleted
    },
    close: () => client.destroy(),
  }
}
