import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core'
import type * as schema from './schema.ts'

export type Schema = typeof schema
/** A database handle or an open transaction: both drivers share the pg-core query builder. */
export type Db = PgDatabase<PgQueryResultHKT, Schema>

/** Reads and writes the bytes of blobs rows. */
export interface BlobRows {
  /** The bytes in a row (no row, or a NULL column: undefined). */
  read(sha256: string): Promise<Uint8Array | undefined>
  /** Adds the row with its bytes inside `tx`, unless a row for this digest exists already. */
  write(tx: Db, sha256: string, bytes: Uint8Array): Promise<void>
}
