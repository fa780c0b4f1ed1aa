import { availableParallelism } from 'node:os'
import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    projects: ['packages/*'],
    // Vitest's default on 2 cores is one file at a time, and a server suite spends most of its time
    // waiting (a browser, a mail listener, a database's fsync) or starting up: two at once use the
    // cores that one leaves idle (docs/benchmarks.md, CI time). Each file has its own embedded
    // database; on DATABASE_URL all files share one, where a transaction open in one file keeps row
    // versions another file checks are erased (VACUUM FULL keeps what an older snapshot may see):
    // there, one file at a time.
    maxWorkers: process.env.DATABASE_URL ? 1 : Math.max(2, availableParallelism() - 1),
  },
})
