import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import lockfile from 'proper-lockfile'
import type { Config } from '../config.ts'
import { AppError } from '../errors.ts'
import { openDatabase, pgliteDirFor, type BackgroundErrorSink, type Database } from './client.ts'

/**
 * Opens the instance's database: PostgreSQL when DATABASE_URL is set, else the embedded
 * PGlite under DATA_DIR. PGlite is single-process, so its directory is guarded by a
 * lock that the holder refreshes; a crashed holder's lock goes stale after 10 s.
 * While a server holds it, the operator CLI talks to the server over the admin socket.
 */
export async function openInstanceDatabase(
  config: Pick<Config, 'databaseUrl' | 'databasePool' | 'dataDir'>,
  onBackgroundError?: BackgroundErrorSink,
): Promise<Database> {
  if (config.databaseUrl) return openDatabase({ databaseUrl: config.databaseUrl, pool: config.databasePool }, onBackgroundError)
  mkdirSync(config.dataDir, { recursive: true })
  let release: () => Promise<void>
  try {
    release = await lockfile.lock(config.dataDir, {
      lockfilePath: join(config.dataDir, 'instance.lock'),
      stale: 10_000,
      update: 2_000,
      retries: { retries: 30, minTimeout: 100, maxTimeout: 500 },
    })
  } catch {
    // Another process holds DATA_DIR: a server (perhaps still starting) or an operator command.
    throw new AppError('conflict', `The embedded database in ${config.dataDir} is in use by another process.`)
  }
  try {
    const database = await openDatabase({ pgliteDir: pgliteDirFor(config.dataDir) })
    return {
      ...database,
      close: async () => {
        await database.close()
        await release()
      },
    }
  } catch (error) {
    await release()
    throw error
  }
}
