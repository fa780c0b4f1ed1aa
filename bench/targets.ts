/**
 * The servers under test, all in this process and all on 127.0.0.1: the bare Fastify
 * baseline and the Signet app over PGlite or PostgreSQL, seeded with one org, template
 * and document. Mail goes to a no-op mailer (the outbox rows are still written and the
 * dispatcher still claims them, as in production; nothing leaves the machine).
 */
import { randomUUID } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Fastify, { type FastifyInstance, type FastifyRequest } from 'fastify'
import pg from 'pg'
import { eq, sql } from 'drizzle-orm'
import { documents, rateLimitCounters } from '../packages/server/src/db/schema.ts'
import { consumeRateLimit } from '../packages/server/src/rate-limits/consume-rate-limit.ts'
import { destination } from 'pino'
import type { Mailer } from '../packages/server/src/adapters/mailer.ts'
import { executeAdminCommand } from '../packages/server/src/admin/commands.ts'
import { buildApp } from '../packages/server/src/app.ts'
import { loadConfig, type Config } from '../packages/server/src/config.ts'
import { openDatabase, type Database } from '../packages/server/src/db/client.ts'
import { createLogger, type Logger } from '../packages/server/src/lib/logger.ts'
import { createServices, type RunningServices } from '../packages/server/src/compose-services.ts'
import { createScratchDatabase } from '../packages/server/test/helpers/postgres.ts'
import { UNREACHABLE_RATE_LIMITS } from '../packages/server/test/helpers/test-server.ts'
import { makePdf } from '../packages/server/test/helpers/pdf.ts'
import { CookieJar, oauthHarness, obtainTokens } from '../packages/server/test/helpers/oauth.ts'
import { createSignedInUser } from '../packages/server/test/helpers/session.ts'
import { SESSION_COOKIE } from '../packages/server/src/accounts/sessions.ts'

export const HOST = '127.0.0.1'

export type LogLevel = Config['logLevel']

/**
 * The app's logger (createLogger: level + redaction), but with a chosen
 * destination: stderr at warn and above, /dev/null below (so an info-level run pays for
 * serialising and writing every request line without flooding the terminal).
 */
export function benchLogger(level: LogLevel, to?: string | number): Logger {
  const verbose = level === 'info' || level === 'debug' || level === 'trace'
  const dest = to ?? (process.env.BENCH_LOG_FILE || (verbose ? '/dev/null' : 2))
  return createLogger({ logLevel: level }, destination({ dest, sync: true }))
}

export const noopMailer: Mailer = { transport: 'log', send: () => Promise.resolve(), close: () => undefined }

async function listen(app: FastifyInstance): Promise<string> {
  await app.listen({ port: 0, host: HOST })
  return `http://${HOST}:${(app.server.address() as AddressInfo).port}`
}

export interface Target {
  url: string
  close(): Promise<void>
}

/** The baseline: Fastify 5 with the app's logger, one GET route returning a small JSON object. */
export async function startBare(level: LogLevel): Promise<Target & { path: string }> {
  const app = Fastify({ loggerInstance: benchLogger(level) })
  app.get('/bare', () => ({ hello: 'world' }))
  const url = await listen(app)
  return { url, path: '/bare', close: () => app.close() }
}

export type Backend = { kind: 'pglite' } | { kind: 'postgres'; databaseUrl: string }

export interface SignetTarget extends Target {
  kind: Database['kind']
  /** The PostgreSQL database name (for per-database CPU accounting); undefined on PGlite. */
  postgresDatabase: string | undefined
  app: FastifyInstance
  services: RunningServices
  apiKey: string
  /** An OAuth access token of the same org (read and write), obtained through the whole flow: registration, consent, code exchange. */
  oauthAccessToken: string
  templateId: string
  documentId: string
  /** The body of a single-signer create (POST /api/v1/documents). */
  createBody: string
}

/** Where the one-query baseline answers: the document row by id, nothing else. */
export const ONE_QUERY_PATH = '/bench/one-query/'

/**
 * The same row read with a per-request counter for each rate-limit design the hardening
 * issue weighed (the counter key is the bench's own, its limit out of reach):
 * `per-request` upserts the counter and then selects (two round trips, the design before the
 * lease), `folded` does both in one statement (a data-modifying CTE: one round trip, still one
 * row write per request), `lease` asks `consumeRateLimit` (a row write per leased chunk).
 */
