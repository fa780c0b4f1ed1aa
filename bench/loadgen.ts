/**
 * Drives one measured case: forks bench/load-worker.ts (autocannon in its own process),
 * and while the measured window runs, samples the CPU time spent by this process (the
 * server under test), by the load generator, and by any local PostgreSQL processes.
 */
import { fork } from 'node:child_process'
import { readdirSync, readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'

export interface LoadSpec {
  url: string
  method: 'GET' | 'POST'
  headers: Record<string, string>
  body?: string
  connections: number
  pipelining: number
  /** Requests per second across all connections (autocannon's overallRate); unset: as fast as the server answers. */
  overallRate?: number
  warmupSeconds: number
  durationSeconds: number
  /** Count only this database's PostgreSQL backends (plus the server's auxiliary processes). */
  postgresDatabase?: string
  /** The server under test runs in this process (a child of the bench); unset: in the bench's own process. */
  serverPid?: number
}

export interface LoadResult {
  /** autocannon's "Req/Sec" average over the measured window. */
  requestsPerSecond: number
  totalRequests: number
  durationSeconds: number
  latencyMs: { mean: number; p50: number; p90: number; p99: number; max: number }
  non2xx: number
  errors: number
  timeouts: number
  statusCounts: Record<string, number>
  loadgenCpuMs: number
}

export type WorkerMessage = { type: 'measuring' } | { type: 'result'; result: LoadResult }

export interface CaseResult extends LoadResult {
  /** CPU time of the server process (user + system) during the measured window, as % of one core. */
  serverCpuPct: number
  loadgenCpuPct: number
  /** All processes named `postgres` on this machine (undefined when /proc is not readable). */
  postgresCpuPct: number | undefined
  /** Everything else on the machine (other processes, kernel threads): busy CPU minus the three above. */
  otherCpuPct: number | undefined
  /** CPU time the hypervisor gave to other guests while this VM wanted it (/proc/stat steal). */
  stealPct: number | undefined
}

const workerPath = fileURLToPath(new URL('./load-worker.ts', import.meta.url))
const CLOCK_TICKS_PER_SECOND = 100 // USER_HZ on Linux (getconf CLK_TCK)

/** A client backend's title: `postgres: 15/main: user database 127.0.0.1(5432) idle`. */
const CLIENT_BACKEND = /^postgres: .*?: \S+ (\S+) (\d{1,3}(\.\d{1,3}){3}\(\d+\)|\[local\]|[0-9a-f:]+\(\d+\))/

/**
 * utime + stime (ms) per process whose command name is `postgres`; with `database`,
 * client backends of other databases (e.g. a test suite running meanwhile) are left out,
 * while the server's auxiliary processes (WAL writer, checkpointer, autovacuum…) count.
 */
export function postgresCpuSample(database?: string): Map<string, number> | undefined {
  let entries: string[]
  try {
    entries = readdirSync('/proc')
  } catch {
    return undefined
  }
  const sample = new Map<string, number>()
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue
    let stat: string
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8')
    } catch {
      continue // the process exited meanwhile
    }
    const close = stat.lastIndexOf(')')
    const comm = stat.slice(stat.indexOf('(') + 1, close)
    if (comm !== 'postgres') continue
    if (database !== undefined) {
      let title = ''
      try {
        title = readFileSync(`/proc/${entry}/cmdline`, 'utf8').replace(/\0+$/, '').replace(/\0/g, ' ')
      } catch {
        continue
      }
      const client = CLIENT_BACKEND.exec(title)
      if (client && client[1] !== database) continue
    }
    const fields = stat.slice(close + 2).split(' ')
    // Fields after the comm: state(0) … utime(11) stime(12).
    sample.set(entry, ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS_PER_SECOND)
  }
  return sample
}

/** CPU ms used between two samples: processes that exited meanwhile are lost, never negative. */
export function postgresCpuDelta(before: Map<string, number> | undefined, after: Map<string, number> | undefined): number | undefined {
  if (!before || !after || (before.size === 0 && after.size === 0)) return undefined
  let ms = 0
  for (const [pid, now] of after) ms += Math.max(0, now - (before.get(pid) ?? 0))
  return ms
}

/** CPU time (user + system, ms) of one process so far, from /proc; undefined once it is gone. */
export function processCpuMs(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS_PER_SECOND
  } catch {
    return undefined
  }
}

