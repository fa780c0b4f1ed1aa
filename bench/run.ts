/**
 * `npm run bench`: HTTP throughput of the Signet API against a bare Fastify route, on
 * loopback, over embedded PGlite and (when reachable) PostgreSQL. Prints a markdown
 * table and writes it, with the method and machine facts, into docs/benchmarks.md.
 *
 * Environment (all optional):
 *   BENCH_DURATION     measured seconds per case (default 10)
 *   BENCH_WARMUP       warm-up seconds per case, not measured (default 3)
 *   BENCH_CONNECTIONS  concurrent keep-alive connections (default 10)
 *   BENCH_PIPELINING   requests in flight per connection (default 1)
 *   BENCH_BACKENDS     comma-separated subset of pglite,postgres (default both)
 *   BENCH_SUITES       comma-separated subset of as-run,http,completion,reminders,bulk,seal,isolation,dashboard,accounts,kit (default all)
 *   BENCH_ROUNDS       rounds of the as-run suite's alternating cases (default 3)
 *   BENCH_SIGN_INS     sign-ins measured per kind by the accounts suite (default 15)
 *   BENCH_BULK         recipients in the bulk-send request (default 10000)
 *   BENCH_RUNS         documents measured by the completion suite (default 50)
 *   BENCH_SEAL_RUNS    seals measured by the seal suite (default 20)
 *   BENCH_VERIFY_MB    size of the PDF the seal suite verifies (default 50)
 *   BENCH_OUTPUT       markdown file to update (default docs/benchmarks.md; "-" to skip)
 *   BENCH_QUIET_WAIT   seconds to wait, before each case, for other load on the machine to stop (default 60)
 *   BENCH_SERVER_NODE_ARGS  extra Node flags for the as-run suite's Signet servers, e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof"
 *   LOG_LEVEL          the servers' log level (default warn, see "Method")
 *   DATABASE_URL       PostgreSQL server (default postgres://postgres@127.0.0.1:5432/test)
 */
import { fileURLToPath } from 'node:url'
import {
  AS_RUN_CASES,
  AS_RUN_DIAGNOSTICS,
  AS_RUN_RATIOS,
  JIT_WARMUP_SECONDS,
  MCP_HEADERS,
  mcpStatusCall,
  measureAsRun,
  median,
  type AsRunCase,
  type AsRunResult,
} from './as-run.ts'
import { npmStartArgv } from '../packages/server/test/helpers/processes.ts'
import { measureBulkSend, type BulkBenchResult } from './bulk.ts'
import { measureCompletion } from './completion.ts'
import { measureReminderSweep } from './reminders.ts'
import { FLOOD_HEALTHZ_P99_TARGET_MS, FLOOD_SIGN_UPS, measureAccounts, type AccountsBenchResult } from './accounts.ts'
import { DOCUMENTS_LIST_BUDGET_MS, INITIAL_JS_BUDGET_KB, measureDashboard, type DashboardBenchResult } from './dashboard.ts'
import { CLI_VERSION_TARGET_MS, measureKit, SDK_TARGET, type KitResult } from './kit.ts'
import { measureIsolation, UPLOAD_MB, type IsolationResult } from './isolation.ts'
import { LARGE_PDF_PAGES, measureSeal, measureVerify } from './seal.ts'
import { measure, waitForQuiet, type CaseResult, type LoadSpec } from './loadgen.ts'
import { machineFacts, markdownTable, writeSection, type Row } from './report.ts'
import { ONE_QUERY_PATH, RATE_LIMIT_DESIGN_PATHS, redactUrl, scratchPostgres, startBare, startSignet, type Backend, type LogLevel } from './targets.ts'

const DEFAULT_DATABASE_URL = 'postgres://postgres@127.0.0.1:5432/test'

function intEnv(name: string, fallback: number, min: number): number {
  const raw = process.env[name]
  if (raw === undefined || raw === '') return fallback
  const value = Number(raw)
  if (!Number.isInteger(value) || value < min) throw new Error(`${name} must be an integer ≥ ${min} (got "${raw}")`)
  return value
}

const durationSeconds = intEnv('BENCH_DURATION', 10, 1)
const warmupSeconds = intEnv('BENCH_WARMUP', 3, 0)
const connections = intEnv('BENCH_CONNECTIONS', 10, 1)
const pipelining = intEnv('BENCH_PIPELINING', 1, 1)
const quietWaitSeconds = intEnv('BENCH_QUIET_WAIT', 60, 0)
/** Busy CPU of other processes (% of one core) above which a case is flagged as disturbed. */
const DISTURBED_PCT = 25
const logLevel = (process.env.LOG_LEVEL || 'warn') as LogLevel
const databaseUrl = process.env.DATABASE_URL || DEFAULT_DATABASE_URL
const backends = (process.env.BENCH_BACKENDS || 'pglite,postgres').split(',').map((b) => b.trim())
for (const b of backends) if (b !== 'pglite' && b !== 'postgres') throw new Error(`BENCH_BACKENDS: unknown backend "${b}"`)
const SUITES = ['as-run', 'http', 'completion', 'reminders', 'bulk', 'seal', 'isolation', 'dashboard', 'accounts', 'kit']
const suites = (process.env.BENCH_SUITES || SUITES.join(',')).split(',').map((b) => b.trim())
for (const s of suites) if (!SUITES.includes(s)) throw new Error(`BENCH_SUITES: unknown suite "${s}"`)
const bulkRecipients = intEnv('BENCH_BULK', 10_000, 1)
const asRunRounds = intEnv('BENCH_ROUNDS', 3, 1)
/** The bulk-send issue's target, documents per second end to end. */
const BULK_TARGET_PER_SECOND = 1000
const completionRuns = intEnv('BENCH_RUNS', 50, 1)
const signInRuns = intEnv('BENCH_SIGN_INS', 15, 1)
/** The signing issue's target: completion → signed PDF stored, median, in milliseconds. */
const COMPLETION_TARGET_MS = 100
const sealRuns = intEnv('BENCH_SEAL_RUNS', 20, 1)
const verifyMegabytes = intEnv('BENCH_VERIFY_MB', 50, 1)
/** The seal issue's targets: seal a 10-page PDF ≤ 150 ms (median); verify ≥ 50% of openssl's hashing speed, and faster than pdfsig. */
const SEAL_TARGET_MS = 150
const VERIFY_TARGET_OF_OPENSSL = 0.5
const output = process.env.BENCH_OUTPUT ?? fileURLToPath(new URL('../docs/benchmarks.md', import.meta.url))

const log = (line: string) => process.stderr.write(`bench: ${line}\n`)

/** The PostgreSQL database of the section being measured, for per-database CPU accounting. */
let postgresDatabase: string | undefined

