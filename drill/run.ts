/**
 * `npm run drill`: three Signet servers behind HAProxy on one scratch PostgreSQL, mixed load
 * through the balancer, and faults during it (a rolling restart, a `kill -9`, a PostgreSQL
 * restart); then checks from the database, the mail and webhook receivers and HAProxy's log,
 * printed as a table. Exits 1 on any failed check.
 *
 *   node --import tsx drill/run.ts [--short] [--duration <s>] [--pgbouncer] [--s3] [--keep]
 *
 *   --short      CI: 45 s of load, few recipients (≤ 5 min in all)
 *   --duration   seconds of load (default 180; the faults are spread over it)
 *   --s3         the nodes keep their files in an S3-speaking server the drill starts (s3rver, BLOB_STORE=s3)
 *   --pgbouncer  the nodes reach PostgreSQL through PgBouncer in transaction mode
 *                (DATABASE_POOL_MODE=transaction, DATABASE_DIRECT_URL past it)
 *   --keep       keep the work directory (logs of the nodes, HAProxy, PostgreSQL) for a post-mortem
 */
import { spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { cleanUpProcesses, freePort, REPO_ROOT } from '../packages/server/test/helpers/processes.ts'
import { UNREACHABLE_RATE_LIMITS } from '../packages/server/test/helpers/test-server.ts'
import {
  newInstanceKey,
  Nodes,
  sleep,
  startHaproxy,
  startPgBouncer,
  startPostgres,
  type Balancer,
  type PgBouncer,
  type Postgres,
  type UnexpectedExit,
} from './cluster.ts'
import { documentChecks, faultChecks, mailChecks, printTable, readHaproxyLog, settle, signedPdfChecks, webhookChecks, type Row } from './checks.ts'
import { killAndRestart, restartPostgres, rollingRestart, type FaultWindow } from './faults.ts'
import { Load } from './load.ts'
import { rateLimitProbe, revokedKeyProbe, USAGE_LIMIT } from './probes.ts'
import { startMailReceiver, startWebhookReceiver, type MailReceiver, type WebhookReceiver } from './receivers.ts'
import { Recorder } from './recorder.ts'
import { startLocalS3, type LocalS3 } from '../packages/server/test/helpers/local-s3.ts'
import { seed } from './seed.ts'

const { values: options } = parseArgs({
  options: {
    short: { type: 'boolean', default: false },
    duration: { type: 'string' },
    pgbouncer: { type: 'boolean', default: false },
    s3: { type: 'boolean', default: false },
    keep: { type: 'boolean', default: false },
  },
})
const durationSeconds = Number(options.duration ?? (options.short ? 45 : 180))
if (!Number.isInteger(durationSeconds) || durationSeconds < 20) throw new Error(`--duration must be a whole number of seconds ≥ 20 (got ${options.duration})`)
const bulkRecipients = options.short ? 20 : 100
/**
 * Longer than the leases a killed node may hold (mail and final-PDF work: 2 minutes each), counted
 * from the end of the load, which comes after the kill: what it claimed is done by another node.
 */
const SETTLE_MS = 150_000

const started = Date.now()
const elapsed = () => `${((Date.now() - started) / 1000).toFixed(1)} s`
const say = (text: string) => process.stdout.write(`[drill ${elapsed()}] ${text}\n`)

const workDir = mkdtempSync(join(tmpdir(), 'signet-drill-'))
let postgres: Postgres | undefined
let pgBouncer: PgBouncer | undefined
let bucket: LocalS3 | undefined
let balancer: Balancer | undefined
let nodes: Nodes | undefined
let mail: MailReceiver | undefined
let webhooks: WebhookReceiver | undefined

async function tearDown(): Promise<void> {
  await balancer?.stop().catch(() => undefined)
  await nodes?.stopAll().catch(() => undefined)
  await pgBouncer?.stop().catch(() => undefined)
  await bucket?.close().catch(() => undefined)
  try {
    postgres?.stop()
  } catch (error) {
    process.stderr.write(`drill: stopping PostgreSQL: ${(error as Error).message}\n`)
  }
  await mail?.close().catch(() => undefined)
  await webhooks?.close().catch(() => undefined)
  await cleanUpProcesses()
  if (options.keep) say(`work directory kept: ${workDir}`)
  else rmSync(workDir, { recursive: true, force: true })
}

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    say(`${signal}: stopping everything`)
    void tearDown().finally(() => process.exit(130))
  })
}
process.once('uncaughtException', (error) => {
  process.stderr.write(`drill: ${error.stack ?? String(error)}\n`)
  void tearDown().finally(() => process.exit(1))
})