export const RATE_LIMIT_DESIGN_PATHS = {
  perRequest: '/bench/counted/per-request/',
  folded: '/bench/counted/folded/',
  lease: '/bench/counted/lease/',
} as const

const BENCH_COUNTER_LIMIT = 1_000_000_000
const BENCH_POLICY = { name: 'bench-design', perHour: BENCH_COUNTER_LIMIT }

function benchWindowStart(): Date {
  const hour = 3_600_000
  return new Date(Math.floor(Date.now() / hour) * hour)
}

/** The document fields the baselines answer with. */
function documentJson(row: { id: string; title: string; status: string; createdAt: Date; updatedAt: Date; expiresAt: Date | null } | undefined) {
  return { id: row?.id, title: row?.title, status: row?.status, created_at: row?.createdAt, updated_at: row?.updatedAt, expires_at: row?.expiresAt }
}

/**
 * The read's own floor and the rate-limit designs, mounted on the Signet app by the bench
 * only: one prepared select of the same document row (no auth, no signers), answered as JSON.
 */
function addBaselineRoutes(app: FastifyInstance, services: RunningServices): void {
  const { db } = services
  const byId = db
    .select()
    .from(documents)
    .where(eq(documents.id, sql.placeholder('id')))
    .prepare('bench_one_query')
  const counterKey = `${BENCH_POLICY.name}:${randomUUID()}`
  const bump = db
    .insert(rateLimitCounters)
    .values({ key: sql.placeholder('key'), windowStart: sql.placeholder('windowStart'), count: 1 })
    .onConflictDoUpdate({
      target: [rateLimitCounters.key, rateLimitCounters.windowStart],
      set: { count: sql`${rateLimitCounters.count} + 1` },
      setWhere: sql`${rateLimitCounters.count} < ${sql.placeholder('limit')}::integer`,
    })
    .returning({ count: rateLimitCounters.count })
    .prepare('bench_counter_bump')
  const counted = db.$with('counted', { count: sql<number>`count`.as('count') }).as(
    sql`insert into ${rateLimitCounters} (key, window_start, count) values (${sql.placeholder('key')}, ${sql.placeholder('windowStart')}, 1)
        on conflict (key, window_start) do update set count = ${rateLimitCounters}.count + 1
        where ${rateLimitCounters}.count < ${sql.placeholder('limit')}::integer returning count`,
  )
  const foldedById = db
    .with(counted)
    .select({ document: documents, count: counted.count })
    .from(documents)
    .leftJoin(counted, sql`true`)
    .where(eq(documents.id, sql.placeholder('id')))
    .prepare('bench_folded')
  const idOf = (request: FastifyRequest) => (request.params as { id: string }).id

  app.get(`${ONE_QUERY_PATH}:id`, { schema: { hide: true } }, async (request) => {
    const [row] = await byId.execute({ id: idOf(request) })
    return documentJson(row)
  })
  app.get(`${RATE_LIMIT_DESIGN_PATHS.perRequest}:id`, { schema: { hide: true } }, async (request) => {
    await bump.execute({ key: counterKey, windowStart: benchWindowStart(), limit: BENCH_COUNTER_LIMIT })
    const [row] = await byId.execute({ id: idOf(request) })
    return documentJson(row)
  })
  app.get(`${RATE_LIMIT_DESIGN_PATHS.folded}:id`, { schema: { hide: true } }, async (request) => {
    const [row] = await foldedById.execute({ id: idOf(request), key: counterKey, windowStart: benchWindowStart(), limit: BENCH_COUNTER_LIMIT })
    return documentJson(row?.document)
  })
  app.get(`${RATE_LIMIT_DESIGN_PATHS.lease}:id`, { schema: { hide: true } }, async (request) => {
    await consumeRateLimit(services, BENCH_POLICY, 'lease')
    const [row] = await byId.execute({ id: idOf(request) })
    return documentJson(row)
  })
}