function spec(url: string, method: LoadSpec['method'], headers: Record<string, string> = {}, body?: string): LoadSpec {
  return {
    url,
    method,
    headers,
    ...(body !== undefined ? { body } : {}),
    connections,
    pipelining,
    warmupSeconds,
    durationSeconds,
    ...(postgresDatabase !== undefined ? { postgresDatabase } : {}),
  }
}

const disturbed: string[] = []

async function runCase(label: string, load: LoadSpec): Promise<CaseResult> {
  const { quiet, busyPct } = await waitForQuiet(quietWaitSeconds, DISTURBED_PCT)
  if (!quiet) log(`${label}: the machine is still busy (${busyPct?.toFixed(0)}% of a core used by others) after ${quietWaitSeconds}s; measuring anyway`)
  log(`${label}: ${warmupSeconds}s warm-up + ${durationSeconds}s measured, ${connections} connections…`)
  const result = await measure(load)
  const status = Object.entries(result.statusCounts)
    .map(([code, count]) => `${code}×${count}`)
    .join(' ')
  log(
    `${label}: ${result.requestsPerSecond.toFixed(0)} req/s, p50 ${result.latencyMs.p50} ms, p99 ${result.latencyMs.p99} ms [${status}]` +
      (result.errors > 0 ? ` errors=${result.errors}` : '') +
      (result.otherCpuPct !== undefined ? `, other processes ${result.otherCpuPct.toFixed(0)}% of a core` : '') +
      (result.stealPct !== undefined ? `, steal ${result.stealPct.toFixed(0)}%` : ''),
  )
  if ((result.otherCpuPct ?? 0) > DISTURBED_PCT) disturbed.push(`${label} (${result.otherCpuPct?.toFixed(0)}%)`)
  return result
}

/** The command as typed, with the environment that shaped it. */
function commandLine(): string {
  const names = [
    'BENCH_DURATION',
    'BENCH_WARMUP',
    'BENCH_CONNECTIONS',
    'BENCH_PIPELINING',
    'BENCH_BACKENDS',
    'BENCH_SUITES',
    'BENCH_ROUNDS',
    'BENCH_RUNS',
    'BENCH_BULK',
    'BENCH_SEAL_RUNS',
    'BENCH_VERIFY_MB',
    'LOG_LEVEL',
    'DATABASE_URL',
  ]
  const env = names.filter((n) => process.env[n]).map((n) => `${n}=${n === 'DATABASE_URL' ? redactUrl(process.env[n] ?? '') : process.env[n]}`)
  return [...env, 'npm run bench'].join(' ')
}

/** Runs `measure` once per backend (PostgreSQL in a scratch database, skipped when unreachable). */
async function perBackend<T>(suite: string, measure: (backend: Backend) => Promise<T>): Promise<T[]> {
  const results: T[] = []
  for (const name of backends) {
    if (name === 'postgres') {
      let scratch: Awaited<ReturnType<typeof scratchPostgres>>
      try {
        scratch = await scratchPostgres(databaseUrl)
      } catch (error) {
        log(`${suite}: PostgreSQL skipped (${(error as Error).message})`)
        continue
      }
      try {
        log(`${suite}: PostgreSQL…`)
        results.push(await measure({ kind: 'postgres', databaseUrl: scratch.databaseUrl }))
      } finally {
        await scratch.drop()
      }
    } else {
      log(`${suite}: PGlite…`)
      results.push(await measure({ kind: 'pglite' }))
    }
  }
  return results
}

const machineLine = () =>
  `- Machine: ${Object.entries(machineFacts())
    .map(([k, v]) => `${k} ${v}`)
    .join('; ')}`

const fixed = (n: number, digits = 0) => n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits })
const percent = (n: number | undefined) => (n === undefined ? 'n/a' : `${fixed(n)}%`)

