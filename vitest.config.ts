import { availableParallelism } from 'node:os'
import { configDefaults, defineConfig, type TestProjectInlineConfiguration } from 'vitest/config'
import serverConfig from './packages/server/vitest.config.ts'

const onPostgres = Boolean(process.env.DATABASE_URL)

/**
 * Files that need the PostgreSQL server to themselves, run after the others, one at a time:
 * - identity-documents.test.ts checks that a decision's VACUUM FULL erased the key's row version
 *   from the table's file. VACUUM FULL keeps a dead row version that a transaction still running
 *   may see, and its own snapshot dates from the oldest transaction id still running in any
 *   database of the server: one file's write, open while another file's decision commits, keeps
 *   the row (measured on PostgreSQL 15: docs/benchmarks.md, CI time).
 * - rate-limit.test.ts checks that a lease of ten requests outlasts a PostgreSQL round trip, which
 *   a second file working the server beside it lengthens.
 */
const ALONE_ON_POSTGRES = ['test/identity-documents.test.ts', 'test/rate-limit.test.ts']

/**
 * Files that drive the pages in Chromium run on PGlite only: what they add is the browser's side,
 * and the queries behind those pages have API suites of their own that do run on PostgreSQL. They
 * were 453 s of the PostgreSQL pass's 1,759 s of file time (docs/benchmarks.md, CI time).
 */
const BROWSER_FILES = ['test/dashboard-*.test.ts', 'test/*-browser.test.ts', 'test/api-keys-dashboard.test.ts', 'test/templates-dashboard.test.ts']

/**
 * The server's suites as packages/server/vitest.config.ts runs them, each file on a database of its
 * own. (Its options are copied, not `extends`-ed: extending would add `include` to the package's.)
 */
type ProjectTestOptions = TestProjectInlineConfiguration['test']
const serverOptions = (serverConfig as { test?: ProjectTestOptions }).test
const serverOnPostgres = (test: ProjectTestOptions): TestProjectInlineConfiguration => ({
  test: { ...serverOptions, root: './packages/server', setupFiles: ['test/helpers/postgres-per-file.ts'], ...test },
})

export default defineConfig({
  test: {
    // On PostgreSQL the server's suites are two projects: `@signet/server`, two files at a time,
    // then `@signet/server:alone`, the files above one at a time (`--project '@signet/server*'`
    // runs both, as .ci/run does).
    projects: onPostgres
      ? [
          'packages/!(server)',
          serverOnPostgres({ name: '@signet/server', exclude: [...configDefaults.exclude, ...ALONE_ON_POSTGRES, ...BROWSER_FILES] }),
          serverOnPostgres({ name: '@signet/server:alone', include: ALONE_ON_POSTGRES, maxWorkers: 1, sequence: { groupOrder: 1 } }),
        ]
      : ['packages/*'],
    // Vitest's default on 2 cores is one file at a time, and a server suite spends most of its time
    // waiting (a browser, a mail listener, a database's fsync) or starting up: two at once use the
    // cores that one leaves idle (docs/benchmarks.md, CI time). Each file has a database of its own
    // (in-memory PGlite, or on PostgreSQL test/helpers/postgres-per-file.ts and startTestServer's).
    maxWorkers: Math.max(2, availableParallelism() - 1),
  },
})
