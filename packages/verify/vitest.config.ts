import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // One process runs file after file (each still has a database and servers of its own): importing the
    // server afresh for every file was a fifth of the suite's time (docs/benchmarks.md, CI time).
    isolate: false,
  },
})