async function asRunSuite(): Promise<void> {
  const results: AsRunResult[] = await perBackend('as-run', async (backend) => {
    postgresDatabase = backend.kind === 'postgres' ? decodeURIComponent(new URL(backend.databaseUrl).pathname.slice(1)) : undefined
    try {
      return await measureAsRun(backend, { rounds: asRunRounds, spec, runCase, logLevel: process.env.LOG_LEVEL || undefined })
    } finally {
      postgresDatabase = undefined
    }
  })
  const caseRows = results.flatMap(({ backend, rounds }) =>
    (Object.keys(AS_RUN_CASES) as AsRunCase[]).map((name) => {
      const runs = rounds.map((round) => round[name])
      const of = (pick: (r: CaseResult) => number) => median(runs.map(pick))
      const perRequestUs = of((r) => (r.serverCpuPct * 1e4) / r.requestsPerSecond)
      const bad = runs.reduce((sum, r) => sum + r.non2xx + r.errors, 0)
      return `| ${backend} | \`${AS_RUN_CASES[name]}\` | **${fixed(of((r) => r.requestsPerSecond))}** | ${runs.map((r) => fixed(r.requestsPerSecond)).join(' / ')} | ${fixed(of((r) => r.latencyMs.p99))} | ${fixed(perRequestUs)} | ${percent(of((r) => r.serverCpuPct))} / ${percent(of((r) => r.loadgenCpuPct))} / ${percent(of((r) => r.postgresCpuPct ?? Number.NaN))} / ${percent(of((r) => r.otherCpuPct ?? Number.NaN))} | ${bad} |`
    }),
  )
  const reportedRatios = [...Object.values(AS_RUN_RATIOS), ...Object.values(AS_RUN_DIAGNOSTICS)]
  const ratioRows = results.map(({ backend, rounds }) => {
    const cells = reportedRatios.map((ratio) => {
      const values = rounds.map(ratio.of)
      return `**${fixed(median(values), 2)}** (${values.map((v) => fixed(v, 2)).join(' / ')})`
    })
    return `| ${backend} | ${cells.join(' | ')} |`
  })
  const postgres = results.find((r) => r.backend === 'PostgreSQL')
  const verdicts = Object.values(AS_RUN_RATIOS).map((ratio) => {
    const measured = results.map(({ backend, rounds }) => `${backend} ${fixed(median(rounds.map(ratio.of)), 2)}`).join(', ')
    if (!postgres) return `**Target (${ratio.name} ≥ ${ratio.target} on PostgreSQL): not measured** — ${measured || 'no backend ran'}.`
    const value = median(postgres.rounds.map(ratio.of))
    return `**Target (${ratio.name} ≥ ${ratio.target} on PostgreSQL): ${value >= ratio.target ? 'met' : 'NOT met'}** — measured ${measured}.`
  })
  const failed = results.flatMap(({ backend, rounds }) =>
    (Object.keys(AS_RUN_CASES) as AsRunCase[])
      .filter((name) => rounds.some((round) => round[name].non2xx + round[name].errors > 0))
      .map((name) => `${backend} / ${AS_RUN_CASES[name]}`),
  )
  if (failed.length > 0)
    verdicts.push(`> Some cases had non-2xx responses or errors: ${failed.join(', ')} — their numbers, and the ratios built on them, are not valid.`, '')
  const body = [
    `## As \`npm start\` runs it`,
    ``,
    `- Command: \`${commandLine()}\`${suites.length > 1 ? ' (this section alone: `BENCH_SUITES=as-run npm run bench`)' : ''}`,
    `- Date: ${new Date().toISOString()}`,
    machineLine(),
    `- Settings: ${asRunRounds} rounds; per case ${warmupSeconds} s warm-up (plus ${JIT_WARMUP_SECONDS} s on a freshly started server) + ${durationSeconds} s measured, ${connections} connections, pipelining ${pipelining}; LOG_LEVEL ${process.env.LOG_LEVEL || "the server's default (info), every line written to /dev/null"}.`,
    `- Every server is a process of its own, as a user runs it: Signet started with \`npm start\`'s command from package.json (\`node ${npmStartArgv().join(' ')}\`: the bundle the build step writes, no TypeScript loader), the one-select and bare routes in \`bench/baseline-server.ts\` (the same configuration, logger and database opening; Fastify's default request logging, two lines per request, where Signet writes one), autocannon in a third process. The instance is seeded with the operator CLI (org, template, owner), the document, the owner's session and each Signet server's OAuth token (registration, consent, PKCE exchange; a token is bound to its server's PUBLIC_URL) over HTTP. Rate limits on: every policy raised out of reach (\`RATE_LIMITS=read-document=1000000,…\`), so each request is still counted against its lease; off: \`RATE_LIMITS=off\`. Each kind of traffic has a Signet server of its own, as the issue measured the read: the read with limits on, the read with limits off, and the MCP calls (with a key, then with an OAuth token), that last server ending each round with the read as a diagnostic of mixed traffic (a process that has served MCP calls reads more slowly: its shared code has seen more shapes). The cases alternate within each round (one select, bare, read, read with limits off, MCP, MCP with OAuth, read after MCP; every other round in reverse order, so that no ratio always measures the same case first), and each ratio is taken within a round; on PostgreSQL the four servers run side by side, on PGlite (one process per database) each is started for its cases. CPU per request from /proc: the server process's user + system time ÷ requests answered.`,
    ``,
    `| Backend | Case | req/s (median) | each round | p99 ms | server CPU µs/req | CPU, % of one core: server / loadgen / postgres / other | non-2xx + errors |`,
    `|---|---|---:|---|---:|---:|---|---:|`,
    ...caseRows,
    ``,
    `| Backend | ${reportedRatios.map((r) => ('target' in r ? `${r.name} (target ≥ ${r.target})` : `${r.name} (diagnostic, no target)`)).join(' | ')} |`,
    `|---|${reportedRatios.map(() => '---:').join('|')}|`,
    ...ratioRows,
    ``,
    ...verdicts.flatMap((v) => [v, '']),
  ].join('\n')
  process.stdout.write(`\n${body}\n`)
  if (output !== '-') writeSection(output, 'as-run', body)
}

async function kitSuite(): Promise<void> {
  const results: KitResult[] = await perBackend('kit', (backend) =>
    measureKit(backend, { rounds: asRunRounds, seconds: durationSeconds, warmupSeconds, concurrency: connections, log }),
  )
  const ratioOf = (r: KitResult) => r.rounds.map((round) => round.sdk / round.fetch)
  const postgres = results.find((r) => r.backend === 'PostgreSQL')
  const cliMs = median(results.flatMap((r) => r.cliVersionMs))
  const body = [
    `## The integrator's kit: SDK overhead and CLI start`,
    ``,
    `- Command: \`${commandLine()}\`${suites.length > 1 ? ' (this section alone: `BENCH_SUITES=kit npm run bench`)' : ''}`,
    `- Date: ${new Date().toISOString()}`,
    machineLine(),
    `- A Signet server started as \`npm start\` starts it (rate limits on, raised out of reach); in the bench's process, ${connections} concurrent callers in a closed loop for ${durationSeconds} s per case after a ${warmupSeconds} s warm-up: \`signet.documents.get(id)\` from \`@signet/sdk\` against \`fetch\` of the same URL with the same key and \`response.json()\`. The two alternate within each of ${asRunRounds} rounds (reverse order every other round); each ratio is taken within its round. \`signet --version\`: the wall time of \`node packages/cli/bin/signet.mjs --version\` (the bundled CLI), 10 runs after one untimed run, each beside \`node -e 0\`.`,
    ``,
    `| Backend | SDK calls/s (each round) | fetch calls/s (each round) | SDK / fetch (median, each round) |`,
    `|---|---|---|---:|`,
    ...results.map(
      (r) =>
        `| ${r.backend} | ${r.rounds.map((x) => fixed(x.sdk)).join(' / ')} | ${r.rounds.map((x) => fixed(x.fetch)).join(' / ')} | **${fixed(median(ratioOf(r)), 2)}** (${ratioOf(
          r,
        )
          .map((v) => fixed(v, 2))
          .join(' / ')}) |`,
    ),
    ``,
    `| | median | min | max |`,
    `|---|---:|---:|---:|`,
    `| \`signet --version\` (ms) | **${fixed(cliMs)}** | ${fixed(Math.min(...results.flatMap((r) => r.cliVersionMs)))} | ${fixed(Math.max(...results.flatMap((r) => r.cliVersionMs)))} |`,
    `| \`node -e 0\` (ms) | ${fixed(median(results.flatMap((r) => r.nodeStartMs)))} | ${fixed(Math.min(...results.flatMap((r) => r.nodeStartMs)))} | ${fixed(Math.max(...results.flatMap((r) => r.nodeStartMs)))} |`,
    ``,
    postgres
      ? `**Target (SDK / fetch ≥ ${SDK_TARGET} on PostgreSQL): ${median(ratioOf(postgres)) >= SDK_TARGET ? 'met' : 'NOT met'}** — measured ${results.map((r) => `${r.backend} ${fixed(median(ratioOf(r)), 2)}`).join(', ')}.`
      : `**Target (SDK / fetch ≥ ${SDK_TARGET} on PostgreSQL): not measured** — ${results.map((r) => `${r.backend} ${fixed(median(ratioOf(r)), 2)}`).join(', ')}.`,
    ``,
    `**Target (\`signet --version\` ≤ ${CLI_VERSION_TARGET_MS} ms): ${cliMs <= CLI_VERSION_TARGET_MS ? 'met' : 'NOT met'}** — median ${fixed(cliMs)} ms.`,
  ].join('\n')
  process.stdout.write(`\n${body}\n`)
  if (output !== '-') writeSection(output, 'kit', body)
}