/** A probe that could not run is a failed check, not the end of the drill. */
async function probe(name: string, run: () => Promise<Row>): Promise<Row> {
  try {
    return await run()
  } catch (error) {
    return { check: name, expected: 'runs', actual: (error as Error).message.slice(0, 120), pass: false }
  }
}

function unexpectedExitsRow(exits: UnexpectedExit[]): Row {
  const seconds = (at: number) => ((at - started) / 1000).toFixed(1)
  return {
    check: 'nodes that exited without being asked (see nodes.log)',
    expected: '0',
    actual: exits.length === 0 ? '0' : exits.map((e) => `${e.node} ${e.how} at ${seconds(e.at)} s`).join(', '),
    pass: exits.length === 0,
  }
}

async function drill(): Promise<Row[]> {
  const build = spawnSync(process.execPath, ['scripts/ensure-deps.mjs'], { cwd: REPO_ROOT, stdio: 'inherit' })
  if (build.status !== 0) throw new Error('node scripts/ensure-deps.mjs failed')
  postgres = await startPostgres(workDir)
  say(`PostgreSQL 15 on port ${postgres.port}`)
  if (options.pgbouncer) {
    pgBouncer = await startPgBouncer(workDir, postgres)
    say(`PgBouncer (transaction pooling) at ${pgBouncer.url}`)
  }
  if (options.s3) {
    bucket = await startLocalS3()
    say(`files in bucket ${bucket.bucket} of s3rver at ${bucket.pathStyle.endpoint ?? ''}`)
  }
  ;[mail, webhooks] = await Promise.all([startMailReceiver(), startWebhookReceiver()])
  const seeded = await seed(workDir, postgres.url, webhooks.url)
  const balancerPort = await freePort()
  const balancerUrl = `http://127.0.0.1:${balancerPort}`
  const instanceKey = newInstanceKey()
  const dataEnv: Record<string, string> = {
    ...(pgBouncer ? { DATABASE_URL: pgBouncer.url, DATABASE_POOL_MODE: 'transaction', DATABASE_DIRECT_URL: postgres.url } : { DATABASE_URL: postgres.url }),
    ...bucket?.env,
  }
  const smtpUrl = mail.url
  nodes = new Nodes(
    await Promise.all([freePort(), freePort(), freePort()]),
    (node) => ({
      ...dataEnv,
      // Shared by every node: the balancer's URL (links in mail, OAuth audience, passkeys) and the instance key.
      PUBLIC_URL: balancerUrl,
      IDENTITY_DOCUMENT_KEY: instanceKey,
      // Each node its own DATA_DIR: nothing may depend on a disk the others do not see.
      DATA_DIR: join(workDir, node.name),
      SMTP_URL: smtpUrl,
      MAIL_POLL_MS: '500',
      JOB_POLL_MS: '1000',
      WEBHOOK_ALLOW_PRIVATE: 'true',
      TRUST_PROXY: '127.0.0.1',
      RATE_LIMITS: UNREACHABLE_RATE_LIMITS.replace(/usage=\d+/, `usage=${USAGE_LIMIT}`),
      LOG_LEVEL: 'warn',
      // On SIGTERM, /healthz fails for longer than HAProxy takes to mark a node down (fall 3 × inter 1s) while requests are still served.
      SHUTDOWN_GRACE_MS: '4000',
    }),
    join(workDir, 'nodes.log'),
  )
  const cluster = nodes
  const [first, ...others] = cluster.list
  if (!first) throw new Error('no nodes')
  // The first node migrates the empty database alone; the others then start side by side.
  await cluster.start(first)
  await Promise.all(others.map((node) => cluster.start(node)))
  balancer = await startHaproxy(workDir, balancerPort, nodes.list)
  say(`3 nodes (${nodes.list.map((n) => n.port).join(', ')}) behind HAProxy at ${balancer.url}`)

  const recorder = new Recorder()
  const load = new Load({ balancer: balancer.url, seeded, mail, recorder, bulkRecipients, signers: options.short ? 2 : 3 })
  const loadFrom = Date.now()
  load.start()
  const faults: FaultWindow[] = []
  const pause = (fraction: number) => sleep(durationSeconds * 1000 * fraction)
  await pause(0.15)
  // The kill comes first: the work the victim had claimed waits out its lease (2 minutes) before
  // another node redoes it, and that wait, counted from the kill, is most of what comes after the load.
  const victim = nodes.list[1] ?? first
  say(`kill -9 ${victim.name} during bulk-sends and finishes, then start it again`)
  faults.push(await killAndRestart(nodes, victim, load))
  await pause(0.1)
  say('rolling restart (SIGTERM, drain, start) of n1, n2, n3')
  faults.push(await rollingRestart(nodes))
  await pause(0.1)
  say('PostgreSQL restart (pg_ctl restart -m fast)')
  const pgRestart = await restartPostgres(postgres, nodes)
  faults.push(pgRestart)
  say(`after PostgreSQL came back: running nodes healthy in ${pgRestart.recoveredMs} ms; died and started again: ${pgRestart.died.join(', ') || 'none'}`)
  await sleep(Math.max(5000, loadFrom + durationSeconds * 1000 - Date.now()))
  say('stopping the load')
  await load.stop()
  const loadTo = Date.now()
  const settledMs = await settle(postgres.url, seeded.orgId, SETTLE_MS, say)
  say(`queues settled in ${settledMs} ms; ${recorder.outcomes.length} requests made`)

  const nodeUrls = nodes.list.map((n) => `http://127.0.0.1:${n.port}`)
  const rows: Row[] = [
    ...(await documentChecks(postgres.url, seeded.orgId, load.state, faults)),
    ...(await signedPdfChecks(postgres.url, seeded.orgId, balancer.url, load.state, workDir, options.short ? 10 : 40)),
    ...(await webhookChecks(postgres.url, seeded.orgId, webhooks)),
    ...(await mailChecks(postgres.url, seeded.orgId, mail)),
    await probe('rate limit', () => rateLimitProbe(balancer?.url ?? '', seeded.apiKey)),
    await probe('revoked key', () => revokedKeyProbe(balancer?.url ?? '', nodeUrls, seeded)),
    unexpectedExitsRow(nodes.unexpectedExits),
    { check: 'SMTP sessions dropped by a sender (a killed node mid-delivery)', expected: 'info', actual: String(mail.droppedSessions), pass: true },
    ...faultChecks(faults, recorder, readHaproxyLog(balancer.logFile), { from: loadFrom, to: loadTo }),
  ]
  const byKind = new Map<string, number>()
  for (const outcome of recorder.outcomes) byKind.set(outcome.kind, (byKind.get(outcome.kind) ?? 0) + 1)
  say(`requests by kind: ${[...byKind].map(([kind, n]) => `${kind} ${n}`).join(', ')}`)
  return rows
}

let failed = true
try {
  const rows = await drill()
  process.stdout.write(`\n${printTable(rows)}\n\n`)
  failed = rows.some((r) => !r.pass)
  say(failed ? 'FAILED' : 'passed')
} catch (error) {
  process.stderr.write(`drill: ${(error as Error).stack ?? String(error)}\n`)
} finally {
  await tearDown()
}
process.exit(failed ? 1 : 0)
