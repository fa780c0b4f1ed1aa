/**
 * Create and read throughput through HAProxy with one node and with three (issue 24), on one
 * scratch PostgreSQL, with the CPU of every process: each node, HAProxy, PostgreSQL, the load
 * generator and whatever else ran on the machine meanwhile. On 2 cores three nodes cannot be
 * faster than one: the figure shows what the balancer and the extra nodes cost. The read straight
 * to one node is the reference. Prints a markdown table; exits 1 if any request failed.
 *
 *   node --conditions=source --import tsx drill/throughput.ts [--seconds N] [--rounds N] [--warmup N] [--connections N] [--http-reuse never|safe]
 *
 *   --seconds      measured seconds per case (default 6)
 *   --rounds       rounds of the alternating cases, medians over them (default 3)
 *   --warmup       seconds of load before each measured window, not counted (default 3)
 *   --connections  autocannon's concurrent keep-alive connections (default 10, as `npm run bench`)
 *   --http-reuse   HAProxy's connections to the nodes: `never`, one per request as in the drill
 *                  (default), or `safe`, kept alive and reused
 */
import { spawnSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { measure, type LoadSpec } from '../bench/loadgen.ts'
import {
  cleanUpProcesses,
  freePort,
  REPO_ROOT,
  runCliJson,
  writeJson,
  writePdf,
  type CreatedOrg,
  type CreatedTemplate,
} from '../packages/server/test/helpers/processes.ts'
import { UNREACHABLE_RATE_LIMITS } from '../packages/server/test/helpers/test-server.ts'
import { settle } from './checks.ts'
import { newInstanceKey, Nodes, startHaproxy, startPostgres, type Balancer, type Postgres, type ServerConnections } from './cluster.ts'
import { clientConnections, cpuMsBetween, pidByCommandLine, sampleCpu, withChildren, type CpuGroups } from './throughput-cpu.ts'

const { values: options } = parseArgs({
  options: {
    seconds: { type: 'string', default: '6' },
    rounds: { type: 'string', default: '3' },
    warmup: { type: 'string', default: '3' },
    connections: { type: 'string', default: '10' },
    'http-reuse': { type: 'string', default: 'never' },
  },
})

function serverConnectionsOption(value: string | undefined): ServerConnections {
  if (value === 'never' || value === 'safe') return value
  throw new Error(`--http-reuse must be never or safe (got ${value})`)
}
const serverConnections = serverConnectionsOption(options['http-reuse'])

function wholeNumber(name: 'seconds' | 'rounds' | 'warmup' | 'connections', min: number): number {
  const value = Number(options[name])
  if (!Number.isInteger(value) || value < min) throw new Error(`--${name} must be a whole number ≥ ${min} (got ${options[name]})`)
  return value
}
const durationSeconds = wholeNumber('seconds', 1)
const rounds = wholeNumber('rounds', 1)
const warmupSeconds = wholeNumber('warmup', 0)
const connections = wholeNumber('connections', 1)
/** At `info`, as `npm start` runs by default: one access line per request is part of what a node pays. */
const LOG_LEVEL = 'info'
/** Longest wait, between cases, for the invitations the creates queued to leave the outbox. */
const OUTBOX_SETTLE_MS = 30_000

const started = Date.now()
const say = (text: string) => process.stderr.write(`[throughput ${((Date.now() - started) / 1000).toFixed(1)} s] ${text}\n`)

type Target = 'one node via HAProxy' | 'three nodes via HAProxy' | 'n1 directly'
type Route = 'read' | 'create'
interface Case {
  route: Route
  target: Target
}
const CASES: Case[] = [
  { route: 'read', target: 'one node via HAProxy' },
  { route: 'read', target: 'three nodes via HAProxy' },
  { route: 'read', target: 'n1 directly' },
  { route: 'create', target: 'one node via HAProxy' },
  { route: 'create', target: 'three nodes via HAProxy' },
  { route: 'create', target: 'n1 directly' },
]
const label = (c: Case) => `${c.route === 'read' ? 'GET /documents/{id}' : 'POST /documents'}, ${c.target}`

/** One measured window: CPU in ms per column of the table, over `elapsedMs`. */
interface Measured {
  requestsPerSecond: number
  p99Ms: number
  requests: number
  failed: number
  elapsedMs: number
  cpuMs: Record<string, number>
  /** PostgreSQL's client connections at the end of the window (the nodes' pools grow on demand). */
  databaseConnections: number
}

const workDir = mkdtempSync(join(tmpdir(), 'signet-throughput-'))
let postgres: Postgres | undefined
let nodes: Nodes | undefined
const balancers: Balancer[] = []

async function tearDown(): Promise<void> {
  await Promise.all(balancers.map((balancer) => balancer.stop().catch(() => undefined)))
  await nodes?.stopAll().catch(() => undefined)
  try {
    postgres?.stop()
  } catch (error) {
    process.stderr.write(`throughput: stopping PostgreSQL: ${(error as Error).message}\n`)
  }
  await cleanUpProcesses()
  rmSync(workDir, { recursive: true, force: true })
}

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    say(`${signal}: stopping everything`)
    void tearDown().finally(() => process.exit(130))
  })
}
process.once('uncaughtException', (error) => {
  process.stderr.write(`throughput: ${error.stack ?? String(error)}\n`)
  void tearDown().finally(() => process.exit(1))
})

