import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Each file boots its own database (PGlite, or a connection pool on DATABASE_URL).
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // expect.poll's own default deadline (1 s) is less than a busy machine may need to get there.
    expect: { poll: { timeout: 10_000 } },
    pool: 'forks',
    // One process runs file after file (each still has a database and servers of its own): importing the
    // server afresh for every file was a fifth of the suite's time (docs/benchmarks.md, CI time).
    isolate: false,
  },
})
