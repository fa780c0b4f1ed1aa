/**
 * CPU time of the throughput run's own processes, from /proc, by pid: each Signet node, each
 * HAProxy, and the scratch PostgreSQL's postmaster with its children; and that PostgreSQL's client
 * connections. Chosen by pid, not by name, because the machine also runs other PostgreSQL clusters,
 * servers and test suites.
 */
import { readdirSync, readFileSync } from 'node:fs'
import { postgresCpuDelta, processCpuMs } from '../bench/loadgen.ts'

/** For each group (a column of the table), the pids it counts when sampled. */
export type CpuGroups = Record<string, () => number[]>

/** utime + stime (ms) per pid, per group. */
export type CpuSample = Map<string, Map<string, number>>

function processIds(): number[] {
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .map(Number)
}

function readOrEmpty(path: string): string {
  try {
    return readFileSync(path, 'utf8')
  } catch {
    return '' // the process exited meanwhile
  }
}

/** The parent's pid, from the field after the state in /proc/<pid>/stat. */
function parentOf(pid: number): number | undefined {
  const stat = readOrEmpty(`/proc/${pid}/stat`)
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
  return stat ? Number(fields[1]) : undefined
}

/** A process and its direct children: PostgreSQL's postmaster forks every backend and worker itself. */
export function withChildren(pid: number): number[] {
  return [pid, ...processIds().filter((child) => parentOf(child) === pid)]
}

/** How many client connections the scratch PostgreSQL has open to `database` (its backends' process titles). */
export function clientConnections(postmasterPid: number, database: string): number {
  const title = new RegExp(`^postgres: \\S+ ${database} `)
  return withChildren(postmasterPid).filter((pid) => title.test(readOrEmpty(`/proc/${pid}/cmdline`))).length
}

/** The pid of the one process whose command line contains `text` (e.g. HAProxy's configuration file). */
export function pidByCommandLine(text: string): number {
  const found = processIds().filter((pid) => pid !== process.pid && readOrEmpty(`/proc/${pid}/cmdline`).split('\0').includes(text))
  if (found.length !== 1) throw new Error(`expected one process started with ${text}, found ${found.length}`)
  return found[0] as number
}

export function sampleCpu(groups: CpuGroups): CpuSample {
  const sample: CpuSample = new Map()
  for (const [name, pids] of Object.entries(groups)) {
    const perPid = new Map<string, number>()
    for (const pid of pids()) {
      const ms = processCpuMs(pid)
      if (ms !== undefined) perPid.set(String(pid), ms)
    }
    sample.set(name, perPid)
  }
  return sample
}

/** CPU ms per group between two samples (a backend started meanwhile counts from zero). */
export function cpuMsBetween(before: CpuSample, after: CpuSample): Record<string, number> {
  const used: Record<string, number> = {}
  for (const [name, now] of after) used[name] = postgresCpuDelta(before.get(name), now) ?? 0
  return used
}