/** A Business workspace (REST creates are not metered) and a one-page template; no webhook, so a create queues only its invitation. */
async function seed(databaseUrl: string): Promise<{ orgId: string; apiKey: string; templateId: string }> {
  const cli = <T>(args: string[]) => runCliJson<T>(workDir, args, { DATABASE_URL: databaseUrl })
  const org = await cli<CreatedOrg>(['org', 'create', '--name', 'Throughput Org', '--plan', 'business'])
  const pdf = await writePdf(workDir, 'throughput.pdf', 1)
  const fields = writeJson(workDir, 'fields.json', [{ role: 0, type: 'signature', page: 1, x: 72, y: 140, width: 200, height: 40, label: 'Signature' }])
  const template = await cli<CreatedTemplate>(['template', 'create', '--org', org.org_id, '--name', 'Throughput Agreement', '--pdf', pdf, '--fields', fields])
  return { orgId: org.org_id, apiKey: org.api_key, templateId: template.id }
}

/** HAProxy in a directory of its own (its config and log), in front of `servers`; with its pid for /proc. */
async function balancerFor(name: string, port: number, servers: { name: string; port: number }[]): Promise<{ url: string; pid: number }> {
  const dir = join(workDir, name)
  mkdirSync(dir)
  const balancer = await startHaproxy(dir, port, servers, serverConnections)
  balancers.push(balancer)
  return { url: balancer.url, pid: pidByCommandLine(join(dir, 'haproxy.cfg')) }
}

async function measureCase(spec: LoadSpec, groups: CpuGroups, databaseConnections: () => number): Promise<Measured> {
  let window: { sample: ReturnType<typeof sampleCpu>; at: bigint } | undefined
  const result = await measure(spec, () => (window = { sample: sampleCpu(groups), at: process.hrtime.bigint() }))
  const after = sampleCpu(groups)
  const connectionsNow = databaseConnections()
  if (!window) throw new Error('the load worker never started its measured window')
  const elapsedMs = Number(process.hrtime.bigint() - window.at) / 1e6
  const cpuMs = cpuMsBetween(window.sample, after)
  const ours = Object.values(cpuMs).reduce((sum, ms) => sum + ms, 0)
  // bench's "other" is the machine's busy time less this process, autocannon and every `postgres` process on the machine;
  // what is left after our nodes, HAProxy and PostgreSQL is other sessions' work.
  const machineLessLoadgenPct = (result.otherCpuPct ?? 0) + result.serverCpuPct + (result.postgresCpuPct ?? 0)
  cpuMs.loadgen = result.loadgenCpuMs
  cpuMs.other = Math.max(0, (machineLessLoadgenPct * elapsedMs) / 100 - ours)
  return {
    requestsPerSecond: result.requestsPerSecond,
    p99Ms: result.latencyMs.p99,
    requests: result.totalRequests,
    failed: result.non2xx + result.errors + result.timeouts,
    elapsedMs,
    cpuMs,
    databaseConnections: connectionsNow,
  }
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b)
  const middle = Math.floor(sorted.length / 2)
  return sorted.length % 2 ? (sorted[middle] ?? Number.NaN) : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2
}

