/**
 * The integrator's kit (issue 23): what the SDK adds to a call, and how fast the CLI starts.
 *
 * - SDK `documents.get` against a raw `fetch` of the same route, both in this process against a
 *   Signet server started as `npm start` starts it, rate limits on (raised out of reach), the same
 *   number of concurrent callers in a closed loop. The cases alternate within each round (every
 *   other round in reverse order) and the ratio is taken within a round.
 * - `signet --version`: wall time of the bundled CLI as a user runs it (`node packages/cli/bin/signet.mjs`),
 *   measured sequentially, beside `node -e 0` (Node's own start) in the same run.
 */
import { spawnSync } from 'node:child_process'
import { performance } from 'node:perf_hooks'
import { Signet } from '@signet/sdk'
import { UNREACHABLE_RATE_LIMITS } from '../packages/server/test/helpers/test-server.ts'
import { makeTempDir, REPO_ROOT } from '../packages/server/test/helpers/processes.ts'
import { median, seedInstance } from './as-run.ts'
import { startSignetProcess } from './server-process.ts'
import type { Backend } from './targets.ts'

export const SDK_TARGET = 0.95
export const CLI_VERSION_TARGET_MS = 150
const CLI_ENTRY = 'packages/cli/bin/signet.mjs'

export interface KitResult {
  backend: string
  /** Per round: calls per second with the SDK and with raw fetch. */
  rounds: { sdk: number; fetch: number }[]
  cliVersionMs: number[]
  nodeStartMs: number[]
}

/** Calls `call` from `concurrency` loops for `seconds`; returns completed calls per second. */
async function closedLoop(call: () => Promise<unknown>, concurrency: number, seconds: number): Promise<number> {
  const until = performance.now() + seconds * 1000
  let done = 0
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < until) {
        await call()
        done++
      }
    }),
  )
  return done / seconds
}

/** Wall time of `node …args` in milliseconds, `runs` times in a row. */
function wallTimes(args: string[], runs: number): number[] {
  return Array.from({ length: runs }, () => {
    const started = performance.now()
    const result = spawnSync(process.execPath, args, { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'pipe'] })
    const ms = performance.now() - started
    if (result.status !== 0) throw new Error(`node ${args.join(' ')} exited ${result.status}: ${String(result.stderr)}`)
    return ms
  })
}

export async function measureKit(
  backend: Backend,
  settings: { rounds: number; seconds: number; warmupSeconds: number; concurrency: number; log(line: string): void },
): Promise<KitResult> {
  const label = backend.kind === 'postgres' ? 'PostgreSQL' : 'PGlite'
  const dataDir = makeTempDir('bench-kit')
  const databaseEnv: Record<string, string> = backend.kind === 'postgres' ? { DATABASE_URL: backend.databaseUrl } : { DATABASE_URL: '' }
  const seeded = await seedInstance(dataDir, databaseEnv)
  const server = await startSignetProcess({ ...databaseEnv, DATA_DIR: dataDir, RATE_LIMITS: UNREACHABLE_RATE_LIMITS })
  try {
    const signet = new Signet({ apiKey: seeded.org.api_key, baseUrl: server.url })
    const document = await signet.documents.create({ template_id: seeded.template.id, signer: { email: 'signer@example.com', name: 'Bench Signer' } })
    const url = `${server.url}/api/v1/documents/${document.id}`
    const headers = { authorization: `Bearer ${seeded.org.api_key}` }
    const cases = {
      sdk: () => signet.documents.get(document.id),
      fetch: async () => {
        const response = await fetch(url, { headers })
        if (response.status !== 200) throw new Error(`GET ${url}: ${response.status}`)
        return (await response.json()) as unknown
      },
    }
    settings.log(`kit: ${label}: warming up ${settings.warmupSeconds}s per case…`)
    for (const call of Object.values(cases)) await closedLoop(call, settings.concurrency, settings.warmupSeconds)
    const rounds: KitResult['rounds'] = []
    for (let round = 0; round < settings.rounds; round++) {
      const order = round % 2 === 0 ? (['sdk', 'fetch'] as const) : (['fetch', 'sdk'] as const)
      const result = { sdk: 0, fetch: 0 }
      for (const name of order) result[name] = await closedLoop(cases[name], settings.concurrency, settings.seconds)
      settings.log(`kit: ${label}: round ${round + 1}: SDK ${result.sdk.toFixed(0)}/s, fetch ${result.fetch.toFixed(0)}/s`)
      rounds.push(result)
    }
    // One call first so that the file cache holds the bundle, as it does for a user's second call.
    wallTimes([CLI_ENTRY, '--version'], 1)
    const cliVersionMs: number[] = []
    const nodeStartMs: number[] = []
    for (let i = 0; i < 10; i++) {
      cliVersionMs.push(...wallTimes([CLI_ENTRY, '--version'], 1))
      nodeStartMs.push(...wallTimes(['-e', '0'], 1))
    }
    settings.log(`kit: signet --version median ${median(cliVersionMs).toFixed(0)} ms, node -e 0 median ${median(nodeStartMs).toFixed(0)} ms`)
    return { backend: label, rounds, cliVersionMs, nodeStartMs }
  } finally {
    await server.stop()
  }
}
