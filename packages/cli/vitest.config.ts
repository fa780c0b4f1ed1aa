import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Each file starts one server (the built bundle) and runs the CLI as child processes.
    testTimeout: 60_000,
    hookTimeout: 180_000,
    expect: { poll: { timeout: 10_000 } },
    pool: 'forks',
    // One process runs file after file (each still has a database and servers of its own): importing the
    // server afresh for every file was a fifth of the suite's time (docs/benchmarks.md, CI time).
    isolate: false,
  },
})