const CPU_COLUMNS = ['n1', 'n2', 'n3', 'haproxy', 'postgres', 'loadgen', 'other']

function table(results: Map<Case, Measured[]>): string {
  const pct = (ms: number, elapsedMs: number) => (100 * ms) / elapsedMs
  const rows = [...results].map(([c, windows]) => {
    const med = (of: (m: Measured) => number) => median(windows.map(of))
    const cpu = CPU_COLUMNS.map((column) => med((m) => pct(m.cpuMs[column] ?? 0, m.elapsedMs)).toFixed(0)).join(' / ')
    const perRequest = (columns: string[]) => med((m) => (1000 * columns.reduce((sum, column) => sum + (m.cpuMs[column] ?? 0), 0)) / m.requests).toFixed(0)
    return [
      label(c),
      `**${med((m) => m.requestsPerSecond).toFixed(0)}**`,
      windows.map((m) => m.requestsPerSecond.toFixed(0)).join(', '),
      med((m) => m.p99Ms).toFixed(0),
      cpu,
      [perRequest(['n1', 'n2', 'n3']), perRequest(['haproxy']), perRequest(['postgres'])].join(' / '),
      String(Math.max(...windows.map((m) => m.databaseConnections))),
      String(windows.reduce((sum, m) => sum + m.failed, 0)),
    ]
  })
  return [
    '| Case | req/s (median) | each round | p99 ms | CPU, % of one core: n1 / n2 / n3 / HAProxy / PostgreSQL / loadgen / other | CPU µs per request: nodes / HAProxy / PostgreSQL | PostgreSQL connections (most) | failed |',
    '|---|---|---|---|---|---|---|---|',
    ...rows.map((cells) => `| ${cells.join(' | ')} |`),
  ].join('\n')
}

