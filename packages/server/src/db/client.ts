import { mkdirSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { join } from 'node:path'
import { PGlite } from '@electric-sql/pglite'
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core'
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite'
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator'
import { drizzle as drizzlePg } from 'drizzle-orm/node-postgres'
import { migrate as migratePg } from 'drizzle-orm/node-postgres/migrator'
import pg from 'pg'
import * as schema from './schema.ts'

export type Schema = typeof schema
/** A database handle or an open transaction: both drivers share the pg-core query builder. */
export type Db = PgDatabase<PgQueryResultHKT, Schema>

export interface Database {
  db: Db
  kind: 'pglite' | 'postgres'
  close(): Promise<void>
}

const migrationsFolder = fileURLToPath(new URL('../../drizzle', import.meta.url))
/** Serialises concurrent migrators (several servers or test workers) on one PostgreSQL. */
const MIGRATION_LOCK_ID = 0x5167_6e65

export type DatabaseTarget = { databaseUrl: string } | { pgliteDir: string } | { inMemory: true }

/** Opens the database and brings its schema up to date. */
export async function openDatabase(target: DatabaseTarget): Promise<Database> {
  if ('databaseUrl' in target) return openPostgres(target.databaseUrl)
  let client: PGlite
  if ('pgliteDir' in target) {
    mkdirSync(target.pgliteDir, { recursive: true })
    client = new PGlite(target.pgliteDir)
  } else {
    client = new PGlite()
  }
  const db = drizzlePglite(client, { schema })
  await migratePglite(db, { migrationsFolder })
  return { db: db as unknown as Db, kind: 'pglite', close: () => client.close() }
}

async function openPostgres(url: string): Promise<Database> {
  const pool = new pg.Pool({ connectionString: url, max: 10 })
  const lockClient = await pool.connect()
  try {
    await lockClient.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_ID])
    await migratePg(drizzlePg(lockClient, { schema }), { migrationsFolder })
  } finally {
    await lockClient.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK_ID]).catch(() => undefined)
    lockClient.release()
  }
  const db = drizzlePg(pool, { schema })
  return { db: db as unknown as Db, kind: 'postgres', close: () => pool.end() }
}

/** Where the embedded database lives inside DATA_DIR. */
export const pgliteDirFor = (dataDir: string): string => join(dataDir, 'pgdata')
