import { randomUUID } from 'node:crypto'
import { existsSync } from 'node:fs'
import { Agent, request, type RequestOptions } from 'node:http'
import { join } from 'node:path'
import { afterEach, expect, test } from 'vitest'
import { adminSocketPath } from '../src/admin/socket-path.ts'
import {
  cleanUpProcesses,
  isUnreachable,
  makeTempDir,
  runCliJson,
  startServer,
  usingPostgres,
  writePdf,
  type CreatedOrg,
  type CreatedTemplate,
  type ServerProcess,
} from './helpers/processes.ts'

/**
 * The server process's life: ready on /healthz, SIGTERM finishes what is in flight, closes the
 * database and releases DATA_DIR, and a restart serves the same data. Runs on PGlite, or on
 * PostgreSQL when DATABASE_URL is set.
 */

const TIMEOUT_MS = 300_000

afterEach(cleanUpProcesses, TIMEOUT_MS)

interface Answer {
  status?: number
  body?: string
  error?: string
}

/**
 * Sends a request's headers and the first half of its body over a keep-alive connection, as
 * fetch and most SDKs (and the CLI's default agent) would; `finish` sends the rest and
 * resolves with the answer, or with the error if the connection was dropped.
 */
function startHalfSentRequest(options: RequestOptions, body: Buffer): { finish(): Promise<Answer>; agent: Agent } {
  const agent = new Agent({ keepAlive: true })
  const req = request({ ...options, agent, headers: { ...options.headers, 'content-type': 'application/json', 'content-length': body.length } })
  const answer = new Promise<Answer>((resolve) => {
    req.on('response', (res) => {
      let text = ''
      res.setEncoding('utf8')
      res.on('data', (chunk: string) => (text += chunk))
      res.on('end', () => resolve({ status: res.statusCode, body: text }))
      res.on('error', (error) => resolve({ error: error.message }))
    })
    req.on('error', (error) => resolve({ error: error.message }))
  })
  const half = Math.floor(body.length / 2)
  req.write(body.subarray(0, half))
  return {
    agent,
    finish: () => {
      req.end(body.subarray(half))
      return answer
    },
  }
}

async function orgWithTemplate(dataDir: string): Promise<{ org: CreatedOrg; template: CreatedTemplate }> {
  const pdf = await writePdf(dataDir, `agreement-${randomUUID()}.pdf`, 1)
  const org = await runCliJson<CreatedOrg>(dataDir, ['org', 'create', '--name', 'Lifecycle Org'])
  const template = await runCliJson<CreatedTemplate>(dataDir, ['template', 'create', '--org', org.org_id, '--name', 'Lease', '--pdf', pdf])
  return { org, template }
}

/** After a clean stop nothing listens, and on PGlite the lock and the admin socket are gone. */
async function expectReleased(server: ServerProcess): Promise<void> {
  expect(await isUnreachable(server.url)).toBe(true)
  if (usingPostgres) return
  expect(existsSync(join(server.dataDir, 'instance.lock'))).toBe(false)
  expect(existsSync(adminSocketPath(server.dataDir))).toBe(false)
}

async function expectOneDocument(server: ServerProcess, apiKey: string, documentId: string, signer: string): Promise<void> {
  const document = await server.request(`/api/v1/documents/${documentId}`, { key: apiKey })
  expect(document.status).toBe(200)
  expect(await document.json()).toMatchObject({
    id: documentId,
    title: expect.stringMatching(/^Lease — (Ann|Bob)$/) as unknown,
    status: 'sent',
    signers: [{ email: signer }],
  })
  const list = await server.request('/api/v1/documents', { key: apiKey })
  expect(await list.json()).toMatchObject({ total: 1, documents: [{ id: documentId }] })
  // The invitation was written in the same transaction as the document.
  const mail = await runCliJson<{ to: string; subject: string }[]>(server.dataDir, ['mail', 'list', '--to', signer])
  expect(mail).toEqual([
    expect.objectContaining({ to: signer, subject: expect.stringMatching(/^Lifecycle Org sent you "Lease — (Ann|Bob)" to sign$/) as unknown }),
  ])
}

test(
  'healthz answers once ready; after SIGTERM (exit 0) a restart serves the same data',
  async () => {
    const dataDir = makeTempDir('restart')
    // A first start, as a user's: the server creates its embedded database itself.
    const server = await startServer({ dataDir, initdb: true })
    const health = await server.request('/healthz')
    expect(health.status).toBe(200)
    expect(await health.json()).toEqual({ status: 'ok' })

    const { org, template } = await orgWithTemplate(dataDir)
    const signer = `ann-${randomUUID()}@example.com`
    const created = await server.request('/api/v1/documents', {
      method: 'POST',
      key: org.api_key,
      json: { template_id: template.id, signer: { email: signer, name: 'Ann' } },
    })
    expect(created.status).toBe(201)
    const { id } = (await created.json()) as { id: string }

    expect(await server.stop('SIGTERM')).toEqual({ code: 0, signal: null })
    await expectReleased(server)

    const restarted = await startServer({ dataDir })
    await expectOneDocument(restarted, org.api_key, id, signer)
    const templates = await restarted.request('/api/v1/templates', { key: org.api_key })
    expect(await templates.json()).toMatchObject({ total: 1, templates: [{ id: template.id, name: 'Lease' }] })
    expect(await restarted.stop('SIGTERM')).toEqual({ code: 0, signal: null })
    await expectReleased(restarted)
  },
  TIMEOUT_MS,
)

