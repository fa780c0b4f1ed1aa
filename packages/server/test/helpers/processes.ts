import { execFile, spawn, type ChildProcess } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { buildAdmin, buildServer } from '../../scripts/build-server.mjs'
import { migratedPgliteImage, pgliteDirFor } from '../../src/db/client.ts'
import { makePdf } from './pdf.ts'

/**
 * The real server and operator CLI as child processes, started the way an operator
 * starts them from the repository root: with `npm start`'s and `npm run admin`'s own
 * commands (the built bundles, rebuilt first when a source changed). On PGlite every CLI
 * call without a server, and every server start, boots the embedded database: several
 * seconds on a loaded 2-core machine, more for a fresh DATA_DIR (initdb + migrations), which
 * seedDataDir spares them.
 */

export const REPO_ROOT = fileURLToPath(new URL('../../../../', import.meta.url))

/** CI's second pass sets DATABASE_URL; the children inherit it and use PostgreSQL. */
export const usingPostgres = Boolean(process.env.DATABASE_URL)

export const STARTUP_TIMEOUT_MS = 120_000
export const CLI_TIMEOUT_MS = 120_000
/** server.ts force-exits after 15 s; a clean stop must come well before this. */
const STOP_TIMEOUT_MS = 30_000

const children = new Set<ChildProcess>()
const tempDirs: string[] = []

export function makeTempDir(label: string): string {
  const dir = mkdtempSync(join(tmpdir(), `signet-${label}-`))
  tempDirs.push(dir)
  return dir
}

/** SIGKILLs every child still running and removes the temp dirs; call from afterAll/afterEach. */
export async function cleanUpProcesses(): Promise<void> {
  await Promise.all(
    [...children].map(
      (child) =>
        new Promise<void>((resolve) => {
          if (child.exitCode !== null || child.signalCode !== null) return resolve()
          child.once('exit', () => resolve())
          child.kill('SIGKILL')
        }),
    ),
  )
  children.clear()
  for (const dir of tempDirs.splice(0)) rmSync(dir, { recursive: true, force: true })
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer()
    probe.once('error', reject)
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address()
      probe.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))))
    })
  })
}

function childEnv(dataDir: string, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  // Test servers on one PostgreSQL database have their own ports (PUBLIC_URLs) and DATA_DIRs: the cluster check is for a real cluster (cluster-nodes.test.ts turns it on).
  const env: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: dataDir, LOG_LEVEL: 'warn', HOST: '127.0.0.1', CLUSTER_CHECK: 'off', ...extra }
  // Mail stays in the local outbox, where `mail list` can read it.
  delete env.SMTP_URL
  return env
}

let emptyDatabaseTar: Promise<string> | undefined
const seeding = new Map<string, Promise<void>>()

/** An empty migrated embedded database as a tar file, made once per worker process and removed when it exits. */
async function writeEmptyDatabaseTar(): Promise<string> {
  const path = join(tmpdir(), `signet-empty-pgdata-${process.pid}.tar`)
  writeFileSync(path, Buffer.from(await (await migratedPgliteImage()).arrayBuffer()))
  process.once('exit', () => rmSync(path, { force: true }))
  return path
}

/**
 * The first process on a new DATA_DIR spent about 2 s in PGlite's initdb and the migrations (more
 * on a busy machine), and the suites start dozens: the directory gets an empty migrated database's
 * files instead, unpacked from a tar made once. Not on PostgreSQL, not where a database already is,
 * and not with `initdb` (lifecycle.test.ts starts one server as a user's first start does). Two
 * children started at once on one directory share one unpacking.
 */
function seedDataDir(dataDir: string, env: NodeJS.ProcessEnv): Promise<void> {
  const pgdata = pgliteDirFor(dataDir)
  if (env.DATABASE_URL || existsSync(pgdata)) return seeding.get(pgdata) ?? Promise.resolve()
  const seeded = (async () => {
    emptyDatabaseTar ??= writeEmptyDatabaseTar()
    const tar = await emptyDatabaseTar
    mkdirSync(pgdata, { recursive: true })
    await promisify(execFile)('tar', ['-xf', tar, '-C', pgdata])
  })()
  seeding.set(pgdata, seeded)
  return seeded
}

export interface Exit {
  code: number | null
  signal: NodeJS.Signals | null
}