async function bulkSuite(): Promise<void> {
  const results: BulkBenchResult[] = await perBackend('bulk', (backend) => measureBulkSend(backend, bulkRecipients))
  const slowest = Math.min(...results.map((r) => r.documents_per_second))
  const body = [
    `## Bulk-send`,
    ``,
    `- Command: \`${commandLine()}\`${suites.length > 1 ? ' (this section alone: `BENCH_SUITES=bulk npm run bench`)' : ''}`,
    `- Date: ${new Date().toISOString()}`,
    machineLine(),
    `- One \`POST /api/v1/documents/bulk-send\` with ${bulkRecipients} recipients over loopback HTTP to a Signet server in the bench's process (business org, one-page template): each recipient becomes a document with its signer, audit trail, usage row and queued invitation, committed in batches of 250; the mail dispatcher runs meanwhile with a no-op mailer. Time from sending the request to the 201 body; RSS of the whole process (server + request body + the bench), sampled every 25 ms.`,
    ``,
    `| Backend | Recipients | Sent | Seconds | Documents/s | RSS before | RSS peak |`,
    `|---|---:|---:|---:|---:|---:|---:|`,
    ...results.map(
      (r) => `| ${r.backend} | ${r.recipients} | ${r.sent} | ${r.seconds} | **${r.documents_per_second}** | ${r.rss_before_mib} MiB | ${r.rss_peak_mib} MiB |`,
    ),
    ``,
    `**Target (≥ ${BULK_TARGET_PER_SECOND} documents/s end to end, inside the 60 s budget): ${slowest >= BULK_TARGET_PER_SECOND ? 'met' : 'NOT met'}** — slowest backend ${slowest}/s.`,
  ].join('\n')
  process.stdout.write(`\n${body}\n`)
  if (output !== '-') writeSection(output, 'bulk', body)
}

async function completionSuite(): Promise<void> {
  // Two shapes: two signers at once (the signing issue's), and five in a signing order (issue 22).
  const results = [
    ...(await perBackend('completion', (backend) => measureCompletion(backend, completionRuns, { signers: 2, sequential: false }))),
    ...(await perBackend('completion, sequential', (backend) => measureCompletion(backend, completionRuns, { signers: 5, sequential: true }))),
  ]
  const signersOf = (r: (typeof results)[number]) => `${r.shape.signers}${r.shape.sequential ? ', in order 1–5' : ', at once'}`
  const rows = results.map(
    (r) =>
      `| ${r.backend} | ${signersOf(r)} | ${r.runs} | **${r.render_median_ms}** | ${r.render_p95_ms} | ${r.finish_median_ms} | ${r.finish_p95_ms} | ${Math.round(r.signed_pdf_bytes / 1024)} KiB |`,
  )
  const worst = Math.max(...results.map((r) => r.render_median_ms))
  const verdict = `**Target (completion → signed PDF ≤ ${COMPLETION_TARGET_MS} ms per document, median): ${worst <= COMPLETION_TARGET_MS ? 'met' : 'NOT met'}** — slowest backend's median ${worst} ms.`
  const body = [
    `## Completion → signed PDF`,
    ``,
    `- Command: \`${commandLine()}\`${suites.length > 1 ? ' (this section alone: `BENCH_SUITES=completion npm run bench`)' : ''}`,
    `- Date: ${new Date().toISOString()}`,
    machineLine(),
    `- A 10-page template with 2 signers at once, or 5 in a signing order (orders 1 to 5: each step's invitation is queued by the signature before it), each with a signature, initials, a date and a text. Per document: create it, every signer but the last finishes (in order), then the **last signer's \`finishSigning\`** (which commits the completion; "finish" columns) and the wait until the background renderer, kicked by that completion, has **stored the flattened signed PDF with its certificate page, sealed** ("completion → signed PDF" columns: render, PAdES B-T seal with the built-in time-stamp authority, blob insert, audit event, completion mails queued). In-process through the domain functions (no HTTP), PGlite on disk or a scratch PostgreSQL database; 3 warm-up documents, then ${completionRuns} measured.`,
    ``,
    `| Backend | Signers | Documents | Completion → signed PDF, median ms | p95 ms | Last finish, median ms | p95 ms | Signed PDF size |`,
    `|---|---|---:|---:|---:|---:|---:|---:|`,
    ...rows,
    ``,
    verdict,
  ].join('\n')
  process.stdout.write(`\n${body}\n`)
  if (output !== '-') writeSection(output, 'completion', body)
}

/** Issue 22's target for the reminder sweep over 100,000 open documents, in seconds. */
const REMINDER_SWEEP_TARGET_SECONDS = 5

async function remindersSuite(): Promise<void> {
  const results = await perBackend('reminders', (backend) => measureReminderSweep(backend))
  const slowest = Math.max(...results.map((r) => r.sweep_seconds))
  const body = [
    `## Reminder sweep`,
    ``,
    `- Command: \`${commandLine()}\`${suites.length > 1 ? ' (this section alone: `BENCH_SUITES=reminders npm run bench`)' : ''}`,
    `- Date: ${new Date().toISOString()}`,
    machineLine(),
    `- 100,000 documents out for signature (seeded in SQL), one invited signer each, every one with a reminder schedule; 1,000 of them due at the sweep's instant, the rest a day later. One call of the sweep the background loop runs (\`sendDueReminders\`: each due document in its own transaction, its row locked with SKIP LOCKED, a new link, the audit event and the queued mail). Meanwhile 15 signers of other documents whose reminders are also due finish one after another; their \`finishSigning\` median against the same on the idle database before (after 15 warm-up signings). In-process through the domain functions, PGlite on disk or a scratch PostgreSQL database.`,
    ``,
    `| Backend | Open documents | Reminders sent | Sweep, s | Reminders/s | Finish during the sweep, median ms | Finish idle, median ms |`,
    `|---|---:|---:|---:|---:|---:|---:|`,
    ...results.map(
      (r) =>
        `| ${r.backend} | ${r.open_documents.toLocaleString('en-US')} | ${r.due.toLocaleString('en-US')} | **${r.sweep_seconds}** | ${r.reminders_per_second} | ${r.finish_during_sweep_ms} | ${r.finish_idle_ms} |`,
    ),
    ``,
    `**Target (the sweep over 100,000 open documents ≤ ${REMINDER_SWEEP_TARGET_SECONDS} s): ${slowest <= REMINDER_SWEEP_TARGET_SECONDS ? 'met' : 'NOT met'}** — slowest backend ${slowest} s.`,
  ].join('\n')
  process.stdout.write(`\n${body}\n`)
  if (output !== '-') writeSection(output, 'reminders', body)
}

