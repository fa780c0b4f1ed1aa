import { setTimeout as sleep } from 'node:timers/promises'
import { sql } from 'drizzle-orm'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { openDatabase, type Database } from '../src/db/client.ts'
import { createScratchDatabase } from './helpers/postgres.ts'

/*
 * PostgreSQL restarted (or a proxy cutting connections) while the server holds a connection
 * between two statements: the failure drill saw this end the whole process with an unhandled
 * 'error' event. Here the connection is cut inside a transaction; vitest fails the run on any
 * unhandled error, so the process surviving is part of what is checked.
 */
describe.skipIf(!process.env.DATABASE_URL)('a PostgreSQL connection lost while checked out', () => {
  let database: Database
  let drop = () => Promise.resolve()
  const errors: Error[] = []

  beforeAll(async () => {
    const scratch = await createScratchDatabase(process.env.DATABASE_URL ?? '')
    drop = scratch.drop
    database = await openDatabase({ databaseUrl: scratch.url }, (error) => errors.push(error))
  })
  afterAll(async () => {
    await database.close()
    await drop()
  })

  async function terminate(pid: number): Promise<void> {
    const admin = new pg.Client({ connectionString: process.env.DATABASE_URL })
    await admin.connect()
    try {
      await admin.query('SELECT pg_terminate_backend($1)', [pid])
    } finally {
      await admin.end()
    }
  }

  it('fails the transaction, not the process, and the next query gets a new connection', async () => {
    const cut = database.db.transaction(async (tx) => {
      const [backend] = await tx.select({ pid: sql<number>`pg_backend_pid()` }).from(sql`(select 1) as one`)
      await terminate(Number(backend?.pid))
      // Long enough for the client to see its socket close while no statement is running.
      await sleep(300)
      await tx.execute(sql`select 1`)
    })
    await expect(cut).rejects.toThrow()
    expect(await database.db.select({ one: sql<number>`1` }).from(sql`(select 1) as one`)).toEqual([{ one: 1 }])
  })
})
