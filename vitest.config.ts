import { availableParallelism } from 'node:os'
import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    projects: ['packages/*'],
    // Vitest's default on 2 cores is one file at a time, and a server suite spends most of its time
    // waiting (a browser, a mail listener, a database's fsync) or starting up: two at once use the
    // cores that one leaves idle (measured in docs/benchmarks.md, CI time).
    maxWorkers: Math.max(2, availableParallelism() - 1),
  },
})
