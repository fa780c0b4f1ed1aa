import { spawn } from 'node:child_process'
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest'
import { buildServer } from '../scripts/build-server.mjs'
import { loadConfig } from '../src/config.ts'
import { outboundEmails, webhookDeliveries, webhookEndpoints } from '../src/db/schema.ts'
import { createSentDocument, expectError, setupOrg, type TestOrg } from './helpers/api.ts'
import { makePdf } from './helpers/pdf.ts'
import { rgbaPng } from './helpers/png.ts'
import { cleanUpProcesses, freePort, makeTempDir, npmStartArgv, REPO_ROOT, startServer, usingPostgres } from './helpers/processes.ts'
import { closedPortUrl, postSeal, verifyIdentity } from './helpers/seals.ts'
import { TEST_PASSWORD } from './helpers/session.ts'
import { startTestServer, UNREACHABLE_RATE_LIMITS, type TestServer } from './helpers/test-server.ts'

/*
 * Prometheus metrics: off unless configured; GET /metrics on the main port behind METRICS_TOKEN;
 * a listener of its own with METRICS_PORT; the text checked line by line against the exposition
 * format, and the numbers checked against what the test did.
 */

const TOKEN = 'metrics-token-0123456789abcdef'

/** Starting a server (PGlite's boot, the PDF workers) takes a while on a loaded 2-core machine; a process more. */
const SERVER_TIMEOUT_MS = 120_000
const PROCESS_TIMEOUT_MS = 300_000

/** One sample line: its metric name, labels (in their order) and value. */
interface Sample {
  name: string
  labels: [string, string][]
  value: number
}