/** The server's CPU time so far (ms): a child's from /proc, else this process's own. */
function serverCpuMs(pid: number | undefined): number {
  if (pid !== undefined) return processCpuMs(pid) ?? Number.NaN
  const { user, system } = process.cpuUsage()
  return (user + system) / 1000
}

/** Machine-wide busy and steal CPU time (ms, summed over all CPUs) from /proc/stat. */
function machineCpuMs(): { busy: number; steal: number } | undefined {
  try {
    const line = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0] ?? ''
    // cpu  user nice system idle iowait irq softirq steal guest guest_nice
    const [user = 0, nice = 0, system = 0, , , irq = 0, softirq = 0, steal = 0] = line.trim().split(/\s+/).slice(1).map(Number)
    const toMs = (ticks: number) => (ticks * 1000) / CLOCK_TICKS_PER_SECOND
    return { busy: toMs(user + nice + system + irq + softirq), steal: toMs(steal) }
  } catch {
    return undefined
  }
}

/**
 * Waits (at most `maxSeconds`) until the machine's busy CPU over one second is below
 * `thresholdPct` of one core, so a case does not start while something else is running.
 * Returns the last sample (% of one core) and whether the machine was quiet.
 */
export async function waitForQuiet(maxSeconds: number, thresholdPct = 25): Promise<{ quiet: boolean; busyPct: number | undefined }> {
  const deadline = Date.now() + maxSeconds * 1000
  let busyPct: number | undefined
  for (;;) {
    const before = machineCpuMs()
    await new Promise((resolve) => setTimeout(resolve, 1000))
    const after = machineCpuMs()
    if (!before || !after) return { quiet: true, busyPct: undefined }
    busyPct = (after.busy - before.busy) / 10
    if (busyPct < thresholdPct) return { quiet: true, busyPct }
    if (Date.now() >= deadline) return { quiet: false, busyPct }
  }
}

/**
 * Runs warm-up + measured window in a separate Node process; resolves with the measured
 * numbers. `onMeasuring` is called when the warm-up is over and the measured window starts.
 */
export function measure(spec: LoadSpec, onMeasuring?: () => void): Promise<CaseResult> {
  return new Promise((resolve, reject) => {
    const child = fork(workerPath, [], { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] })
    let window: { cpuMs: number; pg: Map<string, number> | undefined; machine: ReturnType<typeof machineCpuMs>; at: bigint } | undefined
    let settled = false
    child.on('message', (message: WorkerMessage) => {
      if (message.type === 'measuring') {
        window = { cpuMs: serverCpuMs(spec.serverPid), pg: postgresCpuSample(spec.postgresDatabase), machine: machineCpuMs(), at: process.hrtime.bigint() }
        onMeasuring?.()
        return
      }
      if (!window) return reject(new Error('load worker sent a result before the measured window started'))
      const elapsedMs = Number(process.hrtime.bigint() - window.at) / 1e6
      const cpuMs = serverCpuMs(spec.serverPid) - window.cpuMs
      const pgMs = postgresCpuDelta(window.pg, postgresCpuSample(spec.postgresDatabase))
      const machineNow = machineCpuMs()
      const pct = (ms: number) => (100 * ms) / elapsedMs
      const serverCpuPct = pct(cpuMs)
      const loadgenCpuPct = pct(message.result.loadgenCpuMs)
      const postgresCpuPct = pgMs !== undefined ? pct(pgMs) : undefined
      const machine =
        window.machine && machineNow ? { busy: pct(machineNow.busy - window.machine.busy), steal: pct(machineNow.steal - window.machine.steal) } : undefined
      settled = true
      resolve({
        ...message.result,
        serverCpuPct,
        loadgenCpuPct,
        postgresCpuPct,
        // The worker's own numbers end slightly before ours; clamp the small negative noise.
        otherCpuPct: machine ? Math.max(0, machine.busy - serverCpuPct - loadgenCpuPct - (postgresCpuPct ?? 0)) : undefined,
        stealPct: machine?.steal,
      })
    })
    child.on('error', reject)
    child.on('exit', (code) => {
      if (!settled) reject(new Error(`load worker exited with code ${code} before reporting a result`))
    })
    child.send({ type: 'run', spec })
  })
}
