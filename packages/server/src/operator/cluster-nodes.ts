import { randomBytes } from 'node:crypto'
import { readFile } from 'node:fs/promises'
import { hostname } from 'node:os'
import { eq, lt, ne, sql } from 'drizzle-orm'
import { instanceKeyFor } from '../adapters/document-cipher.ts'
import type { Config } from '../config.ts'
import type { Database } from '../db/client.ts'
import { clusterNodes } from '../db/schema.ts'
import { sha256Hex } from '../lib/crypto.ts'
import type { Logger } from '../lib/logger.ts'
import { sealCredentialsFromP12 } from '../seal/seal-credentials.ts'

export const NODE_HEARTBEAT_MS = 15_000
/** A node not seen for this long has died (three missed beats). */
export const NODE_ALIVE_WINDOW_MS = 45_000

/**
 * The settings that every server on one database must share, as each node uses them: links and
 * certificates name PUBLIC_URL; the seal key signs every PDF (the P12's certificate, or the instance
 * PKI kept in the database); the instance key opens identity documents and TOTP secrets that any
 * node may have stored (IDENTITY_DOCUMENT_KEY, or else a key file each node generates in its own
 * DATA_DIR); and where files go (BLOB_STORE and its bucket), or a node could not read what another
 * stored. Everything else that signs (OAuth keys and cookie keys, webhook secrets) lives in the
 * database, shared already.
 */
export type SharedSetting = 'PUBLIC_URL' | 'SEAL_P12' | 'IDENTITY_DOCUMENT_KEY' | 'BLOB_STORE'

/** A SHA-256 of what each shared setting amounts to on this node, never the value itself. */
export async function sharedSettingFingerprints(config: Config, logger: Logger): Promise<Record<SharedSetting, string>> {
  const seal = config.sealP12
    ? (await sealCredentialsFromP12(await readFile(config.sealP12.path), config.sealP12.password)).certificatePem
    : 'the instance PKI in the database'
  const instanceKey = await instanceKeyFor(config, logger)()
  return {
    PUBLIC_URL: sha256Hex(config.publicUrl),
    SEAL_P12: sha256Hex(seal),
    // Domain-separated, so the digest is not one that some other use of the key would publish.
    IDENTITY_DOCUMENT_KEY: sha256Hex(Buffer.concat([Buffer.from('signet cluster fingerprint\0'), instanceKey])),
    BLOB_STORE: sha256Hex(blobLocationOf(config.blobStore)),
  }
}

function blobLocationOf(store: Config['blobStore']): string {
  return store.kind === 's3' ? `s3 ${store.endpoint ?? store.region} ${store.bucket}` : 'database'
}

/** Raised at start when a live node disagrees; the process prints it and exits 1. */
export class ClusterMismatchError extends Error {}

export interface ClusterMembership {
  /** Stops the heartbeat and removes this node's row (a clean stop). */
  leave(): Promise<void>
}

/** A process that takes no part: the embedded database's, or one with CLUSTER_CHECK=off. */
export const NOT_CLUSTERED: ClusterMembership = { leave: async () => undefined }

/**
 * Records this process as a node of the database's cluster, or refuses (ClusterMismatchError) when a
 * node seen alive within NODE_ALIVE_WINDOW_MS has another fingerprint for a shared setting. Checked
 * and recorded under one transaction-scoped lock, so two nodes starting at once cannot both pass.
 * The embedded database has one process: nothing to agree with.
 */
export async function joinCluster(
  database: Pick<Database, 'db' | 'kind'>,
  node: { publicUrl: string; fingerprints: () => Promise<Record<SharedSetting, string>> },
  logger: Logger,
): Promise<ClusterMembership> {
  if (database.kind === 'pglite') return NOT_CLUSTERED
  const { db } = database
  const fingerprints = await node.fingerprints()
  const id = `node-${hostname()}-${process.pid}-${randomBytes(3).toString('hex')}`
  const staleBefore = sql.raw(`now() - interval '${NODE_ALIVE_WINDOW_MS / 1000} seconds'`)
  await db.transaction(async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(hashtextextended('signet:cluster-nodes', 0))`)
    await tx.delete(clusterNodes).where(lt(clusterNodes.lastSeenAt, staleBefore))
    for (const other of await tx.select().from(clusterNodes).where(ne(clusterNodes.id, id))) {
      for (const [setting, fingerprint] of Object.entries(fingerprints)) {
        if (other.fingerprints[setting] === fingerprint) continue
        throw new ClusterMismatchError(
          `${setting} differs from the running server ${other.id} (${other.publicUrl}): every server must have the same ${setting}${HINTS[setting as SharedSetting]}`,
        )
      }
    }
    await tx.insert(clusterNodes).values({ id, publicUrl: node.publicUrl, fingerprints })
  })

  // An upsert: a row the others removed as stale (this process stalled past the window) comes back.
  const beat = () =>
    db
      .insert(clusterNodes)
      .values({ id, publicUrl: node.publicUrl, fingerprints })
      .onConflictDoUpdate({ target: clusterNodes.id, set: { lastSeenAt: sql`now()` } })
  let beating: Promise<unknown> = Promise.resolve()
  const timer = setInterval(() => {
    beating = beat().catch((error: unknown) => logger.warn({ err: error }, 'cluster node heartbeat failed'))
  }, NODE_HEARTBEAT_MS)
  timer.unref()
  return {
    leave: async () => {
      clearInterval(timer)
      await beating
      await db.delete(clusterNodes).where(eq(clusterNodes.id, id))
    },
  }
}

const HINTS: Record<SharedSetting, string> = {
  PUBLIC_URL: '',
  SEAL_P12: ' (the same seal certificate and key, or none on every server for the instance PKI)',
  IDENTITY_DOCUMENT_KEY: ' (unset, each server generates its own key file in DATA_DIR: set the same key on every server)',
  BLOB_STORE: ' (and the same S3_BUCKET and S3_ENDPOINT or S3_REGION): a server could not read the files another stored',
}
