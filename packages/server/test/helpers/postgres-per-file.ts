import { afterAll } from 'vitest'
import { createScratchDatabase } from './postgres.ts'

/**
 * A setup file of the server's suites on PostgreSQL (vitest.config.ts): each test file gets a
 * database of its own, which DATABASE_URL names for the whole file. Files that run the server or
 * the operator CLI as processes (which inherit DATABASE_URL) or open DATABASE_URL themselves would
 * otherwise share one database with the file running beside them: one file's `jobs run` would
 * remind and expire the other's documents. startTestServer's scratch databases are made beside it.
 */
const base = process.env.DATABASE_URL
if (base) {
  const scratch = await createScratchDatabase(base)
  process.env.DATABASE_URL = scratch.url
  // Registered before the file's own hooks, so it runs after them: its servers have stopped.
  afterAll(async () => {
    process.env.DATABASE_URL = base
    await scratch.drop()
  })
}
