/**
 * Servers under test as processes of their own, as a user runs them: Signet with `npm start`'s
 * command (read from package.json, run directly so the child is the server and its CPU time is
 * its own), and the baselines (bench/baseline-server.ts) beside it. Their logs go to
 * BENCH_LOG_FILE, or nowhere: what a server pays to write them is part of what is measured,
 * not the bench reading them back.
 */
import { fork, spawn, type ChildProcess } from 'node:child_process'
import { closeSync, openSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { freePort, npmStartArgv, REPO_ROOT } from '../packages/server/test/helpers/processes.ts'

const STARTUP_TIMEOUT_MS = 120_000
const STOP_TIMEOUT_MS = 20_000
const baselineEntry = fileURLToPath(new URL('./baseline-server.ts', import.meta.url))

export interface BenchProcess {
  url: string
  pid: number
  stop(): Promise<void>
}

/** Where a server's stdout goes: the file named by BENCH_LOG_FILE (appended), else /dev/null. */
function logTarget(): number {
  return openSync(process.env.BENCH_LOG_FILE || '/dev/null', 'a')
}

function stopper(child: ChildProcess, logFd: number): () => Promise<void> {
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  return async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM')
    const timer = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS)
    await exited
    clearTimeout(timer)
    closeSync(logFd)
  }
}

/** Collects what a child writes to stderr, to explain a failed start. */
function stderrOf(child: ChildProcess): () => string {
  let text = ''
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (text = (text + chunk).slice(-20_000)))
  return () => text
}

async function waitForHealthy(url: string, child: ChildProcess, stderr: () => string): Promise<void> {
  const deadline = Date.now() + STARTUP_TIMEOUT_MS
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`the server exited before it was ready:\n${stderr()}`)
    try {
      const response = await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(5000) })
      await response.arrayBuffer()
      if (response.status === 200) return
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`the server was not ready within ${STARTUP_TIMEOUT_MS} ms:\n${stderr()}`)
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
}

/**
 * Extra Node flags for the Signet servers only, from BENCH_SERVER_NODE_ARGS (space-separated), for
 * diagnostics such as `--cpu-prof --cpu-prof-dir=/tmp/prof` (Node refuses --cpu-prof in
 * NODE_OPTIONS, and there it would profile the load generator too). Empty by default.
 */
const serverNodeArgs = (): string[] => (process.env.BENCH_SERVER_NODE_ARGS ?? '').split(' ').filter((arg) => arg !== '')

/**
 * Signet as `npm start` runs it, with `env` (DATABASE_URL or DATA_DIR, RATE_LIMITS, LOG_LEVEL…),
 * on `port` (a free one by default). PUBLIC_URL is that address: a restart on the same port keeps
 * the OAuth tokens it issued valid (they are bound to PUBLIC_URL/api/mcp).
 */
export async function startSignetProcess(env: Record<string, string>, port?: number): Promise<BenchProcess> {
  port ??= await freePort()
  const url = `http://127.0.0.1:${port}`
  const logFd = logTarget()
  const child = spawn(process.execPath, [...serverNodeArgs(), ...npmStartArgv()], {
    cwd: REPO_ROOT,
    // Side by side on one database with their own PUBLIC_URLs: not one cluster, so its start-up check is off.
    env: { ...process.env, HOST: '127.0.0.1', PORT: String(port), PUBLIC_URL: url, CLUSTER_CHECK: 'off', ...env },
    stdio: ['ignore', logFd, 'pipe'],
  })
  const stop = stopper(child, logFd)
  try {
    await waitForHealthy(url, child, stderrOf(child))
  } catch (error) {
    await stop()
    throw error
  }
  return { url, pid: child.pid ?? Number.NaN, stop }
}

/** The baselines (`/bare`, `/one-query/:id`) in their own process, on `env`'s database. */
export async function startBaselineProcess(env: Record<string, string>): Promise<BenchProcess> {
  const logFd = logTarget()
  const child = fork(baselineEntry, [], { execArgv: ['--import', 'tsx'], env: { ...process.env, ...env }, stdio: ['ignore', logFd, 'pipe', 'ipc'] })
  const stop = stopper(child, logFd)
  const stderr = stderrOf(child)
  try {
    const url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`the baseline server did not start within ${STARTUP_TIMEOUT_MS} ms:\n${stderr()}`)), STARTUP_TIMEOUT_MS)
      child.once('message', (message: { url: string }) => {
        clearTimeout(timer)
        resolve(message.url)
      })
      child.once('exit', () => reject(new Error(`the baseline server exited before it was ready:\n${stderr()}`)))
    })
    return { url, pid: child.pid ?? Number.NaN, stop }
  } catch (error) {
    await stop()
    throw error
  }
}