async function sealSuite(): Promise<void> {
  await waitForQuiet(quietWaitSeconds, DISTURBED_PCT)
  log(`seal: ${sealRuns} seals of a ${10}-page PDF…`)
  const seal = await measureSeal(sealRuns)
  log(`seal: median ${seal.seal_median_ms} ms; verifying a ${verifyMegabytes} MB sealed PDF…`)
  const verify = await measureVerify(verifyMegabytes, 7)
  const mbPerSecond = (ms: number | null) => (ms === null ? 'n/a' : `${Math.round((verify.file_mb * 1000) / ms)} MB/s`)
  const ofOpenssl = verify.openssl_median_ms / verify.verify_median_ms
  const cliOfOpenssl = verify.openssl_median_ms / verify.cli_median_ms
  const ofPdfsig = verify.pdfsig_median_ms === null ? null : verify.verify_median_ms / verify.pdfsig_median_ms
  const met = (ok: boolean) => (ok ? 'met' : 'NOT met')
  const body = [
    `## Seal and verify`,
    ``,
    `- Command: \`${commandLine()}\`${suites.length > 1 ? ' (this section alone: `BENCH_SUITES=seal npm run bench`)' : ''}`,
    `- Date: ${new Date().toISOString()}`,
    machineLine(),
    `- **Seal**: the default instance (generated ECDSA P-256 seal key, built-in RFC 3161 authority) seals a ${seal.pages}-page PDF at PAdES B-T (\`sealer.seal\`: load, CAdES signature, time-stamp token, incremental save), ${sealRuns} runs after 3 warm-ups, in-process. "Whole request" is \`requestSeal\` with certificate_mode both: metering and storage in a transaction, certificate page appended, the file and the standalone certificate both sealed and stored (in-memory PGlite).`,
    `- **Verify**: a ${verify.file_mb} MB sealed PDF (${LARGE_PDF_PAGES} pages of text and an incompressible attachment) followed by a validation-data (DSS) update, as a B-LT upgrade writes it, so the change analysis maps the signed revision and checks the update; in the temp directory, page cache warm; median of ${verify.runs} runs each of: \`verifyPdf\` in-process on the bytes in memory (as the verification page has them), on the file before its DSS update (no analysis to do), and with the file read first, the \`signet-verify\` CLI as a process, \`openssl dgst -sha256\` (the floor: only hashing the file) and \`pdfsig -no-ocsp\`. Verdict: \`${verify.verdict}\` (no trust anchor given).`,
    ``,
    `| Seal (${seal.pages} pages) | median ms | p95 ms |`,
    `|---|---:|---:|`,
    `| \`sealer.seal\` | **${seal.seal_median_ms}** | ${seal.seal_p95_ms} |`,
    `| whole self-seal request (mode both) | ${seal.request_median_ms} | ${seal.request_p95_ms} |`,
    ``,
    `| Verify ${verify.file_mb} MB | median ms | throughput |`,
    `|---|---:|---:|`,
    `| \`verifyPdf\` on the bytes in memory | **${verify.verify_median_ms}** | ${mbPerSecond(verify.verify_median_ms)} |`,
    `| \`verifyPdf\`, the file before its DSS update | ${verify.verify_before_update_median_ms} | ${mbPerSecond(verify.verify_before_update_median_ms)} |`,
    `| reading the file + \`verifyPdf\` | ${verify.read_verify_median_ms} | ${mbPerSecond(verify.read_verify_median_ms)} |`,
    `| \`signet-verify\` CLI (process) | ${verify.cli_median_ms} | ${mbPerSecond(verify.cli_median_ms)} |`,
    `| \`openssl dgst -sha256\` | ${verify.openssl_median_ms} | ${mbPerSecond(verify.openssl_median_ms)} |`,
    `| \`pdfsig -no-ocsp\` | ${verify.pdfsig_median_ms ?? 'n/a'} | ${mbPerSecond(verify.pdfsig_median_ms)} |`,
    ``,
    `**Target (seal ≤ ${SEAL_TARGET_MS} ms, median): ${met(seal.seal_median_ms <= SEAL_TARGET_MS)}** — ${seal.seal_median_ms} ms.`,
    ``,
    `**Target (verify at ≥ ${VERIFY_TARGET_OF_OPENSSL * 100}% of openssl's hashing speed): ${met(ofOpenssl >= VERIFY_TARGET_OF_OPENSSL)}** — \`verifyPdf\` ${Math.round(ofOpenssl * 100)}%, with the file read ${Math.round((verify.openssl_median_ms / verify.read_verify_median_ms) * 100)}%, CLI ${Math.round(cliOfOpenssl * 100)}% (Node's start-up included).`,
    ``,
    ofPdfsig === null
      ? `**Target (faster than pdfsig): not measured (pdfsig missing)**`
      : `**Target (faster than pdfsig): ${met(ofPdfsig < 1)}** — \`verifyPdf\` takes ${Math.round(ofPdfsig * 100)}% of pdfsig's time; the CLI as a process takes ${Math.round((verify.cli_median_ms / (verify.pdfsig_median_ms ?? 1)) * 100)}% (Node's start-up alone is about 60 ms here).`,
  ].join('\n')
  process.stdout.write(`\n${body}\n`)
  if (output !== '-') writeSection(output, 'seal', body)
}

/** The hardening issue's targets: another org's read and the health check answered within 100 ms (p99) while big PDFs are sealed. */
const ISOLATION_TARGET_P99_MS = 100
/** The isolation suite reads at a steady rate, so latency shows how the event loop fares rather than how a saturated server queues. */
const ISOLATION_READS_PER_SECOND = 50

