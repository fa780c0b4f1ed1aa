import { spawn, type ChildProcess } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { chmodSync, existsSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { loadConfig } from '../src/config.ts'
import { bodyOf, uniqueEmail } from './helpers/api.ts'
import { createScratchDatabase } from './helpers/postgres.ts'
import {
  cleanUpProcesses,
  freePort,
  makeTempDir,
  runCliJson,
  startServer,
  STARTUP_TIMEOUT_MS,
  usingPostgres,
  writePdf,
  type CreatedOrg,
  type CreatedTemplate,
  type ServerProcess,
} from './helpers/processes.ts'
import { tokenFromMail } from './helpers/signing.ts'
import { startWebhookReceiver, type WebhookReceiver } from './helpers/webhook-receiver.ts'

/**
 * The server behind Debian's PgBouncer 1.18 in transaction pooling, which hands each transaction
 * to whichever server connection is free and knows nothing of named prepared statements:
 * DATABASE_POOL_MODE=transaction sends them unnamed, and migrations and LISTEN go to
 * DATABASE_DIRECT_URL. With session mode over the same pooler, the named statements break.
 */
const PGBOUNCER = process.env.PGBOUNCER_PATH ?? '/usr/sbin/pgbouncer'
const havePgbouncer = existsSync(PGBOUNCER)
// Only the PostgreSQL pass runs these tests.
if (!havePgbouncer && usingPostgres) {
  const message = `missing pgbouncer at ${PGBOUNCER} (Debian: apt-get install -y pgbouncer)`
  if (process.env.SIGNET_REQUIRE_TOOLS === '1') throw new Error(`SIGNET_REQUIRE_TOOLS=1 but ${message}`)
  console.warn(`skipping tests that need external tools: ${message}`)
}
/** The names lib/prepared.ts's hot queries prepare under (grep `.prepare(` in src). */
const NAMED_STATEMENTS =
  /^(document_in_org|document_status_in_org|active_api_key_by_hash|user_session_by_hash|signer_by_token_hash|live_oauth_access_token|rate_limit_lease)$/
/** Fewer server connections than the Signet pool's 10, so a client's statements land on several. */
const SERVER_CONNECTIONS = 3

let bouncer: ChildProcess | undefined
let bouncerLog = ''
let scratch: Awaited<ReturnType<typeof createScratchDatabase>> | undefined
let receiver: WebhookReceiver | undefined
let env: NodeJS.ProcessEnv = {}

/** Starts pgbouncer (as postgres: it refuses root) in front of `directUrl`'s database; resolves once it accepts connections. */
async function startPgbouncer(directUrl: string): Promise<string> {
  const dir = makeTempDir('pgbouncer')
  chmodSync(dir, 0o777)
  const database = new URL(directUrl)
  const port = await freePort()
  writeFileSync(join(dir, 'users.txt'), `"${database.username}" ""\n`)
  writeFileSync(
    join(dir, 'pgbouncer.ini'),
    [
      '[databases]',
      `* = host=${database.hostname} port=${database.port || 5432}`,
      '[pgbouncer]',
      'listen_addr = 127.0.0.1',
      `listen_port = ${port}`,
      'unix_socket_dir =',
      'auth_type = trust',
      `auth_file = ${join(dir, 'users.txt')}`,
      'pool_mode = transaction',
      `default_pool_size = ${SERVER_CONNECTIONS}`,
      'max_client_conn = 200',
      'ignore_startup_parameters = extra_float_digits,options',
      '',
    ].join('\n'),
  )
  const asRoot = process.getuid?.() === 0
  bouncer = spawn(asRoot ? 'runuser' : PGBOUNCER, [...(asRoot ? ['-u', 'postgres', '--', PGBOUNCER] : []), join(dir, 'pgbouncer.ini')], {
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  bouncer.stdout?.setEncoding('utf8').on('data', (chunk: string) => (bouncerLog += chunk))
  bouncer.stderr?.setEncoding('utf8').on('data', (chunk: string) => (bouncerLog += chunk))
  const deadline = Date.now() + 10_000
  while (!bouncerLog.includes('process up')) {
    if (bouncer.exitCode !== null || Date.now() > deadline) throw new Error(`pgbouncer did not start:\n${bouncerLog}`)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  database.port = String(port)
  return database.toString()
}

beforeAll(async () => {
  if (!usingPostgres || !havePgbouncer) return
  scratch = await createScratchDatabase(process.env.DATABASE_URL ?? '')
  env = {
    DATABASE_URL: await startPgbouncer(scratch.url),
    DATABASE_DIRECT_URL: scratch.url,
    DATABASE_POOL_MODE: 'transaction',
    IDENTITY_DOCUMENT_KEY: randomBytes(32).toString('base64'),
    // Both servers in turn are nodes of one cluster (operator/cluster-nodes.ts): one PUBLIC_URL.
    PUBLIC_URL: 'https://pooled.example',
    WEBHOOK_ALLOW_PRIVATE: 'true',
    JOB_POLL_MS: '200',
  }
  receiver = await startWebhookReceiver()
}, STARTUP_TIMEOUT_MS)

afterAll(async () => {
  await cleanUpProcesses()
  await receiver?.close()
  if (bouncer && bouncer.exitCode === null) {
    const exited = new Promise((resolve) => bouncer?.once('exit', resolve))
    bouncer.kill('SIGTERM')
    await exited
  }
  await scratch?.drop()
})

/** `count` reads of one document, `parallel` at a time: their statuses. */
async function readMany(server: ServerProcess, apiKey: string, documentId: string, count: number, parallel: number): Promise<number[]> {
  const statuses: number[] = []
  for (let done = 0; done < count; done += parallel) {
    const batch = await Promise.all(
      Array.from({ length: Math.min(parallel, count - done) }, async () => {
        const response = await server.request(`/api/v1/documents/${documentId}`, { key: apiKey })
        await response.body?.cancel()
        return response.status
      }),
    )
    statuses.push(...batch)
  }
  return statuses
}

test('DATABASE_POOL_MODE is session or transaction; transaction needs DATABASE_DIRECT_URL', () => {
  const pooler = 'postgres://postgres@127.0.0.1:6432/signet'
  expect(loadConfig({ DATABASE_URL: pooler }).databasePool).toEqual({ mode: 'session', directUrl: undefined })
  expect(() => loadConfig({ DATABASE_URL: pooler, DATABASE_POOL_MODE: 'transaction' })).toThrow(
    'DATABASE_DIRECT_URL must be set with DATABASE_POOL_MODE=transaction: a connection straight to PostgreSQL for migrations and LISTEN',
  )
  expect(() => loadConfig({ DATABASE_URL: pooler, DATABASE_POOL_MODE: 'statement' })).toThrow(
    'DATABASE_POOL_MODE must be one of session, transaction (got "statement")',
  )
  expect(() => loadConfig({ DATABASE_POOL_MODE: 'transaction', DATABASE_DIRECT_URL: pooler })).toThrow('DATABASE_POOL_MODE=transaction needs DATABASE_URL')
  expect(() => loadConfig({ DATABASE_URL: pooler, DATABASE_DIRECT_URL: 'http://x' })).toThrow('DATABASE_DIRECT_URL must use postgres: or postgresql:')
  const direct = 'postgres://postgres@127.0.0.1:5432/signet'
  expect(loadConfig({ DATABASE_URL: pooler, DATABASE_POOL_MODE: 'transaction', DATABASE_DIRECT_URL: direct }).databasePool).toEqual({
    mode: 'transaction',
    directUrl: direct,
  })
})

describe.skipIf(!usingPostgres || !havePgbouncer)('behind PgBouncer in transaction pooling', () => {
  let org: CreatedOrg
  let documentId: string

  test(
    'DATABASE_POOL_MODE=transaction: documents, webhooks and LISTEN-driven cache invalidation work through the pooler',
    async () => {
      const dataDir = makeTempDir('pgbouncer-server')
      // The operator CLI goes through the pooler too.
      org = await runCliJson<CreatedOrg>(dataDir, ['org', 'create', '--name', 'Pooled', '--plan', 'business'], env)
      const pdf = await writePdf(dataDir, 'one.pdf', 1)
      const template = await runCliJson<CreatedTemplate>(dataDir, ['template', 'create', '--org', org.org_id, '--name', 'NDA', '--pdf', pdf], env)
      const server = await startServer({ dataDir, env })

      const hook = await server.request('/api/v1/webhooks', { method: 'POST', key: org.api_key, json: { url: receiver?.url } })
      expect(hook.status).toBe(201)
      const signer = uniqueEmail()
      const created = await server.request('/api/v1/documents', {
        method: 'POST',
        key: org.api_key,
        json: { template_id: template.id, signer: { email: signer } },
      })
      expect(created.status).toBe(201)
      documentId = (await bodyOf<{ id: string }>(created)).id
      expect(await readMany(server, org.api_key, documentId, 60, 12)).toEqual(Array<number>(60).fill(200))
      // The signer opens the document: its document.viewed is queued and delivered by the dispatcher.
      const [invitation] = await runCliJson<{ text: string }[]>(dataDir, ['mail', 'list', '--to', signer, '--limit', '1'], env)
      const viewed = await server.request(`/sign/${tokenFromMail(invitation?.text)}/view`, { method: 'POST', json: {} })
      expect(viewed.status).toBe(200)
      const [delivery] = (await receiver?.waitFor(1, 20_000)) ?? []
      expect(JSON.parse(delivery?.body ?? '{}')).toMatchObject({ event: 'document.viewed' })

      // A key revoked by another process (the CLI) stops working here at once: the NOTIFY reached
      // the LISTEN connection. Were LISTEN on a pooled connection, the cached key would work for a minute.
      const second = await runCliJson<{ api_key: string }>(dataDir, ['key', 'create', '--org', org.org_id], env)
      expect((await server.request(`/api/v1/documents/${documentId}`, { key: second.api_key })).status).toBe(200)
      expect(await runCliJson(dataDir, ['key', 'revoke', '--org', org.org_id, '--prefix', second.api_key.slice(0, 17)], env)).toEqual({ revoked: 1 })
      const deadline = Date.now() + 5_000
      let status = 200
      while (status === 200 && Date.now() < deadline) {
        status = (await server.request(`/api/v1/documents/${documentId}`, { key: second.api_key })).status
        if (status === 200) await new Promise((resolve) => setTimeout(resolve, 100))
      }
      expect(status).toBe(401)
      expect(server.output()).not.toMatch(/prepared statement/)
      expect(await server.stop()).toEqual({ code: 0, signal: null })
    },
    2 * STARTUP_TIMEOUT_MS,
  )

  test(
    'DATABASE_POOL_MODE=session through the same pooler: the named statements break',
    async () => {
      const server = await startServer({ dataDir: makeTempDir('pgbouncer-session'), env: { ...env, DATABASE_POOL_MODE: 'session' } })
      const statuses = await readMany(server, org.api_key, documentId, 60, 12)
      // PgBouncer 1.18 passes Parse through to whichever server connection the transaction got.
      expect(statuses.filter((s) => s === 500).length).toBeGreaterThan(0)
      const broken = /prepared statement \\?"(\w+)\\?" (does not exist|already exists)/.exec(server.output())
      expect(broken?.slice(1)).toEqual([expect.stringMatching(NAMED_STATEMENTS), expect.any(String)])
      await server.stop()
    },
    STARTUP_TIMEOUT_MS,
  )
})