export async function startSignet(backend: Backend, level: LogLevel): Promise<SignetTarget> {
  let cleanup = (): void => undefined
  let database: Database
  if (backend.kind === 'postgres') {
    database = await openDatabase({ databaseUrl: backend.databaseUrl })
  } else {
    // On disk, as `npm start` runs it (DATA_DIR/pgdata), in a throwaway directory.
    const dir = mkdtempSync(join(tmpdir(), 'signet-bench-'))
    cleanup = () => rmSync(dir, { recursive: true, force: true })
    database = await openDatabase({ pgliteDir: join(dir, 'pgdata') })
  }
  const config = loadConfig({
    LOG_LEVEL: level,
    PUBLIC_URL: 'http://signet.bench',
    // Limits out of reach, but the per-request counter still runs: its cost is part of what is measured.
    RATE_LIMITS: UNREACHABLE_RATE_LIMITS,
    ...(backend.kind === 'postgres' ? { DATABASE_URL: backend.databaseUrl } : {}),
  })
  const services = await createServices(config, database, benchLogger(level), { mailer: noopMailer })
  const app = await buildApp(services)
  addBaselineRoutes(app, services)
  const url = await listen(app)

  const org = (await executeAdminCommand(services, { name: 'org.create', orgName: 'Bench Org', plan: 'business' })) as {
    org_id: string
    api_key: string
  }
  const template = (await executeAdminCommand(services, {
    name: 'template.create',
    orgId: org.org_id,
    templateName: 'Bench Agreement',
    pdfBase64: Buffer.from(await makePdf(1)).toString('base64'),
  })) as { id: string }
  const createBody = JSON.stringify({ template_id: template.id, signer: { email: 'signer@example.com', name: 'Bench Signer' } })

  const headers = { authorization: `Bearer ${org.api_key}`, 'content-type': 'application/json' }
  const created = await fetch(`${url}/api/v1/documents`, { method: 'POST', headers, body: createBody })
  if (created.status !== 201) throw new Error(`seeding POST /api/v1/documents: ${created.status} ${await created.text()}`)
  const { id: documentId } = (await created.json()) as { id: string }
  const read = await fetch(`${url}/api/v1/documents/${documentId}`, { headers })
  if (read.status !== 200) throw new Error(`seeding GET /api/v1/documents/{id}: ${read.status} ${await read.text()}`)
  await read.arrayBuffer()
  const owner = await createSignedInUser(services, { orgId: org.org_id, role: 'owner' })
  const oauth = await obtainTokens(oauthHarness(url, config.publicUrl), new CookieJar({ [SESSION_COOKIE]: owner.cookie }), {
    allow: true,
    workspace_id: org.org_id,
    scopes: ['read', 'write'],
  })

  return {
    url,
    kind: database.kind,
    postgresDatabase: backend.kind === 'postgres' ? decodeURIComponent(new URL(backend.databaseUrl).pathname.slice(1)) : undefined,
    app,
    services,
    apiKey: org.api_key,
    oauthAccessToken: oauth.access_token,
    templateId: template.id,
    documentId,
    createBody,
    async close() {
      // autocannon hangs up with requests still in their handlers; once the socket is gone
      // app.close() no longer waits for them, and ending the pool under them logs 500s.
      await new Promise((resolve) => setTimeout(resolve, 2000))
      await app.close()
      await services.close()
      cleanup()
    },
  }
}

/**
 * A scratch database on the PostgreSQL server named by `url` (the tests' helper), so the
 * bench neither reads nor leaves rows in the database the tests use.
 */
export async function scratchPostgres(url: string): Promise<{ databaseUrl: string; scratch: boolean; serverVersion: string; drop(): Promise<void> }> {
  const admin = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3000 })
  await admin.connect() // throws when unreachable: the caller skips the PostgreSQL section
  let serverVersion: string
  try {
    const { rows } = await admin.query<{ server_version: string }>('SHOW server_version')
    serverVersion = rows[0]?.server_version ?? 'unknown'
  } finally {
    await admin.end()
  }
  const scratch = await createScratchDatabase(url)
  return { databaseUrl: scratch.url, scratch: true, serverVersion, drop: () => scratch.drop() }
}

/** The URL without its password, for printing. */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url)
    if (parsed.password) parsed.password = '***'
    return parsed.toString()
  } catch {
    return '(unparseable URL)'
  }
}
