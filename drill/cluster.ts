/**
 * The drill's cluster, from real parts: a scratch PostgreSQL 15 cluster (its own data directory
 * and port, so the drill may restart it), three Signet processes as `npm start` runs them, HAProxy
 * in front and, for the last run, PgBouncer in transaction mode between the nodes and PostgreSQL.
 * PostgreSQL and PgBouncer refuse to run as root, so they run as the `postgres` user in a directory
 * it owns. Every process is started in a process group of its own and stopped by `stop()`.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { chownSync, closeSync, mkdirSync, openSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { freePort, npmStartArgv, REPO_ROOT } from '../packages/server/test/helpers/processes.ts'

const PG_BIN = '/usr/lib/postgresql/15/bin'
const HAPROXY = '/usr/sbin/haproxy'
const PGBOUNCER = '/usr/sbin/pgbouncer'

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))

/** Runs a command as the `postgres` user; throws with its output when it fails. */
function asPostgres(command: string, args: string[]): string {
  const result = spawnSync('runuser', ['-u', 'postgres', '--', command, ...args], { encoding: 'utf8', timeout: 120_000 })
  if (result.status !== 0) throw new Error(`${command} ${args.join(' ')} exited ${result.status}:\n${result.stdout}\n${result.stderr}`)
  return result.stdout
}

/** The same without blocking the event loop: the load goes on while PostgreSQL restarts. */
function asPostgresAsync(command: string, args: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn('runuser', ['-u', 'postgres', '--', command, ...args], { stdio: ['ignore', 'ignore', 'pipe'] })
    let stderr = ''
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk))
    child.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`${command} ${args.join(' ')} exited ${code}:\n${stderr}`))))
  })
}

/** A directory the `postgres` user owns, inside the drill's temp dir. */
function postgresDir(parent: string, name: string): string {
  const dir = join(parent, name)
  mkdirSync(dir, { recursive: true, mode: 0o700 })
  const uid = Number(spawnSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).stdout.trim())
  const gid = Number(spawnSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).stdout.trim())
  chownSync(parent, uid, gid)
  chownSync(dir, uid, gid)
  return dir
}

export interface Postgres {
  url: string
  port: number
  /** `pg_ctl restart -m fast`: every connection is cut, the servers must reconnect by themselves. */
  restart(): Promise<void>
  stop(): void
}

export async function startPostgres(workDir: string): Promise<Postgres> {
  const data = postgresDir(workDir, 'pgdata')
  const port = await freePort()
  asPostgres(join(PG_BIN, 'initdb'), ['-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-sync'])
  const options = `-p ${port} -k ${data} -c listen_addresses=127.0.0.1 -c max_connections=300 -c fsync=off -c synchronous_commit=off`
  const pgCtlArgs = (args: string[]) => ['-D', data, '-l', join(data, 'server.log'), '-w', '-t', '60', ...args]
  const pgCtl = (args: string[]) => asPostgres(join(PG_BIN, 'pg_ctl'), pgCtlArgs(args))
  pgCtl(['-o', options, 'start'])
  asPostgres(join(PG_BIN, 'createdb'), ['-h', '127.0.0.1', '-p', String(port), '-U', 'postgres', 'signet'])
  let running = true
  return {
    url: `postgres://postgres@127.0.0.1:${port}/signet`,
    port,
    restart: () => asPostgresAsync(join(PG_BIN, 'pg_ctl'), pgCtlArgs(['-m', 'fast', 'restart'])),
    stop: () => {
      if (!running) return
      running = false
      pgCtl(['-m', 'immediate', 'stop'])
    },
  }
}

/** A child in its own process group, its output appended to `logFile`; `stop()` SIGTERMs the group and waits. */
interface Daemon {
  child: ChildProcess
  stop(): Promise<void>
}

function startDaemon(command: string, args: string[], logFile: string): Daemon {
  const log = `${logFile}`
  const child = spawn('sh', ['-c', `exec "$0" "$@" >>'${log}' 2>&1`, command, ...args], { detached: true, stdio: 'ignore' })
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  return {
    child,
    async stop() {
      if (child.exitCode === null && child.signalCode === null && child.pid) {
        try {
          process.kill(-child.pid, 'SIGTERM')
        } catch {
          // already gone
        }
        const timer = setTimeout(() => child.pid && process.kill(-child.pid, 'SIGKILL'), 10_000)
        await exited
        clearTimeout(timer)
      }
    },
  }
}

