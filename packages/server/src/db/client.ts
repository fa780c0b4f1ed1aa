import { mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { fileURLToPath } from 'node:url'
import { dirname, join } from 'node:path'
import { PGlite } from '@electric-sql/pglite'
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite'
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator'
import { drizzle as drizzlePg } from 'drizzle-orm/node-postgres'
import { migrate as migratePg } from 'drizzle-orm/node-postgres/migrator'
import { eq } from 'drizzle-orm'
import pg from 'pg'
import type { BlobRows, Db } from './db-handle.ts'
import { postgresBlobRows } from './postgres-blob-rows.ts'
import * as schema from './schema.ts'

// Defined beside the drivers' code, not in it, so postgres-blob-rows.ts can use them without importing this module back.
export type { BlobRows, Db, Schema } from './db-handle.ts'

export interface Database {
  db: Db
  kind: 'pglite' | 'postgres'
  /**
   * Where blobs (PDFs, images) are kept as files, or null to keep them in the blobs table.
   * The embedded engine runs on the server's thread, so megabytes through it would stall
   * every request (adapters/blob-store.ts); PostgreSQL takes them over the network.
   */
  blobDir: string | null
  /** The bytes column of the blobs table (adapters/blob-store.ts decides when it is used). */
  blobRows: BlobRows
  /**
   * Delivers NOTIFY payloads sent on `channel` (by any process, on commit). `onLive(false)`
   * means messages may be missed from now on (connection lost); `onLive(true)` that delivery
   * works again, so anything derived from earlier messages should be rebuilt.
   */
  subscribe(channel: string, onMessage: (payload: string) => void, onLive: (live: boolean) => void): Promise<void>
  close(): Promise<void>
}

const migrationsFolder = fileURLToPath(new URL('../../drizzle', import.meta.url))
/** Serialises concurrent migrators (several servers or test workers) on one PostgreSQL. */
const MIGRATION_LOCK_ID = 0x5167_6e65

/**
 * `pool`: how DATABASE_URL's connections behave (config.ts databasePool); absent: `session`, with
 * migrations and LISTEN on DATABASE_URL itself.
 */
export type DatabaseTarget = { databaseUrl: string; pool?: PoolSettings } | { pgliteDir: string } | { inMemory: true; image?: Blob }
export interface PoolSettings {
  mode: 'session' | 'transaction'
  directUrl: string | undefined
}

/** Where errors that belong to no query go (a pooled idle connection the server terminated). */
export type BackgroundErrorSink = (error: Error) => void
const toStderr: BackgroundErrorSink = (error) => process.stderr.write(`database connection error: ${error.message}\n`)

/** Opens the database and brings its schema up to date. */
export async function openDatabase(target: DatabaseTarget, onBackgroundError: BackgroundErrorSink = toStderr): Promise<Database> {
  if ('databaseUrl' in target) return openPostgres(target.databaseUrl, target.pool ?? { mode: 'session', directUrl: undefined }, onBackgroundError)
  let client: PGlite
  let blobDir: string
  let removeBlobDir = false
  if ('pgliteDir' in target) {
    mkdirSync(target.pgliteDir, { recursive: true })
    client = new PGlite(target.pgliteDir, PGLITE_BYTEA)
    blobDir = join(dirname(target.pgliteDir), 'blobs')
  } else {
    // From an image (migratedPgliteImage) when given: loading one takes a quarter of the second initdb takes.
    client = new PGlite({ ...PGLITE_BYTEA, ...(target.image ? { loadDataDir: target.image } : {}) })
    // An in-memory database keeps its files as long as it lives.
    blobDir = mkdtempSync(join(tmpdir(), 'signet-blobs-'))
    removeBlobDir = true
  }
  const db = drizzlePglite(client, { schema })
  await migratePglite(db, { migrationsFolder })
  return {
    db: db as unknown as Db,
    kind: 'pglite',
    blobDir,
    blobRows: {
      read: async (sha256) => {
        const [row] = await db.select({ bytes: schema.blobs.bytes }).from(schema.blobs).where(eq(schema.blobs.sha256, sha256))
        return row?.bytes ?? undefined
      },
      write: async (tx, sha256, bytes) => {
        await tx.insert(schema.blobs).values({ sha256, bytes, size: bytes.byteLength }).onConflictDoNothing()
      },
    },
    // One process, one engine: notifications cannot be lost.
    subscribe: async (channel, onMessage, onLive) => {
      await client.listen(channel, onMessage)
      onLive(true)
    },
    close: async () => {
      await client.close()
      if (removeBlobDir) rmSync(blobDir, { recursive: true, force: true })
    },
  }
}

/**
 * An empty embedded database with every migration applied, as a data directory image for
 * `{ inMemory: true, image }`: test rigs open hundreds of in-memory databases, and PGlite's initdb
 * is most of each open (1.2 s, against 0.3 s to load the image).
 */
export async function migratedPgliteImage(): Promise<Blob> {
  const client = new PGlite(PGLITE_BYTEA)
  try {
    await migratePglite(drizzlePglite(client, { schema }), { migrationsFolder })
    return await client.dumpDataDir('none')
  } finally {
    await client.close()
  }
}

const BYTEA_OID = 17
/**
 * PGlite's own bytea conversion builds one string per byte (25 MB took 20 s and gigabytes);
 * Buffer's hex codec does the same in milliseconds. Only blobs stored before the blob files
 * (and small values) still pass through here.
 */
const PGLITE_BYTEA = {
  serializers: { [BYTEA_OID]: (value: Uint8Array) => `\\x${Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString('hex')}` },
  parsers: { [BYTEA_OID]: (text: string) => Buffer.from(text.slice(2), 'hex') },
}

const ignoreCheckedOutError = (): void => undefined

async function openPostgres(url: string, settings: PoolSettings, onBackgroundError: BackgroundErrorSink): Promise<Database> {
  // What needs one session across statements (the migration lock, LISTEN) goes past the pooler.
  const directUrl = settings.directUrl ?? url
  await migrateHoldingLock(directUrl)
  const Client = settings.mode === 'transaction' ? UnnamedStatementClient : pg.Client
  const pool = new pg.Pool({ connectionString: url, max: 10, Client })
  // An idle connection that dies (server restart, proxy timeout) is dropped by the pool and
  // re-opened on demand; without a listener its error would crash the process.
  pool.on('error', onBackgroundError)
  // The pool listens only while a connection is idle: one that dies while checked out between two
  // statements (inside a transaction, a blob's COPY) would emit 'error' to no one and end the
  // process (the failure drill's PostgreSQL restart). Nothing to log here: its next statement
  // fails with the same error, and the pool discards the connection on release.
  pool.on('connect', (client) => client.on('error', ignoreCheckedOutError))
  const db = drizzlePg(pool, { schema })
  const listener = postgresListener(directUrl)
  return {
    db: db as unknown as Db,
    kind: 'postgres',
    blobDir: null,
    blobRows: postgresBlobRows(pool),
    subscribe: listener.subscribe,
    close: async () => {
      await listener.close()
      await pool.end()
    },
  }
}

/** Migrates under a session-level advisory lock, so concurrent starts migrate one after another. */
async function migrateHoldingLock(url: string): Promise<void> {
  const lockClient = new pg.Client({ connectionString: url })
  await lockClient.connect()
  try {
    await lockClient.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_ID])
    await migratePg(drizzlePg(lockClient, { schema }), { migrationsFolder })
  } finally {
    // Ending the session releases the lock too.
    await lockClient.end()
  }
}

