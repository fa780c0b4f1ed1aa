import type { AddressInfo } from 'node:net'
import type { FastifyInstance } from 'fastify'
import type { DestinationStream } from 'pino'
import { buildApp } from '../../src/app.ts'
import type { Clock } from '../../src/adapters/clock.ts'
import { loadConfig, type Config } from '../../src/config.ts'
import { RATE_LIMITS } from '../../src/http/rate-limit.ts'
import { migratedPgliteImage, openDatabase, type Database } from '../../src/db/client.ts'
import { createLogger } from '../../src/lib/logger.ts'
import { createServices, type RunningServices } from '../../src/compose-services.ts'
import { executeAdminCommand } from '../../src/admin/commands.ts'
import type { Plan } from '../../src/db/schema.ts'
import type { MetadataFetcher } from '../../src/adapters/metadata-fetcher.ts'
import type { NamedTimestampAuthority } from '../../src/seal/tsa-chain.ts'
import { startMailCatcher, type MailCatcher } from './mail-catcher.ts'
import { makePdf } from './pdf.ts'
import { createScratchDatabase } from './postgres.ts'

/**
 * A real server on a loopback port over the real database: in-memory PGlite, or a
 * scratch database on the PostgreSQL named by DATABASE_URL (as .ci/run's second pass
 * does). Mail goes to a real SMTP listener.
 */
export interface TestServer {
  url: string
  app: FastifyInstance
  services: RunningServices
  config: Config
  mail: MailCatcher
  /** fetch relative to the server; JSON-encodes `json` and sets its Content-Type. */
  request(path: string, init?: RequestInit & { json?: unknown; key?: string }): Promise<Response>
  createOrg(plan?: Plan, name?: string): Promise<{ orgId: string; apiKey: string }>
  createTemplate(orgId: string, options?: { name?: string; pages?: number; fields?: unknown }): Promise<{ id: string; roles: number[] }>
  close(): Promise<void>
}

/**
 * Test servers count every request against its org's rate limits (the hook, its query and
 * its headers run as in production) but with limits no suite reaches, so that suites may
 * create many documents with one org. test/rate-limit.test.ts passes the real limits.
 */
export const UNREACHABLE_RATE_LIMITS = Object.values(RATE_LIMITS)
  .map((policy) => `${policy.name}=1000000`)
  .join(',')

let emptyDatabaseImage: Promise<Blob> | undefined
/**
 * A new in-memory database, empty and migrated, loaded from an image made once per worker process
 * (a worker runs file after file: vitest.config.ts `isolate: false`). PGlite's initdb was about a
 * second of every server a suite started (docs/benchmarks.md, CI time).
 */
export async function inMemoryDatabase(): Promise<{ inMemory: true; image: Blob }> {
  emptyDatabaseImage ??= migratedPgliteImage()
  return { inMemory: true, image: await emptyDatabaseImage }
}

export async function startTestServer(
  options: {
    clock?: Clock
    env?: NodeJS.ProcessEnv
    timestampAuthority?: NamedTimestampAuthority
    /** Serves OAuth client metadata documents (a URL client_id) instead of the internet. */
    fetchClientMetadata?: MetadataFetcher
    /** Where the server's log goes (with env LOG_LEVEL); by default nowhere (LOG_LEVEL silent). */
    logStream?: DestinationStream
    /**
     * Holds back the database's notifications (cache invalidations) this long, as a busy
     * network may: what this process changed itself must not wait for them.
     */
    notificationDelayMs?: number
  } = {},
): Promise<TestServer> {
  const mail = await startMailCatcher()
  const scratch = process.env.DATABASE_URL ? await createScratchDatabase(process.env.DATABASE_URL) : undefined
  const databaseUrl = scratch?.url
  const config = loadConfig({
    LOG_LEVEL: 'silent',
    SMTP_URL: mail.url,
    MAIL_POLL_MS: '200',
    PUBLIC_URL: 'http://signet.test',
    RATE_LIMITS: UNREACHABLE_RATE_LIMITS,
    ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
    ...options.env,
  })
  const database = delayNotifications(await openDatabase(databaseUrl ? { databaseUrl } : await inMemoryDatabase()), options.notificationDelayMs)
  const { clock, timestampAuthority, fetchClientMetadata } = options
  const services = await createServices(config, database, createLogger(config, options.logStream), { clock, timestampAuthority, fetchClientMetadata })
  const app = await buildApp(services)
  await app.listen({ port: 0, host: '127.0.0.1' })
  const url = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`

  const request: TestServer['request'] = (path, init = {}) => {
    const { json, key, ...rest } = init
    const headers = new Headers(rest.headers)
    if (key) headers.set('authorization', `Bearer ${key}`)
    if (json !== undefined) headers.set('content-type', 'application/json')
    return fetch(url + path, { ...rest, headers, ...(json !== undefined ? { body: JSON.stringify(json) } : {}) })
  }

  return {
    url,
    app,
    services,
    config,
    mail,
    request,
    async createOrg(plan = 'free', name = 'Test Org') {
      const result = (await executeAdminCommand(services, { name: 'org.create', orgName: name, plan })) as { org_id: string; api_key: string }
      return { orgId: result.org_id, apiKey: result.api_key }
    },
    async createTemplate(orgId, { name = 'Test Agreement', pages = 1, fields } = {}) {
      const pdf = await makePdf(pages)
      return (await executeAdminCommand(services, {
        name: 'template.create',
        orgId,
        templateName: name,
        pdfBase64: Buffer.from(pdf).toString('base64'),
        ...(fields !== undefined ? { fields } : {}),
      })) as { id: string; roles: number[] }
    },
    async close() {
      // Fastify 5.12 closes only the connections idle when close() begins (fastify#7044; server.ts asks busy
      // ones to close): a client holding a kept-alive connection whose request was still running would hold
      // app.close() for as long as the server's keep-alive hint (72 s). Close each as soon as it is idle.
      const sweep = setInterval(() => app.server.closeIdleConnections(), 50)
      // A client that abandoned an event stream without closing its connection (undici's fetch, aborted
      // mid-body, keeps the socket) leaves it busy until the keep-alive hint ends: cut what is left after 2 s.
      const cut = setTimeout(() => app.server.closeAllConnections(), 2_000)
      try {
        await app.close()
      } finally {
        clearInterval(sweep)
        clearTimeout(cut)
      }
      await services.close()
      await mail.close()
      await scratch?.drop()
    },
  }
}

function delayNotifications(database: Database, delayMs: number | undefined): Database {
  if (!delayMs) return database
  return {
    ...database,
    subscribe: (channel, onMessage, onLive) => database.subscribe(channel, (payload) => void setTimeout(() => onMessage(payload), delayMs).unref(), onLive),
  }
}