export interface PgBouncer {
  url: string
  stop(): Promise<void>
}

/** PgBouncer 1.18 in transaction pooling, in front of `postgres`, as the `postgres` user. */
export async function startPgBouncer(workDir: string, postgres: Postgres): Promise<PgBouncer> {
  const dir = postgresDir(workDir, 'pgbouncer')
  const port = await freePort()
  const config = join(dir, 'pgbouncer.ini')
  writeFileSync(config, pgBouncerConfig(port, postgres.port, dir))
  writeFileSync(join(dir, 'users.txt'), '"postgres" ""\n')
  spawnSync('chown', ['-R', 'postgres:postgres', dir])
  const daemon = startDaemon('runuser', ['-u', 'postgres', '--', PGBOUNCER, config], join(workDir, 'pgbouncer.log'))
  for (let i = 0; i < 100; i++) {
    if (spawnSync(join(PG_BIN, 'pg_isready'), ['-h', '127.0.0.1', '-p', String(port)]).status === 0) break
    await sleep(100)
  }
  return { url: `postgres://postgres@127.0.0.1:${port}/signet`, stop: () => daemon.stop() }
}

export function pgBouncerConfig(port: number, postgresPort: number, dir: string): string {
  return `[databases]
signet = host=127.0.0.1 port=${postgresPort} dbname=signet

[pgbouncer]
listen_addr = 127.0.0.1
listen_port = ${port}
unix_socket_dir = ${dir}
auth_type = trust
auth_file = ${dir}/users.txt
pool_mode = transaction
max_client_conn = 500
default_pool_size = 20
server_reset_query =
; After PostgreSQL restarts, try its connections again within a second (the default waits 15 s, an outage of its own).
server_login_retry = 1
ignore_startup_parameters = extra_float_digits,options
`
}

export interface Balancer {
  url: string
  /** The access log: one line per request (see LOG_FORMAT). */
  logFile: string
  stop(): Promise<void>
}

/**
 * One line per request: accept time (seconds, milliseconds), the server that answered (or <NOSRV>), the status
 * (-1: none), the termination state, retries, total time, method and path.
 */
const LOG_FORMAT = '%Ts %ms %s %ST %tsc %rc %Ta %HM %HP'

/**
 * How HAProxy treats its connections to the nodes: `never`, a new one per request (the drill's: a
 * draining node's connections are never reused), or `safe`, kept alive and reused between requests
 * (drill/throughput.ts --http-reuse safe, to measure what the new connections cost).
 */
export type ServerConnections = 'never' | 'safe'

const SERVER_CONNECTIONS: Record<ServerConnections, string> = {
  never: `  # A fresh connection per request: a keep-alive connection the node closes while draining is never reused.
  http-reuse never
  option http-server-close`,
  safe: `  # Connections to the nodes kept alive and reused (each request's first on a connection goes on its own).
  http-reuse safe`,
}

export function haproxyConfig(port: number, nodes: { name: string; port: number }[], connections: ServerConnections = 'never'): string {
  return `global
  maxconn 2000
  log stdout format raw local0

defaults
  mode http
  log global
  log-format "${LOG_FORMAT}"
  timeout connect 2s
  timeout client 120s
  timeout server 120s
  timeout queue 30s
  # A refused connection (a node that stopped listening, or was killed) is tried again on another
  # node. A stopping node answers 503 only to /healthz while it drains (SHUTDOWN_GRACE_MS), so no
  # 503 is retried: one reaching a client would be a failure of the drain.
  retries 3
  option redispatch 1
  retry-on conn-failure empty-response
${SERVER_CONNECTIONS[connections]}

frontend signet
  bind 127.0.0.1:${port}
  default_backend nodes

backend nodes
  balance roundrobin
  # A request a node may have acted on before it died (it got no answer) is sent again only if it
  # is a GET or HEAD: a POST retried elsewhere could create a document twice (MCP creates carry no
  # Idempotency-Key). A refused connection is still tried on another node: nothing was sent.
  http-request disable-l7-retry unless METH_GET
  option httpchk GET /healthz
  http-check expect status 200
  # A busy node may take a second to answer /healthz: a shorter check timeout marks healthy nodes down.
  timeout check 3s
  default-server inter 1s fastinter 500ms fall 3 rise 2
${nodes.map((node) => `  server ${node.name} 127.0.0.1:${node.port} check`).join('\n')}
`
}