/**
 * A connection that sends every statement unnamed. Behind a pooler in transaction mode the next
 * statement may run on another server connection, where a named statement prepared here does not
 * exist (or one of the same name, prepared by another client, does). Queries built with
 * `.prepare('name')` (lib/prepared.ts) thus keep their name in session mode and lose it here, which
 * costs a parse and plan per execution; the domain code is the same in both modes.
 */
class UnnamedStatementClient extends pg.Client {
  constructor(config?: string | pg.ClientConfig) {
    super(config)
    // An own property rather than an override: pg's typings give query a dozen overloads.
    const query = this.query.bind(this) as (...args: unknown[]) => unknown
    this.query = ((config: unknown, ...rest: unknown[]) => query(withoutName(config), ...rest)) as pg.Client['query']
  }
}

/** A query config without its statement name; anything else (text, a COPY stream) as it is. */
function withoutName(config: unknown): unknown {
  if (typeof config !== 'object' || config === null || !('name' in config) || config.name === undefined) return config
  return { ...config, name: undefined }
}

const RELISTEN_DELAY_MS = 2_000

/** LISTEN needs a connection of its own, kept outside the pool and re-opened when it drops. */
function postgresListener(url: string) {
  let client: pg.Client | undefined
  let closed = false
  let retry: NodeJS.Timeout | undefined
  const channels = new Map<string, { onMessage: (payload: string) => void; onLive: (live: boolean) => void }>()

  const connect = async () => {
    const candidate = new pg.Client({ connectionString: url })
    candidate.on('notification', (n) => channels.get(n.channel)?.onMessage(n.payload ?? ''))
    candidate.on('error', () => lost(candidate))
    candidate.on('end', () => lost(candidate))
    await candidate.connect()
    for (const channel of channels.keys()) await candidate.query(`LISTEN "${channel}"`)
    client = candidate
    for (const { onLive } of channels.values()) onLive(true)
  }
  const lost = (which: pg.Client) => {
    if (closed || (client !== undefined && client !== which)) return
    if (client === which) {
      client = undefined
      for (const { onLive } of channels.values()) onLive(false)
    }
    clearTimeout(retry)
    retry = setTimeout(() => void connect().catch(() => lost(which)), RELISTEN_DELAY_MS)
    retry.unref()
  }

  return {
    subscribe: async (channel: string, onMessage: (payload: string) => void, onLive: (live: boolean) => void) => {
      channels.set(channel, { onMessage, onLive })
      if (client) {
        await client.query(`LISTEN "${channel}"`)
        onLive(true)
      } else {
        await connect()
      }
    },
    close: async () => {
      closed = true
      clearTimeout(retry)
      await client?.end()
    },
  }
}

/** Where the embedded database lives inside DATA_DIR. */
export const pgliteDirFor = (dataDir: string): string => join(dataDir, 'pgdata')