const METRIC_NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/
const SAMPLE_LINE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)(?: (-?\d+))?$/
const LABEL_PAIR = /^([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\\n]|\\[\\"n])*)"(?:,|$)/
/** A value as Go's strconv.ParseFloat reads it (Prometheus's parser): NaN and Inf in any case (prom-client writes `Nan`). */
const VALUE = /^(?:[+-]?(?:\d+\.?\d*(?:e[+-]?\d+)?|\.\d+(?:e[+-]?\d+)?|inf(?:inity)?)|nan)$/i
const TYPES = new Set(['counter', 'gauge', 'histogram', 'summary', 'untyped'])

/**
 * Parses Prometheus's text exposition format (version 0.0.4) strictly: every line a HELP, a TYPE
 * or a sample; a family's TYPE once and before its samples; each sample's name its family's (with
 * _bucket/_sum/_count for histograms); histogram buckets cumulative, ending at +Inf = _count.
 * Throws on the first line that breaks a rule.
 */
function parseExposition(text: string): Sample[] {
  const types = new Map<string, string>()
  const samples: Sample[] = []
  for (const [index, line] of text.split('\n').entries()) {
    const fail = (why: string) => new Error(`line ${index + 1} ${why}: ${line}`)
    if (line === '') continue
    const comment = /^# (HELP|TYPE) (\S+) (.*)$/.exec(line)
    if (comment) {
      const [, kind, name = '', rest = ''] = comment
      if (!METRIC_NAME.test(name)) throw fail('names an invalid metric')
      if (kind === 'TYPE') {
        if (!TYPES.has(rest)) throw fail('has an unknown type')
        if (types.has(name)) throw fail('repeats a TYPE')
        if (samples.some((sample) => familyOf(sample.name, types) === name)) throw fail('comes after its samples')
        types.set(name, rest)
      }
      continue
    }
    if (line.startsWith('#')) throw fail('is a comment of no known kind')
    const match = SAMPLE_LINE.exec(line)
    if (!match) throw fail('is not a sample')
    const [, name = '', rawLabels = '', value = ''] = match
    if (!VALUE.test(value)) throw fail('has no valid value')
    const labels: [string, string][] = []
    for (let rest = rawLabels; rest !== '';) {
      const pair = LABEL_PAIR.exec(rest)
      if (!pair) throw fail('has malformed labels')
      labels.push([pair[1] ?? '', pair[2] ?? ''])
      rest = rest.slice(pair[0].length)
    }
    if (familyOf(name, types) === undefined) throw fail('belongs to no declared family')
    const infinite = /inf/i.test(value)
    samples.push({ name, labels, value: infinite ? (value.startsWith('-') ? -Infinity : Infinity) : /nan/i.test(value) ? NaN : Number(value) })
  }
  checkHistograms(samples, types)
  return samples
}

/** The family a sample belongs to: its own name, or a histogram's or summary's without the suffix. */
function familyOf(name: string, types: Map<string, string>): string | undefined {
  if (types.has(name)) return name
  const base = name.replace(/_(bucket|sum|count)$/, '')
  const type = types.get(base)
  if (type === 'histogram') return base
  if (type === 'summary' && !name.endsWith('_bucket')) return base
  return undefined
}

function checkHistograms(samples: Sample[], types: Map<string, string>): void {
  const seriesKey = (sample: Sample) =>
    `${sample.name.replace(/_(bucket|sum|count)$/, '')}{${sample.labels
      .filter(([label]) => label !== 'le')
      .map(([label, value]) => `${label}=${value}`)
      .join(',')}}`
  const buckets = new Map<string, { le: number; count: number }[]>()
  const counts = new Map<string, number>()
  for (const sample of samples) {
    const base = sample.name.replace(/_(bucket|sum|count)$/, '')
    if (types.get(base) !== 'histogram') continue
    if (sample.name.endsWith('_bucket')) {
      const le = sample.labels.find(([label]) => label === 'le')?.[1]
      if (le === undefined) throw new Error(`a bucket without le: ${sample.name}`)
      const list = buckets.get(seriesKey(sample)) ?? []
      list.push({ le: le === '+Inf' ? Infinity : Number(le), count: sample.value })
      buckets.set(seriesKey(sample), list)
    } else if (sample.name.endsWith('_count')) counts.set(seriesKey(sample), sample.value)
  }
  for (const [key, list] of buckets) {
    for (let i = 1; i < list.length; i++) {
      const [before, after] = [list[i - 1], list[i]]
      if (!before || !after || after.le <= before.le || after.count < before.count) throw new Error(`buckets of ${key} are not cumulative`)
    }
    const last = list.at(-1)
    if (last?.le !== Infinity || last.count !== counts.get(key)) throw new Error(`${key}: the +Inf bucket is not the count`)
  }
}

async function scrape(server: TestServer): Promise<{ text: string; lines: string[] }> {
  const response = await server.request('/metrics', { headers: { authorization: `Bearer ${TOKEN}` } })
  expect(response.status).toBe(200)
  expect(response.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8')
  const text = await response.text()
  parseExposition(text)
  return { text, lines: text.split('\n') }
}

const documentReads = (status: number, count: number) =>
  `signet_http_request_duration_seconds_count{method="GET",route="/api/v1/documents/:id",status_code="${status}"} ${count}`

afterAll(async () => {
  await cleanUpProcesses()
})

test(
  'metrics are off by default: /metrics is an unknown route like any other',
  async () => {
    const server = await startTestServer()
    try {
      expect(server.services.metrics.enabled).toBe(false)
      await expectError(await server.request('/metrics'), 404, 'No route for GET /metrics.')
      await expectError(await server.request('/metrics', { headers: { authorization: `Bearer ${TOKEN}` } }), 404, 'No route for GET /metrics.')
    } finally {
      await server.close()
    }
  },
  SERVER_TIMEOUT_MS,
)

describe('with METRICS_TOKEN', () => {
  let server: TestServer
  let org: TestOrg
  // A clock that stands still, so that the backlog's ages are exact.
  const now = new Date(Math.floor(Date.now() / 1000) * 1000)
  beforeAll(async () => {
    server = await startTestServer({
      clock: { now: () => new Date(now) },
      env: {
        METRICS_TOKEN: TOKEN,
        // Three document reads and one sign-in attempt an hour; everything else out of reach.
        RATE_LIMITS: `${UNREACHABLE_RATE_LIMITS},read-document=3,sign-in=1`,
        // The dispatchers run only when kicked: a row the test inserts stays due until it is scraped.
        MAIL_POLL_MS: '3600000',
        JOB_POLL_MS: '3600000',
        // Every time-stamp authority down: a seal's final PDF fails and is retried later.
        TSA_URL: await closedPortUrl(),
        PDF_WORKERS: '1',
      },
    })
    org = await setupOrg(server)
  }, SERVER_TIMEOUT_MS)
  afterAll(async () => {
    await server?.close()
  })

  test('without the token, with another one, or with another scheme: 401 naming the setting; with it: 200', async () => {
    const refused = [undefined, 'Bearer wrong-token-0123456789abcdef', `Basic ${TOKEN}`, `Bearer ${TOKEN}x`, TOKEN]
    for (const authorization of refused) {
      const response = await server.request('/metrics', authorization === undefined ? {} : { headers: { authorization } })
      expect(response.headers.get('www-authenticate')).toBe('Bearer realm="metrics"')
      await expectError(response, 401, 'The metrics need the token set in METRICS_TOKEN, sent as "Authorization: Bearer <token>".')
    }
    const response = await server.request('/metrics', { headers: { authorization: `bearer ${TOKEN}` } })
    expect(response.status).toBe(200)
    expect(response.headers.get('cache-control')).toBe('no-store')
    const text = await response.text()
    // Default process metrics beside ours.
    expect(text).toMatch(/^process_cpu_user_seconds_total \d/m)
    expect(text).toMatch(/^nodejs_eventloop_lag_seconds \d/m)
  })

  test('the outbox and webhook backlogs: how many items are due, and for how long the oldest has been', async () => {
    await server.services.mail.drain()
    await server.services.webhooks.drain()
    const before = await scrape(server)
    expect(before.lines).toContain('signet_outbox_due 0')
    expect(before.lines).toContain('signet_outbox_oldest_due_age_seconds 0')
    expect(before.lines).toContain('signet_webhook_deliveries_due 0')

    const secondsAgo = (seconds: number) => new Date(now.getTime() - seconds * 1000)
    const mail = { toAddress: 'backlog@example.com', subject: 'Backlog', textBody: 'x', htmlBody: '<p>x</p>' }
    const db = server.services.db
    await db.insert(outboundEmails).values([
      { ...mail, nextAttemptAt: secondsAgo(90) },
      { ...mail, nextAttemptAt: secondsAgo(4) },
      // Neither is due: one waits for its retry, one was sent.
      { ...mail, nextAttemptAt: secondsAgo(-60) },
      { ...mail, nextAttemptAt: secondsAgo(600), status: 'sent' },
    ])
    const [endpoint] = await db
      .insert(webhookEndpoints)
      .values({ orgId: org.orgId, url: 'https://hooks.example.com/signet', secret: 'whsec_test' })
      .returning({ id: webhookEndpoints.id })
    const delivery = { endpointId: endpoint?.id ?? '', orgId: org.orgId, event: 'document.completed', payload: '{}' }
    await db.insert(webhookDeliveries).values([
      { ...delivery, nextAttemptAt: secondsAgo(30.5) },
      { ...delivery, nextAttemptAt: secondsAgo(-1) },
    ])

    const after = await scrape(server)
    expect(after.lines).toContain('signet_outbox_due 2')
    expect(after.lines).toContain('signet_outbox_oldest_due_age_seconds 90')
    expect(after.lines).toContain('signet_webhook_deliveries_due 1')
    expect(after.lines).toContain('signet_webhook_deliveries_oldest_due_age_seconds 30.5')

    // Once the mail dispatcher has sent them, and the deliveries are gone (their host is made up), nothing is due.
    await db.delete(webhookDeliveries)
    server.services.mail.kick()
    await server.services.mail.drain()
    const drained = await scrape(server)
    expect(drained.lines).toContain('signet_outbox_due 0')
    expect(drained.lines).toContain('signet_webhook_deliveries_due 0')
  })

  test('request durations by route pattern and status, and a rate-limit refusal counted by its policy', async () => {
    const documentId = await createSentDocument(server, org)
    const before = await scrape(server)
    expect(before.lines).toContain('signet_rate_limit_refusals_total{policy="read-document"} 0')
    expect(before.text).not.toContain('route="/api/v1/documents/:id"')

    for (let i = 0; i < 3; i++) expect((await server.request(`/api/v1/documents/${documentId}`, { key: org.apiKey })).status).toBe(200)
    await expectError(await server.request(`/api/v1/documents/${documentId}`, { key: org.apiKey }), 429, /^Rate limit exceeded\./)
    await server.request(`/no/such/${documentId}`)

    const after = await scrape(server)
    expect(after.lines).toContain(documentReads(200, 3))
    expect(after.lines).toContain(documentReads(429, 1))
    expect(after.lines).toContain('signet_rate_limit_refusals_total{policy="read-document"} 1')
    // Each of the three in a bucket; a path no route serves as `unmatched`, never as its URL.
    expect(after.lines).toContain('signet_http_request_duration_seconds_bucket{le="+Inf",method="GET",route="/api/v1/documents/:id",status_code="200"} 3')
    expect(after.lines).toContain('signet_http_request_duration_seconds_count{method="GET",route="unmatched",status_code="404"} 1')
    expect(after.text).not.toContain(documentId)
    expect(after.lines).toContain('signet_http_request_duration_seconds_count{method="POST",route="/api/v1/documents",status_code="201"} 1')
  })

  test("a refusal of the per-address sign-in limit is counted under its policy (the account code's path)", async () => {
    const login = () => server.request('/api/v1/auth/login', { method: 'POST', json: { email: 'nobody@example.com', password: TEST_PASSWORD } })
    expect((await login()).status).toBe(401)
    await expectError(await login(), 429, /^Too many sign-in attempts from your network\./)
    expect((await scrape(server)).lines).toContain('signet_rate_limit_refusals_total{policy="sign-in"} 1')
  })

  test('a final PDF that fails (every time-stamp authority down) is counted as a retry', async () => {
    await verifyIdentity(server, org.orgId)
    const before = await scrape(server)
    expect(before.lines).toContain('signet_final_pdf_failures_total{outcome="retry"} 0')
    const response = await postSeal(server, org.apiKey, await makePdf(1), { title: 'Waiting for time' })
    expect(response.status).toBe(202)
    const after = await scrape(server)
    expect(after.lines).toContain('signet_final_pdf_failures_total{outcome="retry"} 1')
    expect(after.lines).toContain('signet_final_pdf_failures_total{outcome="given_up"} 0')
  })

  test("the PDF pool's load: tasks running and waiting, by the count its 503 is decided on", async () => {
    const pdfWork = server.services.pdfWork
    const png = rgbaPng(1, 1, Buffer.from([0, 0, 0, 0, 255]))
    // Three tasks for one worker, read before any can finish: one runs, two wait.
    const tasks = [0, 1, 2].map(() => pdfWork.pngProblem(new Uint8Array(png), 1_000_000))
    expect(pdfWork.load).toEqual({ busy: 1, queued: 2, workers: 1 })
    expect(await Promise.all(tasks)).toEqual([null, null, null])
    expect(pdfWork.load).toEqual({ busy: 0, queued: 0, workers: 1 })

    // The gauges read it at each scrape.
    const load = vi.spyOn(pdfWork, 'load', 'get').mockReturnValue({ busy: 1, queued: 5, workers: 1 })
    try {
      const { lines } = await scrape(server)
      expect(lines).toContain('signet_pdf_pool_busy 1')
      expect(lines).toContain('signet_pdf_pool_queued 5')
      expect(lines).toContain('signet_pdf_pool_workers 1')
    } finally {
      load.mockRestore()
    }
  })

  test('the database pool on PostgreSQL; no such gauges on the embedded database', async () => {
    const { text } = await scrape(server)
    for (const gauge of ['signet_db_pool_in_use', 'signet_db_pool_idle', 'signet_db_pool_waiting']) {
      if (usingPostgres) expect(text).toMatch(new RegExp(`^${gauge} \\d+$`, 'm'))
      else expect(text).not.toContain(gauge)
    }
  })
})

test(
  'METRICS_PORT: the server started as `npm start` runs it serves /metrics on a listener of its own, without a token',
  async () => {
    const metricsPort = await freePort()
    const server = await startServer({ dataDir: makeTempDir('metrics'), env: { METRICS_PORT: String(metricsPort) } })
    try {
      const metricsUrl = `http://127.0.0.1:${metricsPort}`
      // startServer waited for one healthy answer; two more.
      for (let i = 0; i < 2; i++) expect((await server.request('/healthz')).status).toBe(200)
      const response = await fetch(`${metricsUrl}/metrics`)
      expect(response.status).toBe(200)
      const text = await response.text()
      const lines = text.split('\n')
      parseExposition(text)
      expect(lines).toContain('signet_http_request_duration_seconds_count{method="GET",route="/healthz",status_code="200"} 3')
      expect(text.includes('# TYPE signet_db_pool_in_use gauge')).toBe(usingPostgres)
      // The listener serves nothing else; the main port has no /metrics without METRICS_TOKEN.
      await expectError(await fetch(`${metricsUrl}/healthz`), 404, 'No route for GET /healthz.')
      await expectError(await server.request('/metrics'), 404, 'No route for GET /metrics.')
      expect(await server.stop()).toEqual({ code: 0, signal: null })
    } finally {
      await server.stop().catch(() => undefined)
    }
  },
  PROCESS_TIMEOUT_MS,
)

test(
  'bad metrics settings stop the start with a message naming each one',
  async () => {
    await buildServer()
    const child = spawn(process.execPath, npmStartArgv(), {
      cwd: REPO_ROOT,
      env: { ...process.env, DATA_DIR: makeTempDir('metrics-config'), METRICS_PORT: 'abc', METRICS_TOKEN: 'short' },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let stderr = ''
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk))
    const code = await new Promise<number | null>((resolve) => child.once('close', resolve))
    expect(code).toBe(1)
    expect(stderr).toContain('METRICS_TOKEN must be 16 to 512 characters without spaces, e.g. the output of `openssl rand -hex 32`')
    expect(stderr).toContain('METRICS_PORT must be an integer between 1 and 65535 (got "abc")')

    expect(() => loadConfig({ PORT: '3000', METRICS_PORT: '3000' })).toThrow('METRICS_PORT must differ from PORT (both are 3000)')
    expect(() => loadConfig({ METRICS_HOST: '0.0.0.0' })).toThrow('METRICS_HOST is set but METRICS_PORT is not')
    expect(() => loadConfig({ METRICS_TOKEN: 'has a space in it, sixteen+' })).toThrow('METRICS_TOKEN must be 16 to 512 characters')
    expect(loadConfig({ METRICS_PORT: '9464' }).metrics).toEqual({ token: undefined, port: 9464, host: '127.0.0.1' })
  },
  PROCESS_TIMEOUT_MS,
)
