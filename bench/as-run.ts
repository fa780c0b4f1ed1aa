/**
 * The document read, the MCP call and their baselines with every server in a process of its
 * own, started as a user starts it: Signet with `npm start`'s command (bench/server-process.ts),
 * the one-select and bare routes in bench/baseline-server.ts, autocannon in a third process.
 * The instance is seeded as an operator seeds one (the admin CLI), and the document, the
 * session and the OAuth token are made over HTTP.
 *
 * Each kind of traffic has a Signet server of its own, as the issue measured the read: one
 * serving the read with rate limits on, one with RATE_LIMITS=off, one serving the MCP calls.
 * A process that has served MCP calls answers the read more slowly afterwards (its shared code
 * has seen more shapes), so the MCP server ends each round with the read as a diagnostic of
 * mixed traffic, reported beside the targets, not instead of them.
 *
 * Cases alternate in rounds so that a change in the machine's capacity during the section
 * touches every case alike, in reverse order every other round; ratios are taken within a round. On PostgreSQL the servers run
 * side by side for the whole section; on PGlite only one process may hold the embedded
 * database, so each is started for its cases and stopped (every start pays its JIT warm-up
 * before anything is measured).
 */
import { UNREACHABLE_RATE_LIMITS } from '../packages/server/test/helpers/test-server.ts'
import { freePort, makeTempDir, runCli, writePdf, type CreatedOrg, type CreatedTemplate } from '../packages/server/test/helpers/processes.ts'
import { CookieJar, oauthHarness, obtainTokens } from '../packages/server/test/helpers/oauth.ts'
import type { CaseResult, LoadSpec } from './loadgen.ts'
import { startBaselineProcess, startSignetProcess, type BenchProcess } from './server-process.ts'
import type { Backend } from './targets.ts'

/** Extra warm-up for the first case after a process starts: its JIT compiles the hot paths in the first seconds of load. */
export const JIT_WARMUP_SECONDS = 5
const OWNER = { email: 'owner@bench.example', name: 'Bench Owner', password: 'bench-password-not-secret-1' }
/** What an MCP client sends with every request to the stateless endpoint (protocol 2025-06-18). */
export const MCP_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' }
export const mcpStatusCall = (documentId: string): string =>
  JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'get_document_status', arguments: { document_id: documentId } } })

export const AS_RUN_CASES = {
  floor: 'one prepared select of the document row (own process)',
  bare: 'GET /bare (Fastify baseline, own process)',
  read: 'GET /api/v1/documents/{id}, rate limits on',
  readOff: 'GET /api/v1/documents/{id}, RATE_LIMITS=off',
  mcp: 'POST /api/mcp tools/call get_document_status, API key',
  oauth: 'the same MCP call with an OAuth access token',
  mixedRead: 'GET /api/v1/documents/{id} on the server that served the MCP calls (diagnostic)',
} as const
export type AsRunCase = keyof typeof AS_RUN_CASES

export interface AsRunResult {
  backend: 'PGlite' | 'PostgreSQL'
  /** Each case's measurement in every round, in round order. */
  rounds: Record<AsRunCase, CaseResult>[]
}

export interface AsRunSettings {
  rounds: number
  /** The LoadSpec of one case (warm-up, duration, connections…) for a URL, method, headers and body. */
  spec(url: string, method: LoadSpec['method'], headers?: Record<string, string>, body?: string): LoadSpec
  runCase(label: string, load: LoadSpec): Promise<CaseResult>
  /** LOG_LEVEL for the servers; unset: the server's default (info), as `npm start` runs. */
  logLevel: string | undefined
}

async function cliJson<T>(dataDir: string, env: Record<string, string>, args: string[]): Promise<T> {
  const result = await runCli(dataDir, args, env)
  if (result.code !== 0) throw new Error(`admin ${args.join(' ')} exited ${result.code}:\n${result.stderr}`)
  return JSON.parse(result.stdout) as T
}

async function expectStatus(response: Response, status: number, what: string): Promise<Response> {
  if (response.status !== status) throw new Error(`${what}: ${response.status} ${await response.text()}`)
  return response
}