async function run(): Promise<Map<Case, Measured[]>> {
  const build = spawnSync(process.execPath, ['scripts/ensure-deps.mjs'], { cwd: REPO_ROOT, stdio: 'inherit' })
  if (build.status !== 0) throw new Error('node scripts/ensure-deps.mjs failed')
  postgres = await startPostgres(workDir)
  const seeded = await seed(postgres.url)
  const [oneNodePort, threeNodesPort] = await Promise.all([freePort(), freePort()])
  const publicUrl = `http://127.0.0.1:${threeNodesPort}`
  const instanceKey = newInstanceKey()
  const databaseUrl = postgres.url
  nodes = new Nodes(
    await Promise.all([freePort(), freePort(), freePort()]),
    (node) => ({
      DATABASE_URL: databaseUrl,
      // One PUBLIC_URL for every node, the three-node balancer's: the routes measured never build a link from it.
      PUBLIC_URL: publicUrl,
      IDENTITY_DOCUMENT_KEY: instanceKey,
      DATA_DIR: join(workDir, node.name),
      TRUST_PROXY: '127.0.0.1',
      RATE_LIMITS: UNREACHABLE_RATE_LIMITS,
      LOG_LEVEL,
    }),
    join(workDir, 'nodes.log'),
  )
  const cluster = nodes
  const [n1, ...others] = cluster.list
  if (!n1) throw new Error('no nodes')
  // n1 migrates the empty database alone; the others then start side by side.
  await cluster.start(n1)
  await Promise.all(others.map((node) => cluster.start(node)))
  const oneNode = await balancerFor('one-node', oneNodePort, [n1])
  const threeNodes = await balancerFor('three-nodes', threeNodesPort, cluster.list)
  say(
    `PostgreSQL on port ${postgres.port}; n1, n2, n3 on ${cluster.list.map((n) => n.port).join(', ')}; HAProxy with n1 at ${oneNode.url}, with all three at ${threeNodes.url}`,
  )

  // cluster.ts's data directory; the file's first line is the postmaster's pid.
  const postmasterPid = Number(readFileSync(join(workDir, 'pgdata', 'postmaster.pid'), 'utf8').split('\n', 1)[0])
  const groups: CpuGroups = {
    ...Object.fromEntries(cluster.list.map((node) => [node.name, () => (node.process?.child.pid ? [node.process.child.pid] : [])])),
    haproxy: () => [oneNode.pid, threeNodes.pid],
    postgres: () => withChildren(postmasterPid),
  }
  const bases: Record<Target, string> = {
    'one node via HAProxy': oneNode.url,
    'three nodes via HAProxy': threeNodes.url,
    'n1 directly': `http://127.0.0.1:${n1.port}`,
  }
  const authorization = `Bearer ${seeded.apiKey}`
  const createBody = JSON.stringify({
    template_id: seeded.templateId,
    title: 'Throughput agreement',
    signer: { email: 'signer@throughput.example', name: 'Throughput Signer' },
  })
  const created = await fetch(`${threeNodes.url}/api/v1/documents`, {
    method: 'POST',
    headers: { authorization, 'content-type': 'application/json' },
    body: createBody,
  })
  if (created.status !== 201) throw new Error(`the first create answered ${created.status}: ${await created.text()}`)
  const documentId = ((await created.json()) as { id: string }).id
  const specOf = (c: Case): LoadSpec => ({
    ...(c.route === 'read'
      ? { url: `${bases[c.target]}/api/v1/documents/${documentId}`, method: 'GET', headers: { authorization } }
      : { url: `${bases[c.target]}/api/v1/documents`, method: 'POST', headers: { authorization, 'content-type': 'application/json' }, body: createBody }),
    connections,
    pipelining: 1,
    warmupSeconds,
    durationSeconds,
  })

  const results = new Map<Case, Measured[]>(CASES.map((c) => [c, []]))
  for (let round = 1; round <= rounds; round++) {
    // Every other round in reverse, so that no case always follows the same one.
    for (const c of round % 2 ? CASES : [...CASES].reverse()) {
      const waitedMs = await settle(postgres.url, seeded.orgId, OUTBOX_SETTLE_MS, say)
      if (waitedMs >= OUTBOX_SETTLE_MS) say(`the outbox still had invitations after ${OUTBOX_SETTLE_MS} ms; measuring anyway`)
      const measured = await measureCase(specOf(c), groups, () => clientConnections(postmasterPid, 'signet'))
      results.get(c)?.push(measured)
      say(`round ${round}, ${label(c)}: ${measured.requestsPerSecond.toFixed(0)} req/s, p99 ${measured.p99Ms} ms, ${measured.failed} failed`)
    }
  }
  if (cluster.unexpectedExits.length > 0) throw new Error(`nodes exited during the run: ${cluster.unexpectedExits.map((e) => `${e.node} ${e.how}`).join(', ')}`)
  return results
}

let failed = true
try {
  const results = await run()
  process.stdout.write(`\n${table(results)}\n\n`)
  process.stdout.write(
    `${rounds} rounds, ${warmupSeconds} s warm-up + ${durationSeconds} s measured per case, ${connections} connections, LOG_LEVEL=${LOG_LEVEL}; medians over the rounds.\n`,
  )
  failed = [...results.values()].some((windows) => windows.some((m) => m.failed > 0))
} catch (error) {
  process.stderr.write(`throughput: ${(error as Error).stack ?? String(error)}\n`)
} finally {
  await tearDown()
}
process.exit(failed ? 1 : 0)