async function isolationSuite(): Promise<void> {
  const steady = (url: string, headers: Record<string, string>): LoadSpec => ({
    ...spec(url, 'GET', headers),
    connections: 4,
    overallRate: ISOLATION_READS_PER_SECOND,
  })
  const results: IsolationResult[] = await perBackend('isolation', async (backend) => {
    await waitForQuiet(quietWaitSeconds, DISTURBED_PCT)
    return measureIsolation(backend, logLevel, steady)
  })
  const loaded = results.flatMap((r) => r.cases.slice(1))
  const worst = Math.max(...loaded.map((c) => c.result.latencyMs.p99))
  const rows = results.flatMap((r) =>
    r.cases.map((c) => {
      const uploads =
        Object.entries(c.uploadStatuses)
          .map(([status, count]) => `${count}× ${status}`)
          .join(', ') || '—'
      return `| ${r.backend} | ${c.name} | ${c.result.totalRequests} | ${c.result.latencyMs.p50} | **${c.result.latencyMs.p99}** | ${c.result.latencyMs.max} | ${c.loopDelayMs.p99} / ${c.loopDelayMs.max} | ${c.result.non2xx} / ${c.result.errors} | ${uploads} | ${c.rssPeakMib} MiB |`
    }),
  )
  const memory = results.map((r) => {
    const single = r.cases[1]
    const growth = single ? single.rssPeakMib - r.rssIdleMib : undefined
    const perUpload =
      growth === undefined
        ? 'n/a'
        : growth > 0
          ? `adds ${(growth / UPLOAD_MB).toFixed(1)} MiB of RSS per MB of PDF at its peak`
          : `stays within the idle RSS (heap the process already holds absorbs it)`
    return `${r.backend}: idle ${r.rssIdleMib} MiB, peak ${Math.max(...r.cases.map((c) => c.rssPeakMib))} MiB with eight uploads in flight (pool of ${r.workers} worker(s), queue ${r.queue}); one upload at a time ${perUpload}`
  })
  const body = [
    `## Isolation: heavy PDFs against other tenants`,
    ``,
    `- Command: \`${commandLine()}\`${suites.length > 1 ? ' (this section alone: `BENCH_SUITES=isolation npm run bench`)' : ''}`,
    `- Date: ${new Date().toISOString()}`,
    machineLine(),
    `- The server as \`npm start\` builds it (default PDF pool, limits and rate limits out of reach) in the bench's process. One org uploads a ${UPLOAD_MB} MB PDF (one page showing one image of random pixels) to \`POST /api/v1/seals\` again and again from a separate process — one upload at a time, then eight at a time — while autocannon (another process) reads another org's document, or \`/healthz\`, at a steady ${ISOLATION_READS_PER_SECOND} requests/s over 4 connections for ${durationSeconds} s after ${warmupSeconds} s of warm-up. First the same read with nothing else running, for comparison. RSS of the server's process sampled every 25 ms; its event-loop delay from \`monitorEventLoopDelay\` (10 ms resolution): how late a timer ran, whether the event loop was busy or the thread waited for a CPU.`,
    ``,
    `| Backend | Case | Requests | p50 ms | p99 ms | max ms | event-loop delay p99 / max ms | non-2xx / errors | Uploads meanwhile | RSS peak |`,
    `|---|---|---:|---:|---:|---:|---:|---:|---|---:|`,
    ...rows,
    ``,
    ...memory.map((line) => `- ${line}.`),
    ``,
    `**Target (p99 ≤ ${ISOLATION_TARGET_P99_MS} ms for another org's read and for the health check while PDFs are sealed): ${worst <= ISOLATION_TARGET_P99_MS ? 'met' : 'NOT met'}** — worst p99 ${worst} ms.`,
  ].join('\n')
  process.stdout.write(`\n${body}\n`)
  if (output !== '-') writeSection(output, 'isolation', body)
}

async function dashboardSuite(): Promise<void> {
  const results: DashboardBenchResult[] = await perBackend('dashboard', async (backend) => {
    await waitForQuiet(quietWaitSeconds, DISTURBED_PCT)
    return measureDashboard(backend)
  })
  const js = results[0]?.initial_js_gzip_kb ?? Number.NaN
  const slowestList = Math.max(...results.map((r) => r.documents_list_median_ms))
  const rows = results.map(
    (r) =>
      `| ${r.backend} | ${r.initial_js_gzip_kb} KB (${r.initial_js_files} files) | **${r.documents_list_median_ms}** | ${r.empty_list_median_ms} | **${r.sign_in_median_ms}** | ${r.me_median_ms} |`,
  )
  const body = [
    `## Dashboard`,
    ``,
    `- Command: \`${commandLine()}\`${suites.length > 1 ? ' (this section alone: `BENCH_SUITES=dashboard npm run bench`)' : ''}`,
    `- Date: ${new Date().toISOString()}`,
    machineLine(),
    `- The built dashboard (\`packages/web/dist\`) served by the server as \`npm start\` builds it. Initial JavaScript: the module entry and module preloads \`index.html\` names, gzip level 9 (pdf.js and its worker load only on the template editor and are not counted). Documents list: Debian's Chromium (headless), a fresh browser context per load (no cache, the session cookie set), from navigation to \`/app/documents\` to the first row of the list (each with its recipients and progress), in the page's own clock (\`performance.now()\`); an org with ${'1,000'} documents, baseline the same page for an org with none (its empty state); median of 6 warm loads after one cold. Sign-in: \`POST /api/v1/auth/login\` (argon2id, m = 19 MiB, t = 2) 15 times in a row, baseline \`GET /api/v1/me\` with the session (the same session lookup without the password hash).`,
    ``,
    `| Backend | Initial JS (gzip) | Documents list, 1,000 docs, median ms | Empty list, median ms | Sign-in median ms | GET /me median ms |`,
    `|---|---:|---:|---:|---:|---:|`,
    ...rows,
    ``,
    `**Targets: initial JavaScript ≤ ${INITIAL_JS_BUDGET_KB} KB gzip — ${js <= INITIAL_JS_BUDGET_KB ? 'met' : 'NOT met'} (${js} KB); documents list with 1,000 documents ≤ ${DOCUMENTS_LIST_BUDGET_MS} ms — ${slowestList <= DOCUMENTS_LIST_BUDGET_MS ? 'met' : 'NOT met'} (slowest backend ${slowestList} ms).**`,
  ].join('\n')
  process.stdout.write(`\n${body}\n`)
  if (output !== '-') writeSection(output, 'dashboard', body)
}