/** Seeds the instance with the operator CLI: a business org with its key, a one-page template, an owner who can sign in. */
export async function seedInstance(dataDir: string, env: Record<string, string>) {
  const org = await cliJson<CreatedOrg>(dataDir, env, ['org', 'create', '--name', 'Bench Org', '--plan', 'business'])
  const pdf = await writePdf(dataDir, 'bench.pdf', 1)
  const template = await cliJson<CreatedTemplate>(dataDir, env, ['template', 'create', '--org', org.org_id, '--name', 'Bench Agreement', '--pdf', pdf])
  await cliJson(dataDir, env, [
    'user',
    'create',
    '--email',
    OWNER.email,
    '--name',
    OWNER.name,
    '--password',
    OWNER.password,
    '--org',
    org.org_id,
    '--role',
    'owner',
  ])
  return { org, template }
}

/** Over HTTP on the running server: the document every case reads, and an OAuth access token granted by the owner. */
async function prepare(server: BenchProcess, seeded: Awaited<ReturnType<typeof seedInstance>>) {
  const json = { 'content-type': 'application/json' }
  const login = await expectStatus(
    await fetch(`${server.url}/api/v1/auth/login`, { method: 'POST', headers: json, body: JSON.stringify({ email: OWNER.email, password: OWNER.password }) }),
    200,
    'signing in the owner',
  )
  const jar = new CookieJar()
  jar.take(login)
  const created = await expectStatus(
    await fetch(`${server.url}/api/v1/documents`, {
      method: 'POST',
      headers: { ...json, authorization: `Bearer ${seeded.org.api_key}` },
      body: JSON.stringify({ template_id: seeded.template.id, signer: { email: 'signer@example.com', name: 'Bench Signer' } }),
    }),
    201,
    'creating the document',
  )
  const { id: documentId } = (await created.json()) as { id: string }
  return { documentId, accessTokenFor: (other: BenchProcess) => accessTokenFor(other, jar, seeded.org.org_id) }
}

/** An OAuth access token for `server`'s MCP endpoint (tokens are bound to one PUBLIC_URL), granted by the signed-in owner. */
async function accessTokenFor(server: BenchProcess, jar: CookieJar, orgId: string): Promise<string> {
  const tokens = await obtainTokens(oauthHarness(server.url, server.url), jar, { allow: true, workspace_id: orgId, scopes: ['read', 'write'] })
  return tokens.access_token
}

type ServerKind = 'baseline' | 'reader' | 'readerOff' | 'agent'