interface Spawned {
  child: ChildProcess
  exited: Promise<Exit>
  stdout(): string
  stderr(): string
}

/**
 * A script's command from the root package.json (run directly, not through npm, so the
 * child is the server or the CLI itself): `node`'s flags, then the entry.
 */
function npmScriptArgv(script: 'start' | 'admin'): string[] {
  const manifest = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }
  const [command, ...args] = (manifest.scripts[script] ?? '').split(/\s+/)
  if (command !== 'node') throw new Error(`npm run ${script} runs "${manifest.scripts[script]}"; the helpers expect a node command`)
  return args
}

/** `npm start`'s command: the server bundle. */
export function npmStartArgv(): string[] {
  return npmScriptArgv('start')
}

/** Starts `node` with nodeArgs from the repository root; `stdin`, when given, is written to it and closed. */
function spawnTracked(nodeArgs: string[], env: NodeJS.ProcessEnv, stdin?: string): Spawned {
  const child = spawn(process.execPath, nodeArgs, { cwd: REPO_ROOT, env, stdio: [stdin === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'] })
  child.stdin?.end(stdin)
  children.add(child)
  let stdout = ''
  let stderr = ''
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk))
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk))
  // 'close' (not 'exit') so that all output has been read.
  const exited = new Promise<Exit>((resolve) => child.once('close', (code, signal) => resolve({ code, signal })))
  return { child, exited, stdout: () => stdout, stderr: () => stderr }
}

function parseLogLine(line: string): Record<string, unknown> | undefined {
  try {
    const parsed: unknown = JSON.parse(line)
    return typeof parsed === 'object' && parsed !== null ? (parsed as Record<string, unknown>) : undefined
  } catch {
    return undefined
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

async function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T | 'timeout'> {
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), ms)))
  try {
    return await Promise.race([promise, timeout])
  } finally {
    clearTimeout(timer)
  }
}

export interface RequestOptions extends RequestInit {
  /** Sent as `Authorization: Bearer <key>`. */
  key?: string
  /** JSON-encoded as the body, with its Content-Type. */
  json?: unknown
}

export function apiRequest(baseUrl: string, path: string, init: RequestOptions = {}): Promise<Response> {
  const { json, key, ...rest } = init
  const headers = new Headers(rest.headers)
  if (key) headers.set('authorization', `Bearer ${key}`)
  if (json !== undefined) headers.set('content-type', 'application/json')
  return fetch(baseUrl + path, { ...rest, headers, ...(json !== undefined ? { body: JSON.stringify(json) } : {}) })
}

export interface ServerProcess {
  url: string
  port: number
  dataDir: string
  child: ChildProcess
  exited: Promise<Exit>
  /** Everything the server wrote so far, stdout then stderr. */
  output(): string
  /** Resolves once the server logged a JSON line (LOG_LEVEL permitting) that matches. */
  waitForLog(match: (line: Record<string, unknown>) => boolean, timeoutMs?: number): Promise<Record<string, unknown>>
  request(path: string, init?: RequestOptions): Promise<Response>
  /** Sends the signal and resolves with the exit; rejects if the process outlives STOP_TIMEOUT_MS. */
  stop(signal?: NodeJS.Signals): Promise<Exit>
}

/** Starts `server.ts` on DATA_DIR (and DATABASE_URL when set) on a free port and waits for GET /healthz → 200. */
export async function startServer(options: { dataDir: string; env?: NodeJS.ProcessEnv; initdb?: boolean }): Promise<ServerProcess> {
  await buildServer()
  if (!options.initdb) await seedDataDir(options.dataDir, childEnv(options.dataDir, options.env))
  for (let attempt = 1; ; attempt++) {
    const server = launchServer(options.dataDir, await freePort(), options.env)
    try {
      await waitForHealthy(server)
      return server
    } catch (error) {
      // Between probing a free port and the server binding it, another process may take it.
      if (attempt === 3 || !server.output().includes('EADDRINUSE')) throw error
    }
  }
}