async function accountsSuite(): Promise<void> {
  const results: AccountsBenchResult[] = await perBackend('accounts', async (backend) => {
    await waitForQuiet(quietWaitSeconds, DISTURBED_PCT)
    return measureAccounts(backend, logLevel, signInRuns)
  })
  const worstP99 = Math.max(...results.map((r) => r.flood.healthz_p99_ms))
  const rows = results.map(
    (r) =>
      `| ${r.backend} | ${r.sign_in_median_ms} | ${r.sign_in_totp_median_ms} | **${(r.sign_in_totp_median_ms / r.sign_in_median_ms).toFixed(2)}** | ${r.flood.accepted} / ${r.flood.busy} / ${r.flood.other} | ${r.flood.healthz_answers} | ${r.flood.healthz_p50_ms} | **${r.flood.healthz_p99_ms}** | ${r.flood.healthz_max_ms} |`,
  )
  const body = [
    `## Accounts: two-factor sign-in and a sign-up flood`,
    ``,
    `- Command: \`${commandLine()}\`${suites.length > 1 ? ' (this section alone: `BENCH_SUITES=accounts npm run bench`)' : ''}`,
    `- Date: ${new Date().toISOString()}`,
    machineLine(),
    `- The server as \`npm start\` builds it (rate limits out of reach) in the bench's process. Sign-in: ${signInRuns} accounts with a password only and ${signInRuns} with an authenticator app, each signing in once, interleaved; the password-only sign-in is \`POST /api/v1/auth/login\` (200), the two-factor one is that (202) then \`POST /api/v1/auth/second-factor/totp\` with the app's code (200), timed together on the client. Flood: ${FLOOD_SIGN_UPS} \`POST /api/v1/auth/signup\` sent at once by one child process while another polls \`/healthz\` (one request at a time, 20 ms apart), from the send until 3 s after the last answer (the accounts are made after the answers).`,
    ``,
    `| Backend | Sign-in median ms | With TOTP median ms | Ratio | Sign-ups 202 / 503 / other | /healthz answers | /healthz p50 ms | /healthz p99 ms | /healthz max ms |`,
    `|---|---:|---:|---:|---:|---:|---:|---:|---:|`,
    ...rows,
    ``,
    `**Target: /healthz p99 < ${FLOOD_HEALTHZ_P99_TARGET_MS} ms while ${FLOOD_SIGN_UPS} sign-ups arrive at once — ${worstP99 < FLOOD_HEALTHZ_P99_TARGET_MS ? 'met' : 'NOT met'}** (worst backend ${worstP99} ms).`,
  ].join('\n')
  process.stdout.write(`\n${body}\n`)
  if (output !== '-') writeSection(output, 'accounts', body)
}