/** Measures one backend: seeds it, then runs every case `settings.rounds` times in alternation. */
export async function measureAsRun(backend: Backend, settings: AsRunSettings): Promise<AsRunResult> {
  const label = backend.kind === 'postgres' ? 'PostgreSQL' : 'PGlite'
  const dataDir = makeTempDir('bench-as-run')
  // PGlite: DATABASE_URL must not leak in from the bench's own environment.
  const databaseEnv: Record<string, string> = backend.kind === 'postgres' ? { DATABASE_URL: backend.databaseUrl } : { DATABASE_URL: '' }
  const serverEnv = { ...databaseEnv, DATA_DIR: dataDir, ...(settings.logLevel ? { LOG_LEVEL: settings.logLevel } : {}) }
  const envOf: Record<ServerKind, Record<string, string>> = {
    baseline: { ...serverEnv, LOG_LEVEL: settings.logLevel ?? 'info' },
    reader: { ...serverEnv, RATE_LIMITS: UNREACHABLE_RATE_LIMITS },
    readerOff: { ...serverEnv, RATE_LIMITS: 'off' },
    agent: { ...serverEnv, RATE_LIMITS: UNREACHABLE_RATE_LIMITS },
  }
  // Each Signet server keeps its port across restarts (PGlite), so its PUBLIC_URL, and the OAuth token bound to it, stay the same.
  const portOf = { reader: await freePort(), readerOff: await freePort(), agent: await freePort() }
  const start = (kind: ServerKind) => (kind === 'baseline' ? startBaselineProcess(envOf[kind]) : startSignetProcess(envOf[kind], portOf[kind]))
  const sideBySide = backend.kind === 'postgres'
  const running = new Map<ServerKind, BenchProcess>()
  const fresh = new Set<ServerKind>()

  /** The server of `kind`, started if it is not running (and, on PGlite, every other one stopped first). */
  async function serverOf(kind: ServerKind): Promise<BenchProcess> {
    const current = running.get(kind)
    if (current) return current
    if (!sideBySide) await stopAll()
    const server = await start(kind)
    running.set(kind, server)
    fresh.add(kind)
    return server
  }
  async function stopAll(): Promise<void> {
    for (const server of running.values()) await server.stop()
    running.clear()
  }
  /** Measures one case on the server of `kind`, with the JIT warm-up when that server just started. */
  async function measureOn(kind: ServerKind, name: AsRunCase, load: (server: BenchProcess) => LoadSpec | Promise<LoadSpec>): Promise<CaseResult> {
    const server = await serverOf(kind)
    const spec = { ...(await load(server)), serverPid: server.pid }
    if (fresh.delete(kind)) spec.warmupSeconds += JIT_WARMUP_SECONDS
    return settings.runCase(`${label} / ${AS_RUN_CASES[name]}`, spec)
  }

  try {
    const seeded = await seedInstance(dataDir, databaseEnv)
    const { documentId, accessTokenFor } = await prepare(await serverOf('agent'), seeded)
    const accessTokenOf = new Map<ServerKind, string>()
    /** The server's own token, obtained the first time it runs (on PGlite only one server runs at a time). */
    const tokenOf = async (kind: ServerKind, server: BenchProcess) => {
      const token = accessTokenOf.get(kind) ?? (await accessTokenFor(server))
      accessTokenOf.set(kind, token)
      return token
    }
    const oauthCall = (kind: ServerKind, name: AsRunCase) =>
      measureOn(kind, name, async (s) =>
        settings.spec(`${s.url}/api/mcp`, 'POST', { authorization: `Bearer ${await tokenOf(kind, s)}`, ...MCP_HEADERS }, mcpStatusCall(documentId)),
      )
    const key = { authorization: `Bearer ${seeded.org.api_key}` }
    const readPath = `/api/v1/documents/${documentId}`
    const rounds: AsRunResult['rounds'] = []
    const cases: [AsRunCase, () => Promise<CaseResult>][] = [
      ['floor', () => measureOn('baseline', 'floor', (s) => settings.spec(`${s.url}/one-query/${documentId}`, 'GET'))],
      ['bare', () => measureOn('baseline', 'bare', (s) => settings.spec(`${s.url}/bare`, 'GET'))],
      ['read', () => measureOn('reader', 'read', (s) => settings.spec(s.url + readPath, 'GET', key))],
      ['readOff', () => measureOn('readerOff', 'readOff', (s) => settings.spec(s.url + readPath, 'GET', key))],
      ['mcp', () => measureOn('agent', 'mcp', (s) => settings.spec(`${s.url}/api/mcp`, 'POST', { ...key, ...MCP_HEADERS }, mcpStatusCall(documentId)))],
      ['oauth', () => oauthCall('agent', 'oauth')],
      ['mixedRead', () => measureOn('agent', 'mixedRead', (s) => settings.spec(s.url + readPath, 'GET', key))],
    ]
    for (let round = 1; round <= settings.rounds; round++) {
      // Even rounds run the cases in reverse (A B C, C B A, …), so that no ratio always has the same
      // case first: a case measured right after a heavy one (the bare route's load generator) or
      // first on a just-quiet machine no longer leans one way every round.
      const order = round % 2 === 0 ? [...cases].reverse() : cases
      const measured: Partial<Record<AsRunCase, CaseResult>> = {}
      for (const [name, measure] of order) measured[name] = await measure()
      rounds.push(measured as Record<AsRunCase, CaseResult>)
    }
    return { backend: label, rounds }
  } finally {
    await stopAll()
  }
}

/** The ratios the issue sets targets for, per round. */
export const AS_RUN_RATIOS = {
  readVsFloor: { name: 'read, limits on / one select', target: 0.8, of: (r: Record<AsRunCase, CaseResult>) => rps(r.read) / rps(r.floor) },
  readOnVsOff: { name: 'read, limits on / limits off', target: 0.9, of: (r: Record<AsRunCase, CaseResult>) => rps(r.read) / rps(r.readOff) },
  mcpVsRead: { name: 'MCP get_document_status / REST read', target: 0.5, of: (r: Record<AsRunCase, CaseResult>) => rps(r.mcp) / rps(r.read) },
  oauthVsKey: { name: 'MCP with OAuth token / with API key', target: 0.9, of: (r: Record<AsRunCase, CaseResult>) => rps(r.oauth) / rps(r.mcp) },
} as const

/** Reported beside the targets: what mixed traffic costs the read. */
export const AS_RUN_DIAGNOSTICS = {
  mixedVsFloor: { name: 'read after MCP traffic / one select', of: (r: Record<AsRunCase, CaseResult>) => rps(r.mixedRead) / rps(r.floor) },
} as const

const rps = (result: CaseResult) => result.requestsPerSecond

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b)
  const middle = Math.floor(sorted.length / 2)
  return sorted.length % 2 === 1 ? (sorted[middle] ?? Number.NaN) : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2
}