function launchServer(dataDir: string, port: number, env: NodeJS.ProcessEnv = {}): ServerProcess {
  const spawned = spawnTracked(npmStartArgv(), childEnv(dataDir, { PORT: String(port), ...env }))
  const url = `http://127.0.0.1:${port}`
  let exit: Exit | undefined
  void spawned.exited.then((e) => (exit = e))
  const output = () => spawned.stdout() + spawned.stderr()
  const failure = (what: string) => new Error(`${what}\n--- server output ---\n${output()}`)

  const server: ServerProcess = {
    url,
    port,
    dataDir,
    child: spawned.child,
    exited: spawned.exited,
    output,
    async waitForLog(match, timeoutMs = STARTUP_TIMEOUT_MS) {
      const deadline = Date.now() + timeoutMs
      for (;;) {
        const lines = spawned.stdout().split('\n')
        lines.pop() // still being written
        for (const line of lines) {
          const parsed = parseLogLine(line)
          if (parsed && match(parsed)) return parsed
        }
        if (exit) throw failure(`the server exited (${JSON.stringify(exit)}) before logging the expected line`)
        if (Date.now() > deadline) throw failure('timed out waiting for a log line')
        await sleep(20)
      }
    },
    request: (path, init) => apiRequest(url, path, init),
    async stop(signal = 'SIGTERM') {
      if (!exit) spawned.child.kill(signal)
      const result = await withTimeout(spawned.exited, STOP_TIMEOUT_MS)
      if (result === 'timeout') throw failure(`the server did not exit within ${STOP_TIMEOUT_MS} ms of ${signal}`)
      return result
    },
  }
  return server
}

async function waitForHealthy(server: ServerProcess): Promise<void> {
  const deadline = Date.now() + STARTUP_TIMEOUT_MS
  let exit: Exit | undefined
  void server.exited.then((e) => (exit = e))
  for (;;) {
    if (exit) throw new Error(`the server exited (${JSON.stringify(exit)}) before it was ready\n--- server output ---\n${server.output()}`)
    try {
      const response = await server.request('/healthz', { signal: AbortSignal.timeout(10_000) })
      if (response.status === 200) return
      await response.body?.cancel()
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`the server was not ready within ${STARTUP_TIMEOUT_MS} ms\n--- server output ---\n${server.output()}`)
    await sleep(100)
  }
}

/** True once nothing accepts connections at url (the fetch fails outright). */
export async function isUnreachable(url: string): Promise<boolean> {
  try {
    const response = await fetch(`${url}/healthz`)
    await response.body?.cancel()
    return false
  } catch {
    return true
  }
}

export interface CliResult {
  code: number | null
  stdout: string
  stderr: string
}

/**
 * Runs the operator CLI with `npm run admin`'s command (its bundle: 0.4 s to start where tsx took
 * 1 s) against DATA_DIR (and DATABASE_URL when set), `stdin` on its standard input; never rejects
 * on a non-zero exit.
 */
export async function runCli(dataDir: string, args: string[], env: NodeJS.ProcessEnv = {}, stdin?: string): Promise<CliResult> {
  await buildAdmin()
  await seedDataDir(dataDir, childEnv(dataDir, env))
  const spawned = spawnTracked([...npmScriptArgv('admin'), ...args], childEnv(dataDir, env), stdin)
  const result = await withTimeout(spawned.exited, CLI_TIMEOUT_MS)
  if (result === 'timeout') {
    spawned.child.kill('SIGKILL')
    throw new Error(`admin ${args.join(' ')} did not finish within ${CLI_TIMEOUT_MS} ms\n${spawned.stderr()}`)
  }
  children.delete(spawned.child)
  return { code: result.code, stdout: spawned.stdout(), stderr: spawned.stderr() }
}

/** Runs the CLI, requires exit 0 and returns its stdout parsed as JSON. */
export async function runCliJson<T>(dataDir: string, args: string[], env: NodeJS.ProcessEnv = {}): Promise<T> {
  const result = await runCli(dataDir, args, env)
  if (result.code !== 0) throw new Error(`admin ${args.join(' ')} exited ${result.code}:\n${result.stderr}`)
  return JSON.parse(result.stdout) as T
}

export interface CreatedOrg {
  org_id: string
  api_key: string
}

export interface CreatedTemplate {
  id: string
  name: string
  page_count: number
  created_at: string
  roles: number[]
}

/** Writes a PDF of `pages` pages into dir and returns its path. */
export async function writePdf(dir: string, name: string, pages: number): Promise<string> {
  const path = join(dir, name)
  writeFileSync(path, await makePdf(pages))
  return path
}

export function writeJson(dir: string, name: string, value: unknown): string {
  const path = join(dir, name)
  writeFileSync(path, JSON.stringify(value))
  return path
}