async function main(): Promise<void> {
  const readVsOneQuery: Record<string, number> = {}
  const mcpVsRest: Record<string, number> = {}
  const oauthVsKey: Record<string, number> = {}
  const startedAt = new Date()
  const rows: Row[] = []
  const notes: string[] = []
  const facts: Record<string, string> = {}
  const bare = await startBare(logLevel)
  const bareUrl = bare.url + bare.path

  try {
    for (const name of backends) {
      let backend: Backend
      let drop = () => Promise.resolve()
      let label: string
      if (name === 'postgres') {
        let scratch: Awaited<ReturnType<typeof scratchPostgres>>
        try {
          scratch = await scratchPostgres(databaseUrl)
        } catch (error) {
          const message = `PostgreSQL section skipped: ${redactUrl(databaseUrl)} is unreachable (${(error as Error).message}).`
          log(message)
          notes.push(message)
          continue
        }
        facts.PostgreSQL = `${scratch.serverVersion} on ${new URL(databaseUrl).host}${scratch.scratch ? ' (scratch database, dropped afterwards)' : ''}`
        backend = { kind: 'postgres', databaseUrl: scratch.databaseUrl }
        drop = () => scratch.drop()
        label = 'PostgreSQL'
      } else {
        backend = { kind: 'pglite' }
        label = 'PGlite'
      }

      log(`${label}: starting Signet and seeding one org, template and document…`)
      const signet = await startSignet(backend, logLevel)
      postgresDatabase = signet.postgresDatabase
      try {
        const auth = { authorization: `Bearer ${signet.apiKey}` }
        // The baseline is measured before and after the app's cases; ratios use their mean,
        // and the two rows show how much the machine drifted meanwhile.
        const bareBefore = await runCase(`${label} / bare (before)`, spec(bareUrl, 'GET'))
        const oneQuery = await runCase(`${label} / one query`, spec(`${signet.url}${ONE_QUERY_PATH}${signet.documentId}`, 'GET'))
        const designs = {
          perRequest: await runCase(`${label} / counter per request`, spec(`${signet.url}${RATE_LIMIT_DESIGN_PATHS.perRequest}${signet.documentId}`, 'GET')),
          folded: await runCase(`${label} / counter folded`, spec(`${signet.url}${RATE_LIMIT_DESIGN_PATHS.folded}${signet.documentId}`, 'GET')),
          lease: await runCase(`${label} / counter leased`, spec(`${signet.url}${RATE_LIMIT_DESIGN_PATHS.lease}${signet.documentId}`, 'GET')),
        }
        const read = await runCase(`${label} / GET document`, spec(`${signet.url}/api/v1/documents/${signet.documentId}`, 'GET', auth))
        const mcpStatus = await runCase(
          `${label} / MCP get_document_status`,
          spec(`${signet.url}/api/mcp`, 'POST', { ...auth, ...MCP_HEADERS }, mcpStatusCall(signet.documentId)),
        )
        const mcpOAuth = await runCase(
          `${label} / MCP get_document_status (OAuth)`,
          spec(`${signet.url}/api/mcp`, 'POST', { authorization: `Bearer ${signet.oauthAccessToken}`, ...MCP_HEADERS }, mcpStatusCall(signet.documentId)),
        )
        const create = await runCase(
          `${label} / POST document`,
          spec(`${signet.url}/api/v1/documents`, 'POST', { ...auth, 'content-type': 'application/json' }, signet.createBody),
        )
        const bareAfter = await runCase(`${label} / bare (after)`, spec(bareUrl, 'GET'))
        const bareRps = (bareBefore.requestsPerSecond + bareAfter.requestsPerSecond) / 2
        const ratio = (r: CaseResult) => r.requestsPerSecond / bareRps
        readVsOneQuery[label] = read.requestsPerSecond / oneQuery.requestsPerSecond
        mcpVsRest[label] = mcpStatus.requestsPerSecond / read.requestsPerSecond
        oauthVsKey[label] = mcpOAuth.requestsPerSecond / mcpStatus.requestsPerSecond
        rows.push(
          { backend: label, name: 'GET /bare (Fastify baseline), before', result: bareBefore, ratio: undefined },
          { backend: label, name: "one prepared select of the document row (the read's floor)", result: oneQuery, ratio: ratio(oneQuery) },
          {
            backend: label,
            name: 'the same select + rate-limit counter upserted per request (2 round trips)',
            result: designs.perRequest,
            ratio: ratio(designs.perRequest),
          },
          { backend: label, name: 'the same select with the counter upsert folded in (1 statement)', result: designs.folded, ratio: ratio(designs.folded) },
          { backend: label, name: 'the same select + leased counter (consumeRateLimit)', result: designs.lease, ratio: ratio(designs.lease) },
          { backend: label, name: 'GET /api/v1/documents/{id}', result: read, ratio: ratio(read) },
          { backend: label, name: 'POST /api/mcp tools/call get_document_status (same document)', result: mcpStatus, ratio: ratio(mcpStatus) },
          { backend: label, name: 'the same MCP call with an OAuth access token', result: mcpOAuth, ratio: ratio(mcpOAuth) },
          { backend: label, name: 'POST /api/v1/documents', result: create, ratio: ratio(create) },
          { backend: label, name: 'GET /bare (Fastify baseline), after', result: bareAfter, ratio: undefined },
        )
        const drift = Math.abs(bareBefore.requestsPerSecond - bareAfter.requestsPerSecond) / bareRps
        if (drift > 0.15)
          notes.push(
            `${label}: the bare baseline moved by ${(drift * 100).toFixed(0)}% between before and after — the machine's capacity changed during the section; treat its ratios with care.`,
          )
      } finally {
        await signet.close()
        await drop()
      }
    }
  } finally {
    await bare.close()
  }

  const table = markdownTable(rows)
  const diagnosticRatios = Object.keys(readVsOneQuery)
    .map(
      (backend) =>
        `${backend}: read / one select ${fixed(readVsOneQuery[backend] ?? Number.NaN, 2)}, MCP / read ${fixed(mcpVsRest[backend] ?? Number.NaN, 2)}, OAuth / key ${fixed(oauthVsKey[backend] ?? Number.NaN, 2)}`,
    )
    .join('; ')
  const bad = rows.filter((r) => r.result.non2xx > 0 || r.result.errors > 0)
  if (disturbed.length > 0) {
    notes.push(
      `Other processes used more than ${DISTURBED_PCT}% of a core during: ${disturbed.join(', ')} — those rows understate what this machine can do; re-run on an idle machine.`,
    )
  }
  if (bad.length > 0)
    notes.push(`Some cases had non-2xx responses or errors: ${bad.map((r) => `${r.backend} ${r.name}`).join(', ')} — their numbers are not valid.`)

  const allFacts = machineFacts(facts)
  const body = [
    `## In-process diagnostic`,
    ``,
    `Not how a user runs the server (see "As \`npm start\` runs it" above for that, and for the targets): the app built by \`buildApp(createServices(...))\` inside the bench's own process, where the read's floor and the rate-limit designs can be mounted beside the real routes on the same database handle. Kept to compare those designs and to profile the app without process boundaries.`,
    ``,
    `- Command: \`${commandLine()}\``,
    `- Date: ${startedAt.toISOString()}`,
    `- Settings: ${warmupSeconds} s warm-up + ${durationSeconds} s measured per case, ${connections} connections, pipelining ${pipelining}, LOG_LEVEL=${logLevel}`,
    `- Machine: ${Object.entries(allFacts)
      .map(([k, v]) => `${k} ${v}`)
      .join('; ')}`,
    ``,
    table,
    ``,
    `Ratios in this process: ${diagnosticRatios || 'none measured'}.`,
    ...notes.map((n) => `\n> ${n}`),
    ``,
    `### Method`,
    ``,
    `- Everything runs on this one machine over loopback (127.0.0.1 only). The servers under test — the bare Fastify route and the Signet app (\`buildApp(createServices(...))\`, as \`npm start\` builds it) — run in the bench's own Node process, started with \`node --import tsx\` (TypeScript compiled at load, unlike \`npm start\`'s bundle).`,
    `- The load generator is autocannon ${allFacts.autocannon} in a **separate Node process** (\`bench/load-worker.ts\`, forked per case), so its event loop and GC never share a thread with the server. With ${allFacts.nproc} cores, the server, the load generator and (for the PostgreSQL rows) the PostgreSQL backends still compete for the same CPUs; the CPU column shows how much of one core each used during the measured window, from \`process.cpuUsage()\` and /proc (server = the whole bench process, which includes PGlite's WASM engine in the PGlite rows; postgres = the scratch database's backends plus the server's auxiliary processes; other = everything else on the machine; steal = time the hypervisor withheld). "server CPU µs/req" = the server's CPU time ÷ requests served. Before each case the bench waits (up to BENCH_QUIET_WAIT s) for other load to stop.`,
    `- Each case: ${warmupSeconds} s of the same load (discarded), then ${durationSeconds} s measured with ${connections} keep-alive connections, pipelining ${pipelining}. req/s is autocannon's per-second average; latencies are autocannon's whole-millisecond histogram.`,
    `- The bare baseline is \`GET /bare\` → \`{"hello":"world"}\` on Fastify ${allFacts.fastify} with the same logger configuration as the app. In each backend's section it is measured before and after the app's cases; "vs bare" divides by the mean of the two.`,
    `- Signet is seeded through \`executeAdminCommand\` (org + API key, one-page template) and one \`POST /api/v1/documents\`. \`GET /api/v1/documents/{id}\` reads that document with its bearer key. The MCP case sends the JSON-RPC \`tools/call\` of \`get_document_status\` for the same document to \`POST /api/mcp\` with the same key (the app's one MCP server and its JSON transport, as in production); its target compares it with the REST read. The OAuth case sends the same call with an access token obtained through the whole flow at seeding (dynamic registration, the consent endpoint with an owner's session, the PKCE code exchange); its target compares it with the API-key call. \`POST /api/v1/documents\` creates a single-signer document each request (same body every time), so the POST case also pays for the mail outbox insert and the outbox dispatcher claiming and "delivering" each invitation — through a no-op mailer; no SMTP.`,
    `- PGlite runs on disk in a temporary directory (as \`npm start\` uses \`DATA_DIR/pgdata\`). PostgreSQL runs in a scratch database created on the server named by DATABASE_URL and dropped afterwards; the app's pool is the default (\`max: 10\`).`,
    `- LOG_LEVEL=${logLevel}${logLevel === 'warn' ? ': per-request "incoming request"/"request completed" info lines are not written. Production defaults to info; see the analysis below for what that costs.' : '.'}`,
  ].join('\n')

  process.stdout.write(`\n${table}\n\nRatios in this process: ${diagnosticRatios}\n`)
  for (const note of notes) process.stdout.write(`\n${note}\n`)
  if (output !== '-') {
    writeSection(output, 'bench', body)
    log(`wrote ${output}`)
  }
}

if (suites.includes('as-run')) await asRunSuite()
if (suites.includes('http')) await main()
if (suites.includes('completion')) await completionSuite()
if (suites.includes('reminders')) await remindersSuite()
if (suites.includes('bulk')) await bulkSuite()
if (suites.includes('seal')) await sealSuite()
if (suites.includes('isolation')) await isolationSuite()
if (suites.includes('dashboard')) await dashboardSuite()
if (suites.includes('accounts')) await accountsSuite()
if (suites.includes('kit')) await kitSuite()
