import { eq } from 'drizzle-orm'
import pg from 'pg'
import { copyInRow, copyOutBytea } from './bytea-copy.ts'
import type { BlobRows, Db } from './db-handle.ts'
import { blobs } from './schema.ts'

const SHA256_HEX = /^[0-9a-f]{64}$/
const UNIQUE_VIOLATION = '23505'

/**
 * The node-postgres connection a Drizzle handle runs on: the transaction's client, or the
 * pool for the root handle. Drizzle keeps it private; a Drizzle upgrade that moves it fails
 * test/blob-store.test.ts on PostgreSQL.
 */
function connectionOf(db: Db): pg.ClientBase | pg.Pool {
  const { client } = db._.session as unknown as { client: pg.ClientBase | pg.Pool }
  return client
}

/** Runs `work` on a connection borrowed from the pool. */
async function borrow<T>(pool: pg.Pool, work: (client: pg.ClientBase) => Promise<T>): Promise<T> {
  const client = await pool.connect()
  let broken: Error | undefined
  try {
    return await work(client)
  } catch (error) {
    broken = error as Error // a connection left mid-COPY is closed, not reused
    throw error
  } finally {
    client.release(broken)
  }
}

/** Runs `work` on the handle's own connection (a transaction's), or on one borrowed from the pool. */
function onConnection<T>(db: Db, work: (client: pg.ClientBase) => Promise<T>): Promise<T> {
  const connection = connectionOf(db)
  return connection instanceof pg.Pool ? borrow(connection, work) : work(connection)
}

/** Blob bytes on PostgreSQL, moved by binary COPY (db/bytea-copy.ts) so they never hold the event loop. */
export function postgresBlobRows(pool: pg.Pool): BlobRows {
  return {
    async read(sha256) {
      // Inlined into COPY, which takes no parameters: only a SHA-256 in hex may pass.
      if (!SHA256_HEX.test(sha256)) return undefined
      return borrow(pool, (client) => copyOutBytea(client, `SELECT bytes FROM blobs WHERE sha256 = '${sha256}'`))
    },
    async write(tx, sha256, bytes) {
      const [existing] = await tx.select({ size: blobs.size }).from(blobs).where(eq(blobs.sha256, sha256))
      if (existing) return
      try {
        // In a savepoint: if a concurrent transaction stores the same bytes first, only this COPY fails.
        await tx.transaction((savepoint) =>
          onConnection(savepoint, (client) =>
            copyInRow(client, 'blobs', ['sha256', 'bytes', 'size'], [{ text: sha256 }, { bytes }, { int4: bytes.byteLength }]),
          ),
        )
      } catch (error) {
        if ((error as { code?: string }).code !== UNIQUE_VIOLATION) throw error
      }
    },
  }
}