/**
 * Deterministic: the request's headers and half its body are sent, and the server has logged
 * the request (so it is in flight, not queued in a socket buffer) before SIGTERM. The rest of
 * the body goes only once shutdown has begun and new connections are refused. The client keeps
 * its connection alive, as fetch and most SDKs do.
 */
test(
  'a request in flight when SIGTERM arrives completes, then the process exits 0',
  async () => {
    const dataDir = makeTempDir('inflight')
    // LOG_LEVEL=debug: the "incoming request" (debug) and "shutting down" lines are the synchronisation points.
    const server = await startServer({ dataDir, env: { LOG_LEVEL: 'debug' } })
    const { org, template } = await orgWithTemplate(dataDir)
    const signer = `bob-${randomUUID()}@example.com`
    const body = Buffer.from(JSON.stringify({ template_id: template.id, signer: { email: signer, name: 'Bob' } }))
    const inFlight = startHalfSentRequest(
      { host: '127.0.0.1', port: server.port, method: 'POST', path: '/api/v1/documents', headers: { authorization: `Bearer ${org.api_key}` } },
      body,
    )
    await server.waitForLog((line) => {
      const logged = line.req as { method?: string; url?: string } | undefined
      return line.msg === 'incoming request' && logged?.method === 'POST' && logged.url === '/api/v1/documents'
    })

    server.child.kill('SIGTERM')
    await server.waitForLog((line) => line.msg === 'shutting down: finishing in-flight requests')
    // A new connection is a clean refusal once the HTTP server has begun closing.
    const deadline = Date.now() + 30_000
    while (!(await isUnreachable(server.url))) {
      expect(Date.now()).toBeLessThan(deadline)
      await new Promise((resolve) => setTimeout(resolve, 20))
    }
    expect(server.child.exitCode).toBeNull()

    const answer = await inFlight.finish()
    expect(answer).toMatchObject({ status: 201 })
    const { id } = JSON.parse(answer.body ?? '') as { id: string }

    // The client still holds its connection: the server must not wait for it to go away.
    expect(await server.stop('SIGTERM')).toEqual({ code: 0, signal: null })
    inFlight.agent.destroy()
    expect(server.output()).not.toMatch(/shutdown took longer|shutdown failed/)
    await expectReleased(server)

    const restarted = await startServer({ dataDir })
    await expectOneDocument(restarted, org.api_key, id, signer)
    expect(await restarted.stop('SIGTERM')).toEqual({ code: 0, signal: null })
  },
  TIMEOUT_MS,
)

/**
 * The operator CLI's commands are requests too. Deterministic like the HTTP case: half the
 * command is sent, then a complete command on a second connection gets its answer (so the
 * server has long read the first one's headers), then SIGTERM, then the rest.
 */
test.skipIf(usingPostgres)(
  'an admin command in flight when SIGTERM arrives completes',
  async () => {
    const dataDir = makeTempDir('inflight-admin')
    const server = await startServer({ dataDir, env: { LOG_LEVEL: 'info' } })
    const body = Buffer.from(JSON.stringify({ name: 'org.create', orgName: 'Created during shutdown', plan: 'free' }))
    const inFlight = startHalfSentRequest({ socketPath: adminSocketPath(dataDir), method: 'POST', path: '/commands' }, body)
    await runCliJson(dataDir, ['mail', 'list', '--limit', '1'])

    server.child.kill('SIGTERM')
    await server.waitForLog((line) => line.msg === 'shutting down: finishing in-flight requests')
    // The socket file goes once the admin server has stopped accepting.
    while (existsSync(adminSocketPath(dataDir))) await new Promise((resolve) => setTimeout(resolve, 20))

    const answer = await inFlight.finish()
    expect(answer).toMatchObject({ status: 200 })
    const { result } = JSON.parse(answer.body ?? '') as { result: CreatedOrg }
    expect(await server.stop('SIGTERM')).toEqual({ code: 0, signal: null })
    inFlight.agent.destroy()
    await expectReleased(server)

    const restarted = await startServer({ dataDir })
    const templates = await restarted.request('/api/v1/templates', { key: result.api_key })
    expect(await templates.json()).toMatchObject({ total: 0, org_name: 'Created during shutdown' })
    expect(await restarted.stop('SIGTERM')).toEqual({ code: 0, signal: null })
  },
  TIMEOUT_MS,
)

/** Behind a load balancer: the health check fails first, and requests are still served until the grace ends. */
test(
  'with SHUTDOWN_GRACE_MS, SIGTERM first turns /healthz to 503 while requests are still served, then the process exits 0',
  async () => {
    const dataDir = makeTempDir('drain')
    const server = await startServer({ dataDir, env: { SHUTDOWN_GRACE_MS: '3000', LOG_LEVEL: 'info' } })
    const { org } = await orgWithTemplate(dataDir)
    const signalled = Date.now()
    server.child.kill('SIGTERM')
    await server.waitForLog((line) => line.msg === 'draining: /healthz answers 503 while requests are still served')

    const health = await server.request('/healthz')
    expect(health.status).toBe(503)
    expect(await health.json()).toEqual({ status: 'draining' })
    const served = await server.request('/api/v1/templates', { key: org.api_key })
    expect(served.status).toBe(200)
    // Keep-alive connections are closed after each answer, so the balancer's next request goes elsewhere.
    expect(served.headers.get('connection')).toBe('close')
    expect(server.child.exitCode).toBeNull()

    expect(await server.stop('SIGTERM')).toEqual({ code: 0, signal: null })
    expect(Date.now() - signalled).toBeGreaterThanOrEqual(3000)
    await expectReleased(server)
  },
  TIMEOUT_MS,
)
