/**
 * One tenant's heavy PDFs against another's reads (issue 11): while 25 MB image-heavy PDFs
 * are sealed over and over — one at a time, then eight at a time — how fast are another
 * org's GET /api/v1/documents/{id} and GET /healthz answered, and how much memory does the
 * server take? Uploads come from bench/uploader.ts and reads from autocannon, each in its
 * own process; the server (as `npm start` builds it, default PDF pool) runs in this one.
 */
import { fork } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { monitorEventLoopDelay } from 'node:perf_hooks'
import { fileURLToPath } from 'node:url'
import { executeAdminCommand } from '../packages/server/src/admin/commands.ts'
import { imageHeavyPdf } from '../packages/server/test/helpers/hostile-pdfs.ts'
import { measure, type CaseResult, type LoadSpec } from './loadgen.ts'
import type { UploaderMessage, UploaderStart } from './uploader.ts'
import { startSignet, type Backend, type LogLevel } from './targets.ts'

export const UPLOAD_MB = 24.9

export interface IsolationCase {
  name: string
  result: CaseResult
  /** Peak RSS of the server process during the measured window, MiB. */
  rssPeakMib: number
  /** How late the server's event loop ran timers meanwhile (p99 and max, ms): the requests' share of the latency that is the event loop's. */
  loopDelayMs: { p99: number; max: number }
  uploads: number
  uploadStatuses: Record<string, number>
}

export interface IsolationResult {
  backend: string
  workers: number
  queue: number
  rssIdleMib: number
  cases: IsolationCase[]
}

const MIB = 1024 * 1024
const uploaderPath = fileURLToPath(new URL('./uploader.ts', import.meta.url))

/** Samples this process's RSS until stopped; returns the peak, MiB. */
function rssSampler(): () => number {
  let peak = process.memoryUsage().rss
  const timer = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss)
  }, 25)
  return () => {
    clearInterval(timer)
    return Math.round(peak / MIB)
  }
}

/** Measures how late this process's event loop runs until stopped (p99 and max, ms). */
function loopDelaySampler(): () => { p99: number; max: number } {
  const histogram = monitorEventLoopDelay({ resolution: 10 })
  histogram.enable()
  return () => {
    histogram.disable()
    return { p99: Math.round(histogram.percentile(99) / 1e6), max: Math.round(histogram.max / 1e6) }
  }
}

/** Runs `load` while an uploader process keeps `concurrency` seals of `file` in flight. */
async function whileUploading(start: Omit<UploaderStart, 'type'>, load: () => Promise<CaseResult>): Promise<Omit<IsolationCase, 'name'>> {
  const child = fork(uploaderPath, [], { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] })
  const messages: UploaderMessage[] = []
  const next = (type: UploaderMessage['type']) =>
    new Promise<UploaderMessage>((resolve, reject) => {
      const found = messages.find((message) => message.type === type)
      if (found) return resolve(found)
      child.on('message', (message: UploaderMessage) => message.type === type && resolve(message))
      child.once('exit', (code) => reject(new Error(`uploader exited (${code}) before "${type}"`)))
    })
  child.on('message', (message: UploaderMessage) => messages.push(message))
  child.send({ type: 'start', ...start } satisfies UploaderStart)
  await next('uploading')
  const peak = rssSampler()
  const delay = loopDelaySampler()
  const result = await load()
  const loopDelayMs = delay()
  const rssPeakMib = peak()
  child.send({ type: 'stop' })
  const done = (await next('done')) as Extract<UploaderMessage, { type: 'done' }>
  return { result, rssPeakMib, loopDelayMs, uploads: done.uploads, uploadStatuses: done.statuses }
}

export async function measureIsolation(
  backend: Backend,
  level: LogLevel,
  spec: (url: string, headers: Record<string, string>) => LoadSpec,
): Promise<IsolationResult> {
  const dir = mkdtempSync(join(tmpdir(), 'signet-bench-isolation-'))
  const signet = await startSignet(backend, level)
  try {
    const file = join(dir, 'scan.pdf')
    writeFileSync(file, imageHeavyPdf(UPLOAD_MB))
    const heavy = (await executeAdminCommand(signet.services, { name: 'org.create', orgName: 'Heavy PDFs', plan: 'business' })) as {
      org_id: string
      api_key: string
    }
    await executeAdminCommand(signet.services, { name: 'org.verify-identity', orgId: heavy.org_id, legalName: 'Heavy PDFs Ltd' })
    const read = spec(`${signet.url}/api/v1/documents/${signet.documentId}`, { authorization: `Bearer ${signet.apiKey}` })
    const health = spec(`${signet.url}/healthz`, {})
    const upload = (concurrency: number) => ({ url: signet.url, apiKey: heavy.api_key, file, concurrency })

    global.gc?.()
    const rssIdleMib = Math.round(process.memoryUsage().rss / MIB)
    const quietPeak = rssSampler()
    const quietDelay = loopDelaySampler()
    const alone = await measure(read)
    const cases: IsolationCase[] = [
      {
        name: 'GET /api/v1/documents/{id}, nothing else running',
        result: alone,
        loopDelayMs: quietDelay(),
        rssPeakMib: quietPeak(),
        uploads: 0,
        uploadStatuses: {},
      },
    ]
    cases.push({
      name: `GET /api/v1/documents/{id} of another org, while ${UPLOAD_MB} MB PDFs are sealed one after another`,
      ...(await whileUploading(upload(1), () => measure(read))),
    })
    cases.push({ name: `GET /healthz, while eight ${UPLOAD_MB} MB PDFs are sealed at a time`, ...(await whileUploading(upload(8), () => measure(health))) })
    const { workers, queue } = signet.services.config.pdfWork
    return { backend: signet.kind === 'pglite' ? 'PGlite' : 'PostgreSQL', workers, queue, rssIdleMib, cases }
  } finally {
    await signet.close()
    rmSync(dir, { recursive: true, force: true })
  }
}
