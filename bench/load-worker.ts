/**
 * The load generator, run as a child process of the bench (see loadgen.ts) so that
 * autocannon's event loop, parser and GC never share a thread with the server under test.
 *
 * Protocol over the fork() IPC channel:
 *   parent → child  { type: 'run', spec: LoadSpec }
 *   child → parent  { type: 'measuring' }          (warm-up done, measured run starting)
 *   child → parent  { type: 'result', result }     (then the child exits)
 */
import autocannon from 'autocannon'
import type { LoadResult, LoadSpec, WorkerMessage } from './loadgen.ts'

function send(message: WorkerMessage): Promise<void> {
  return new Promise((resolve, reject) => {
    if (!process.send) return reject(new Error('load-worker.ts must be started with fork() (no IPC channel)'))
    process.send(message, undefined, {}, (error) => (error ? reject(error) : resolve()))
  })
}

function fire(spec: LoadSpec, duration: number): Promise<autocannon.Result> {
  return autocannon({
    url: spec.url,
    method: spec.method,
    headers: spec.headers,
    ...(spec.body !== undefined ? { body: spec.body } : {}),
    connections: spec.connections,
    pipelining: spec.pipelining,
    ...(spec.overallRate !== undefined ? { overallRate: spec.overallRate } : {}),
    duration,
    timeout: 10,
  })
}

async function run(spec: LoadSpec): Promise<void> {
  if (spec.warmupSeconds > 0) await fire(spec, spec.warmupSeconds)
  await send({ type: 'measuring' })
  const cpuBefore = process.cpuUsage()
  const result = await fire(spec, spec.durationSeconds)
  const cpu = process.cpuUsage(cpuBefore)
  const statusCounts: Record<string, number> = {}
  for (const [code, stats] of Object.entries(result.statusCodeStats ?? {})) statusCounts[code] = stats.count ?? 0
  const summary: LoadResult = {
    requestsPerSecond: result.requests.average,
    totalRequests: result.requests.total,
    durationSeconds: result.duration,
    latencyMs: { mean: result.latency.mean, p50: result.latency.p50, p90: result.latency.p90, p99: result.latency.p99, max: result.latency.max },
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
    statusCounts,
    loadgenCpuMs: (cpu.user + cpu.system) / 1000,
  }
  await send({ type: 'result', result: summary })
}

process.once('message', (message: { type: 'run'; spec: LoadSpec }) => {
  run(message.spec).then(
    () => process.disconnect(),
    (error: unknown) => {
      process.stderr.write(`load worker failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`)
      process.exit(1)
    },
  )
})