/** HAProxy on `port` (chosen before the nodes start: their PUBLIC_URL is its URL), answering once a node is up. */
export async function startHaproxy(
  workDir: string,
  port: number,
  nodes: { name: string; port: number }[],
  connections: ServerConnections = 'never',
): Promise<Balancer> {
  const config = join(workDir, 'haproxy.cfg')
  writeFileSync(config, haproxyConfig(port, nodes, connections))
  const logFile = join(workDir, 'haproxy.log')
  const daemon = startDaemon(HAPROXY, ['-db', '-f', config], logFile)
  const url = `http://127.0.0.1:${port}`
  for (let i = 0; i < 100; i++) {
    try {
      const response = await fetch(`${url}/healthz`)
      await response.arrayBuffer()
      if (response.ok) return { url, logFile, stop: () => daemon.stop() }
    } catch {
      // not listening yet
    }
    await sleep(100)
  }
  await daemon.stop()
  throw new Error(`HAProxy did not answer on ${url}`)
}

export const newInstanceKey = () => randomBytes(32).toString('base64')

const NODE_START_TIMEOUT_MS = 120_000
const NODE_STOP_TIMEOUT_MS = 20_000

/**
 * A Signet process as `npm start` runs it. Unlike bench's startSignetProcess, its stdout and stderr
 * go to the drill's log (an uncaught exception's stack is the evidence of a crash) and an exit
 * nobody asked for is recorded: the drill's checks report it.
 */
export interface NodeProcess {
  child: ChildProcess
  exited: Promise<void>
}

async function startNodeProcess(env: Record<string, string>, port: number, logFile: string): Promise<NodeProcess> {
  const log = openSync(logFile, 'a')
  const child = spawn(process.execPath, npmStartArgv(), {
    cwd: REPO_ROOT,
    env: { ...process.env, HOST: '127.0.0.1', PORT: String(port), ...env },
    stdio: ['ignore', log, log],
  })
  closeSync(log)
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  const deadline = Date.now() + NODE_START_TIMEOUT_MS
  while (Date.now() < deadline && child.exitCode === null && child.signalCode === null) {
    const status = await fetch(`http://127.0.0.1:${port}/healthz`, { signal: AbortSignal.timeout(5000) })
      .then(async (response) => (await response.arrayBuffer(), response.status))
      .catch(() => 0)
    if (status === 200) return { child, exited }
    await sleep(100)
  }
  child.kill('SIGKILL')
  throw new Error(`the node on port ${port} did not start (see ${logFile})`)
}

export interface Node {
  name: string
  port: number
  process: NodeProcess | undefined
}

/** A node that exited without being asked to: its name, when, and how. */
export interface UnexpectedExit {
  node: string
  at: number
  how: string
}

/** Three nodes on fixed ports (HAProxy's config names them), started and stopped by name. */
export class Nodes {
  readonly list: Node[]
  readonly unexpectedExits: UnexpectedExit[] = []
  constructor(
    ports: number[],
    private readonly env: (node: Node) => Record<string, string>,
    private readonly logFile: string,
  ) {
    this.list = ports.map((port, i) => ({ name: `n${i + 1}`, port, process: undefined }))
  }

  async start(node: Node): Promise<void> {
    const started = await startNodeProcess(this.env(node), node.port, this.logFile)
    node.process = started
    started.child.once('exit', (code, signal) => {
      if (node.process !== started) return
      node.process = undefined
      this.unexpectedExits.push({ node: node.name, at: Date.now(), how: signal ?? `exit code ${code}` })
    })
  }

  /** SIGTERM and wait for the process to exit (it drains its requests first). */
  async stop(node: Node, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
    const current = node.process
    if (!current) return
    node.process = undefined
    current.child.kill(signal)
    const timer = setTimeout(() => current.child.kill('SIGKILL'), NODE_STOP_TIMEOUT_MS)
    await current.exited
    clearTimeout(timer)
  }

  /** `kill -9`: no draining, requests in flight are cut. */
  kill(node: Node): Promise<void> {
    return this.stop(node, 'SIGKILL')
  }

  async stopAll(): Promise<void> {
    await Promise.all(this.list.map((node) => this.stop(node)))
  }
}
