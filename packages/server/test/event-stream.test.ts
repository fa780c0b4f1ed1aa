import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import { and, eq, isNull } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { openDatabase } from '../src/db/client.ts'
import { eventStreamSessions, streamTestEvents } from '../src/db/schema.ts'
import { closeLostStreamSessions, HEARTBEAT_MS, HEARTBEAT_WINDOW_MS, MAX_STREAMS_PER_ORG } from '../src/events/stream-sessions.ts'
import { bodyOf, expectError, uniqueEmail } from './helpers/api.ts'
import {
  cleanUpProcesses,
  makeTempDir,
  runCliJson,
  startServer,
  usingPostgres,
  writePdf,
  type CreatedOrg,
  type CreatedTemplate,
  type ServerProcess,
} from './helpers/processes.ts'
import { pngDataUrl, SignerClient, tokenFromMail } from './helpers/signing.ts'
import { createScratchDatabase } from './helpers/postgres.ts'
import { startTestServer, type TestServer } from './helpers/test-server.ts'
import { startWebhookReceiver, type WebhookReceiver } from './helpers/webhook-receiver.ts'

/*
 * GET /api/v1/events and POST /api/v1/events/trigger on the server as `npm start` runs it: the
 * stream is read with fetch and parsed here, byte by byte, as `signet listen` would.
 */

const TIMEOUT_MS = 120_000
/** The contract: an event reaches the stream within a second. */
const WITHIN_MS = 1_000

interface SseMessage {
  id?: string
  event?: string
  data: string
  /** performance.now() when the message had arrived. */
  at: number
}

/** An open stream: every message and comment as it arrives, and whether the server ended it. */
class StreamReader {
  readonly messages: SseMessage[] = []
  readonly comments: string[] = []
  raw = ''
  ended = false
  private wake: (() => void) | undefined

  constructor(
    readonly response: Response,
    private readonly controller: AbortController,
  ) {
    void this.pump()
  }

  private async pump(): Promise<void> {
    const decoder = new TextDecoder()
    let buffer = ''
    try {
      for await (const chunk of this.response.body as unknown as AsyncIterable<Uint8Array>) {
        const text = decoder.decode(chunk, { stream: true })
        this.raw += text
        buffer += text
        for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
          this.parse(buffer.slice(0, end))
          buffer = buffer.slice(end + 2)
        }
        this.wake?.()
      }
    } catch {
      // aborted by close()
    }
    this.ended = true
    this.wake?.()
  }

  private parse(block: string): void {
    const message: SseMessage = { data: '', at: performance.now() }
    let isMessage = false
    for (const line of block.split('\n')) {
      if (line.startsWith(':')) {
        this.comments.push(line)
        continue
      }
      const colon = line.indexOf(': ')
      const [field, value] = [line.slice(0, colon), line.slice(colon + 2)]
      if (field === 'id' || field === 'event' || field === 'data') message[field] = value
      isMessage = true
    }
    if (isMessage) this.messages.push(message)
  }

  /** Resolves once `count` messages arrived (rejects after timeoutMs). */
  async waitFor(count: number, timeoutMs = 10_000): Promise<SseMessage[]> {
    const deadline = performance.now() + timeoutMs
    while (this.messages.length < count) {
      if (this.ended) throw new Error(`the stream ended after ${this.messages.length} of ${count} messages:\n${this.raw}`)
      const left = deadline - performance.now()
      if (left <= 0) throw new Error(`${this.messages.length} of ${count} messages after ${timeoutMs} ms:\n${this.raw}`)
      await new Promise<void>((resolve) => {
        this.wake = resolve
        setTimeout(resolve, Math.min(left, 100))
      })
    }
    return this.messages.slice(0, count)
  }

  /** Resolves once the server ended the stream (rejects after timeoutMs). */
  async waitForEnd(timeoutMs: number): Promise<void> {
    const deadline = performance.now() + timeoutMs
    while (!this.ended) {
      if (performance.now() > deadline) throw new Error(`the stream is still open after ${timeoutMs} ms`)
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
  }

  close(): void {
    this.controller.abort()
  }
}

const dataOf = (message: SseMessage | undefined) => JSON.parse(message?.data ?? 'null') as { id: string; payload: Record<string, unknown> }
/** The payload exactly as its bytes arrived: the data is `{"id":…,"payload":<payload>}`. */
const rawPayloadOf = (message: SseMessage | undefined): string => {
  const data = message?.data ?? ''
  return data.slice(data.indexOf(',"payload":') + ',"payload":'.length, -1)
}

let server: ServerProcess
let receiver: WebhookReceiver
let dataDir: string
let pro: CreatedOrg
let free: CreatedOrg
let proTemplate: CreatedTemplate
let readOnlyKey: string
let revocableKey: { api_key: string; prefix?: string }
const readers: StreamReader[] = []

/** How a test reaches a server: a process's request function or an in-process TestServer's. */
type RequestTo = (path: string, init: RequestInit & { key?: string }) => Promise<Response>

async function openStream(
  key: string,
  headers: Record<string, string> = {},
  to: RequestTo = (path, init) => server.request(path, init),
): Promise<StreamReader> {
  const controller = new AbortController()
  const response = await to('/api/v1/events', { key, headers, signal: controller.signal })
  const reader = new StreamReader(response, controller)
  readers.push(reader)
  return reader
}

/** An opened stream after its `ready` message. */
async function readyStream(key: string, headers: Record<string, string> = {}, to?: RequestTo): Promise<StreamReader> {
  const reader = await openStream(key, headers, to)
  expect(reader.response.status).toBe(200)
  await reader.waitFor(1)
  return reader
}

/** A stream asked for: a reader when it opened, else the refusal's response (its body unread). */
async function attemptStream(key: string, to: RequestTo): Promise<{ status: number; reader?: StreamReader; refusal?: Response }> {
  const controller = new AbortController()
  const response = await to('/api/v1/events', { key, signal: controller.signal })
  if (response.status !== 200) return { status: response.status, refusal: response }
  const reader = new StreamReader(response, controller)
  readers.push(reader)
  return { status: 200, reader }
}

/** Polls `check` until it holds (rejects with what it last saw after timeoutMs). */
async function eventually<T>(read: () => Promise<T>, check: (value: T) => boolean, timeoutMs = 10_000): Promise<T> {
  const deadline = performance.now() + timeoutMs
  for (;;) {
    const value = await read()
    if (check(value)) return value
    if (performance.now() > deadline) throw new Error(`still ${JSON.stringify(value)} after ${timeoutMs} ms`)
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
}

/** A request for a stream that is refused: its error body. */
const refusedStream = (key: string, headers: Record<string, string> = {}) => server.request('/api/v1/events', { key, headers })

const trigger = (key: string, body: unknown) => server.request('/api/v1/events/trigger', { method: 'POST', key, json: body })

beforeAll(async () => {
  dataDir = makeTempDir('event-stream')
  receiver = await startWebhookReceiver()
  server = await startServer({
    dataDir,
    // Short request and idle timeouts, which a stream must outlive (keep-alive comments then come every 2 s).
    env: { WEBHOOK_ALLOW_PRIVATE: 'true', JOB_POLL_MS: '100', MAIL_POLL_MS: '100', REQUEST_TIMEOUT_MS: '3000', CONNECTION_TIMEOUT_MS: '4000' },
  })
  const pdf = await writePdf(dataDir, 'agreement.pdf', 1)
  ;[pro, free] = await Promise.all([
    runCliJson<CreatedOrg>(dataDir, ['org', 'create', '--name', 'Stream Pro', '--plan', 'pro']),
    runCliJson<CreatedOrg>(dataDir, ['org', 'create', '--name', 'Stream Free']),
  ])
  let readOnly: { api_key: string }
  ;[proTemplate, readOnly, revocableKey] = await Promise.all([
    runCliJson<CreatedTemplate>(dataDir, ['template', 'create', '--org', pro.org_id, '--name', 'Lease', '--pdf', pdf]),
    runCliJson<{ api_key: string }>(dataDir, ['key', 'create', '--org', pro.org_id, '--scope', 'read']),
    runCliJson<{ api_key: string }>(dataDir, ['key', 'create', '--org', free.org_id]),
  ])
  readOnlyKey = readOnly.api_key
  const registered = await server.request('/api/v1/webhooks', { method: 'POST', key: pro.api_key, json: { url: receiver.url } })
  expect(registered.status).toBe(201)
  receiver.secret = (await bodyOf<{ secret: string }>(registered)).secret
}, TIMEOUT_MS)

afterAll(async () => {
  for (const reader of readers) reader.close()
  await receiver.close()
  await cleanUpProcesses()
}, TIMEOUT_MS)

describe('the live event stream', () => {
  let proStream: StreamReader
  let freeStream: StreamReader

  let proOpenedAt = 0

  it(
    'opens with headers for a stream and the ready message first',
    async () => {
      proOpenedAt = performance.now()
      proStream = await readyStream(pro.api_key)
      freeStream = await readyStream(free.api_key)
      expect(proStream.response.headers.get('content-type')).toBe('text/event-stream; charset=utf-8')
      expect(proStream.response.headers.get('cache-control')).toBe('no-cache')
      expect(proStream.response.headers.get('x-accel-buffering')).toBe('no')
      const [ready] = proStream.messages
      expect(proStream.raw).toMatch(/^event: ready\ndata: \{"stream_id":"[0-9a-f-]{36}"\}\nid: \d+\.\d+\n\n$/)
      expect(ready?.event).toBe('ready')
      // A Free-plan workspace streams too.
      expect(freeStream.messages[0]?.event).toBe('ready')
    },
    TIMEOUT_MS,
  )

  it(
    "carries a signing run's events in order, each within a second, with the bytes a registered webhook endpoint receives",
    async () => {
      const email = uniqueEmail()
      const created = await server.request('/api/v1/documents', {
        method: 'POST',
        key: pro.api_key,
        json: { template_id: proTemplate.id, signers: [{ role: 0, email, name: 'Ann Streamer' }] },
      })
      expect(created.status).toBe(201)
      const documentId = (await bodyOf<{ id: string }>(created)).id
      const [invitation] = await runCliJson<{ text: string }[]>(dataDir, ['mail', 'list', '--to', email, '--limit', '1'])
      // SignerClient uses only the server's request function.
      const signer = new SignerClient(
        { request: (path, init) => server.request(path, init) } as Pick<TestServer, 'request'> as TestServer,
        tokenFromMail(invitation?.text),
        email,
      )

      expect((await signer.view()).status).toBeLessThan(300)
      const viewedAt = performance.now()
      const [, viewed] = await proStream.waitFor(2)
      expect((viewed?.at ?? Infinity) - viewedAt).toBeLessThan(WITHIN_MS)

      expect((await signer.finish({ '0': pngDataUrl() })).status).toBe(200)
      const finishedAt = performance.now()
      const events = (await proStream.waitFor(4)).slice(1)
      for (const event of events.slice(1)) expect(event.at - finishedAt).toBeLessThan(WITHIN_MS)

      expect(events.map((m) => m.event)).toEqual(['document.viewed', 'document.signed', 'document.completed'])
      expect(events.map((m) => dataOf(m).payload.event)).toEqual(['document.viewed', 'document.signed', 'document.completed'])
      expect(events.map((m) => dataOf(m).payload.document_id)).toEqual([documentId, documentId, documentId])
      const ids = events.map((m) => dataOf(m).id)
      expect(new Set(ids).size).toBe(3)
      // Each id is a new cursor, later than the one before.
      const cursors = events.map((m) => Number(m.id?.split('.')[0]))
      expect(cursors).toEqual([...cursors].sort((a, b) => a - b))
      expect(new Set(cursors).size).toBe(3)

      const deliveries = await receiver.waitFor(3, 20_000)
      const delivered = new Map(deliveries.map((d) => [(JSON.parse(d.body) as { event: string }).event, d.body]))
      for (const event of events) expect(rawPayloadOf(event)).toBe(delivered.get(event.event ?? ''))
      expect(deliveries.every((d) => d.signatureValid)).toBe(true)
    },
    TIMEOUT_MS,
  )

  it(
    "sends a triggered event to the org's streams only, marked as a test, and to no webhook endpoint",
    async () => {
      const before = proStream.messages.length
      const triggered = await trigger(pro.api_key, { event: 'document.signed' })
      expect(triggered.status).toBe(202)
      const accepted = await bodyOf<{ id: string; event: string }>(triggered)
      expect(accepted).toEqual({ id: expect.stringMatching(/^evt_test_\d+$/) as unknown, event: 'document.signed' })

      const message = (await proStream.waitFor(before + 1)).at(-1)
      expect(message?.event).toBe('test')
      const data = dataOf(message)
      expect(data.id).toBe(accepted.id)
      expect(Object.keys(data.payload)).toEqual(['event', 'occurred_at', 'document_id', 'title', 'status', 'signer', 'test'])
      expect(data.payload).toMatchObject({ event: 'document.signed', status: 'sent', test: true, signer: { email: expect.any(String) as unknown } })
      expect(Math.abs(Date.parse(data.payload.occurred_at as string) - Date.now())).toBeLessThan(10_000)

      const completed = await trigger(pro.api_key, { event: 'document.completed' })
      expect(completed.status).toBe(202)
      const last = (await proStream.waitFor(before + 2)).at(-1)
      expect(Object.keys(dataOf(last).payload)).toEqual(['event', 'occurred_at', 'document_id', 'title', 'status', 'test'])

      // The three real deliveries, and nothing for the test events.
      expect(await receiver.countAfter(1_500)).toBe(0)
      expect(receiver.received).toHaveLength(3)
    },
    TIMEOUT_MS,
  )

  it(
    "never shows a workspace another workspace's events",
    async () => {
      const own = await trigger(free.api_key, { event: 'document.viewed' })
      expect(own.status).toBe(202)
      const [, message] = await freeStream.waitFor(2)
      expect(dataOf(message).id).toBe((await bodyOf<{ id: string }>(own)).id)
      await new Promise((resolve) => setTimeout(resolve, 500))
      expect(freeStream.messages.map((m) => m.event)).toEqual(['ready', 'test'])
    },
    TIMEOUT_MS,
  )

  it(
    'lets a read-only key stream but not trigger, and refuses a bad trigger body with a clear error',
    async () => {
      const stream = await readyStream(readOnlyKey)
      expect(stream.messages[0]?.event).toBe('ready')
      stream.close()
      await expectError(await trigger(readOnlyKey, { event: 'document.completed' }), 403, /read-only/)

      expect(await bodyOf(await trigger(pro.api_key, { event: 'document.sent' }))).toEqual({
        error: 'event must be one of: document.viewed, document.signed, document.completed, document.declined',
        code: 'validation_failed',
        field: '/event',
      })
      expect(await bodyOf(await trigger(pro.api_key, {}))).toEqual({ error: 'event is required', code: 'validation_failed', field: '/event' })
      await expectError(await trigger(pro.api_key, { event: 'document.completed', extra: 1 }), 400, 'extra is not an allowed field')
      await expectError(await refusedStream(pro.api_key, { 'last-event-id': 'yesterday' }), 400, /Last-Event-ID/)
    },
    TIMEOUT_MS,
  )

  it(
    'resumes after Last-Event-ID without repeating or losing an event',
    async () => {
      const first = await readyStream(pro.api_key)
      expect((await trigger(pro.api_key, { event: 'document.viewed' })).status).toBe(202)
      const [, seen] = await first.waitFor(2)
      first.close()
      const missed = []
      for (const event of ['document.signed', 'document.declined']) {
        const response = await trigger(pro.api_key, { event })
        missed.push((await bodyOf<{ id: string }>(response)).id)
      }

      const resumed = await readyStream(pro.api_key, { 'last-event-id': seen?.id ?? '' })
      const messages = await resumed.waitFor(3)
      expect(messages.slice(1).map((m) => dataOf(m).id)).toEqual(missed)
      await new Promise((resolve) => setTimeout(resolve, 600))
      expect(resumed.messages).toHaveLength(3)
      resumed.close()
    },
    TIMEOUT_MS,
  )

  it(
    'stays open past the request and idle timeouts, kept alive by comments',
    async () => {
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, proOpenedAt + 6_000 - performance.now())))
      expect(proStream.ended).toBe(false)
      expect(proStream.comments.length).toBeGreaterThanOrEqual(2)
      expect(new Set(proStream.comments)).toEqual(new Set([': keep-alive']))
    },
    TIMEOUT_MS,
  )

  it(
    'caps the open streams of a workspace',
    async () => {
      // The Pro workspace has its first stream open (the server has seen the others' clients leave by now).
      await new Promise((resolve) => setTimeout(resolve, 300))
      const more = await Promise.all([1, 2, 3, 4].map(() => readyStream(pro.api_key)))
      await expectError(await refusedStream(pro.api_key), 429, /already has 5 live event streams open/)
      for (const reader of more) reader.close()
    },
    TIMEOUT_MS,
  )

  it.skipIf(!usingPostgres)(
    'sends an event whose transaction took an earlier id but committed after a later event was streamed',
    async () => {
      const database = await openDatabase({ databaseUrl: process.env.DATABASE_URL ?? '' })
      let commit = () => {}
      const held = new Promise<void>((resolve) => (commit = resolve))
      try {
        let drawn = () => {}
        const idDrawn = new Promise<void>((resolve) => (drawn = resolve))
        const late = database.db.transaction(async (tx) => {
          await tx.insert(streamTestEvents).values({ orgId: pro.org_id, type: 'document.viewed', payload: '{"event":"document.viewed","test":true}' })
          drawn()
          await held
        })
        await idDrawn
        const before = proStream.messages.length
        expect((await trigger(pro.api_key, { event: 'document.signed' })).status).toBe(202)
        const later = (await proStream.waitFor(before + 1)).at(-1)
        commit()
        await late
        const committedAt = performance.now()
        const lateMessage = (await proStream.waitFor(before + 2)).at(-1)
        expect(dataOf(lateMessage).payload).toEqual({ event: 'document.viewed', test: true })
        expect((lateMessage?.at ?? Infinity) - committedAt).toBeLessThan(WITHIN_MS)
        // The cursor never goes back: a reconnect after either resumes after both.
        expect(lateMessage?.id).toBe(later?.id)
      } finally {
        commit()
        await database.close()
      }
    },
    TIMEOUT_MS,
  )

  it(
    "ends a stream when its key is revoked, and audits every stream's start, end and event count",
    async () => {
      const stream = await readyStream(revocableKey.api_key)
      expect((await trigger(free.api_key, { event: 'document.completed' })).status).toBe(202)
      await stream.waitFor(2)
      await runCliJson(dataDir, ['key', 'revoke', '--org', free.org_id, '--prefix', revocableKey.api_key.slice(0, 17)])
      // Checked again as soon as the server hears that keys changed: well within the minute the contract allows.
      await stream.waitForEnd(5_000)

      // The still-open streams end (and are recorded) when the server stops.
      await server.stop()
      const database = await openDatabase(usingPostgres ? { databaseUrl: process.env.DATABASE_URL ?? '' } : { pgliteDir: join(dataDir, 'pgdata') })
      try {
        const sessions = await database.db.select().from(eventStreamSessions).where(eq(eventStreamSessions.orgId, free.org_id))
        expect(sessions).toHaveLength(2)
        for (const session of sessions) {
          expect(session).toMatchObject({ authMethod: 'api_key', ip: '127.0.0.1', endedAt: expect.any(Date) as unknown })
          expect(session.endedAt?.getTime()).toBeGreaterThanOrEqual(session.startedAt.getTime())
        }
        // The Free org's first stream carried its two own events, the revoked key's one.
        expect(sessions.map((s) => s.eventsSent).sort()).toEqual([1, 2])
        expect(new Set(sessions.map((s) => s.apiKeyId)).size).toBe(2)
        // Why each ended: the revoked key's, and the one still open when the server stopped.
        expect(sessions.map((s) => s.endReason).sort()).toEqual(['credential_revoked', 'server_shutdown'])
      } finally {
        await database.close()
      }
    },
    TIMEOUT_MS,
  )
})

/*
 * The cap holds across server processes: it counts the live rows of event_stream_sessions (not
 * ended, heartbeat within HEARTBEAT_WINDOW_MS). These servers run in this process, so their
 * database is at hand to plant the rows another process (or a dead one) would have left.
 */
describe('the cap counts live sessions in the database', () => {
  let local: TestServer
  let orgId: string
  let apiKey: string
  const to: RequestTo = (path, init) => local.request(path, init)

  /** A session row as another server process left it: its heartbeat `ageMs` ago. */
  const plantSession = async (ageMs: number) => {
    const seen = new Date(local.services.clock.now().getTime() - ageMs)
    const [row] = await local.services.db
      .insert(eventStreamSessions)
      .values({ orgId, authMethod: 'api_key', ip: '192.0.2.7', startedAt: seen, lastSeenAt: seen })
      .returning()
    return row!.id
  }
  const sessionsOf = () => local.services.db.select().from(eventStreamSessions).where(eq(eventStreamSessions.orgId, orgId))
  const sessionById = async (id: string) => (await sessionsOf()).find((row) => row.id === id)

  beforeAll(async () => {
    // The background sweep runs once at start, then not during these tests: they run it themselves.
    local = await startTestServer({ env: { JOB_POLL_MS: '3600000' } })
    ;({ orgId, apiKey } = await local.createOrg('pro', 'Cap Co'))
  }, TIMEOUT_MS)
  afterAll(async () => {
    for (const reader of readers) reader.close()
    await local.close()
  }, TIMEOUT_MS)

  it(
    "counts another process's live streams, not a dead process's; the sweep closes the dead one's session",
    async () => {
      const dead = await plantSession(HEARTBEAT_WINDOW_MS + 15_000)
      const [elsewhereA, elsewhereB] = [await plantSession(1_000), await plantSession(5_000)]
      const ours = []
      for (let i = 0; i < MAX_STREAMS_PER_ORG - 2; i++) ours.push(await readyStream(apiKey, {}, to))
      // Two live elsewhere and three here: the sixth is refused, the dead session does not count.
      await expectError(await to('/api/v1/events', { key: apiKey }), 429, /already has 5 live event streams open/)

      // A stream that ends is closed in the database at once, and frees its place.
      ours.pop()?.close()
      const closed = await eventually(sessionsOf, (rows) => rows.some((row) => row.endReason === 'client_closed'))
      expect(closed.filter((row) => row.endedAt === null)).toHaveLength(5)
      ours.push(await readyStream(apiKey, {}, to))

      await closeLostStreamSessions(local.services.db, local.services.clock.now())
      const deadRow = await sessionById(dead)
      expect(deadRow).toMatchObject({ endReason: 'heartbeat_lost', endedAt: deadRow?.lastSeenAt })
      for (const id of [elsewhereA, elsewhereB]) expect(await sessionById(id)).toMatchObject({ endedAt: null, endReason: null })
      const open = await local.services.db
        .select()
        .from(eventStreamSessions)
        .where(and(eq(eventStreamSessions.orgId, orgId), isNull(eventStreamSessions.endedAt)))
      expect(open).toHaveLength(MAX_STREAMS_PER_ORG)
      for (const reader of ours) reader.close()
      // Only the other process's two stay open.
      await eventually(sessionsOf, (rows) => rows.filter((row) => row.endedAt === null).length === 2)
    },
    TIMEOUT_MS,
  )

  it(
    "beats every open stream's heartbeat, and ends a stream whose session the sweep closed",
    async () => {
      const [kept, lost] = [await readyStream(apiKey, {}, to), await readyStream(apiKey, {}, to)]
      const ids = [kept, lost].map((reader) => (JSON.parse(reader.messages[0]?.data ?? '{}') as { stream_id: string }).stream_id)
      const openedAt = (await sessionById(ids[0]!))!.lastSeenAt.getTime()
      // As if this process had gone unheard: the sweep takes the second one for dead and closes it.
      await local.services.db
        .update(eventStreamSessions)
        .set({ lastSeenAt: new Date(openedAt - HEARTBEAT_WINDOW_MS - 1_000) })
        .where(eq(eventStreamSessions.id, ids[1]!))
      await closeLostStreamSessions(local.services.db, local.services.clock.now())

      // At the next heartbeat: the first is marked alive again, the second ends.
      await lost.waitForEnd(HEARTBEAT_MS + 5_000)
      expect(kept.ended).toBe(false)
      const beaten = await eventually(
        () => sessionById(ids[0]!),
        (row) => (row?.lastSeenAt.getTime() ?? 0) > openedAt,
      )
      expect(beaten?.endedAt).toBeNull()
      expect(await sessionById(ids[1]!)).toMatchObject({ endReason: 'heartbeat_lost' })
      kept.close()
    },
    TIMEOUT_MS,
  )
})

describe('the background sweep', () => {
  let local: TestServer

  beforeAll(async () => {
    local = await startTestServer({ env: { JOB_POLL_MS: '100' } })
  }, TIMEOUT_MS)
  afterAll(() => local.close(), TIMEOUT_MS)

  it(
    'closes the session a dead process left open, and leaves live ones open',
    async () => {
      const { orgId } = await local.createOrg('pro', 'Sweep Co')
      const now = local.services.clock.now().getTime()
      const session = (lastSeen: number) => ({ orgId, authMethod: 'api_key', startedAt: new Date(now - 3_600_000), lastSeenAt: new Date(lastSeen) })
      const [dead, live] = await local.services.db
        .insert(eventStreamSessions)
        .values([session(now - HEARTBEAT_WINDOW_MS - 60_000), session(now)])
        .returning({ id: eventStreamSessions.id })
      const rowOf = async (id: string) => (await local.services.db.select().from(eventStreamSessions).where(eq(eventStreamSessions.id, id)))[0]
      const closed = await eventually(
        () => rowOf(dead!.id),
        (row) => row?.endedAt != null,
      )
      expect(closed).toMatchObject({ endReason: 'heartbeat_lost', endedAt: new Date(now - HEARTBEAT_WINDOW_MS - 60_000) })
      expect(await rowOf(live!.id)).toMatchObject({ endedAt: null, endReason: null })
    },
    TIMEOUT_MS,
  )
})

/** Two real server processes on one PostgreSQL database share the cap (PGlite is single-process: skipped there). */
describe.runIf(usingPostgres)('two server processes sharing one PostgreSQL', () => {
  let scratch: Awaited<ReturnType<typeof createScratchDatabase>>
  let servers: [ServerProcess, ServerProcess]
  let org: CreatedOrg
  const at =
    (which: ServerProcess): RequestTo =>
    (path, init) =>
      which.request(path, init)

  beforeAll(async () => {
    scratch = await createScratchDatabase(process.env.DATABASE_URL ?? '')
    const env = { DATABASE_URL: scratch.url }
    servers = await Promise.all([startServer({ dataDir: makeTempDir('streams-a'), env }), startServer({ dataDir: makeTempDir('streams-b'), env })])
    org = await runCliJson<CreatedOrg>(makeTempDir('streams-cli'), ['org', 'create', '--name', 'Two Processes', '--plan', 'pro'], env)
  }, TIMEOUT_MS * 2)
  afterAll(async () => {
    for (const reader of readers) reader.close()
    await Promise.all(servers.map((s) => s.stop()))
    await scratch.drop()
  }, TIMEOUT_MS)

  it(
    'five streams on one process leave no sixth on the other; one ends, and the other may open it',
    async () => {
      const [a, b] = servers
      const onA = []
      for (let i = 0; i < MAX_STREAMS_PER_ORG; i++) onA.push(await readyStream(org.api_key, {}, at(a)))
      await expectError(await b.request('/api/v1/events', { key: org.api_key }), 429, /already has 5 live event streams open/)

      onA.pop()?.close()
      // The end is recorded as the first process sees the client leave: then the second may open one.
      const opened = await eventually(
        () => attemptStream(org.api_key, at(b)),
        (attempt) => attempt.status === 200,
      )
      await opened.reader?.waitFor(1)
      await expectError(await a.request('/api/v1/events', { key: org.api_key }), 429, /already has 5 live event streams open/)
      opened.reader?.close()
      for (const reader of onA) reader.close()
    },
    TIMEOUT_MS,
  )

  it(
    'two processes opening the last free stream at once: exactly one wins',
    async () => {
      const [a, b] = servers
      // Wait until the previous test's streams are recorded as ended.
      const database = await openDatabase({ databaseUrl: scratch.url })
      try {
        await eventually(
          () =>
            database.db
              .select()
              .from(eventStreamSessions)
              .where(and(eq(eventStreamSessions.orgId, org.org_id), isNull(eventStreamSessions.endedAt))),
          (rows) => rows.length === 0,
        )
      } finally {
        await database.close()
      }
      const held = []
      for (let i = 0; i < MAX_STREAMS_PER_ORG - 1; i++) held.push(await readyStream(org.api_key, {}, at(i % 2 === 0 ? a : b)))
      const racing = await Promise.all([a, b, a, b].map((server) => attemptStream(org.api_key, at(server))))
      expect(racing.map((attempt) => attempt.status).sort()).toEqual([200, 429, 429, 429])
      for (const reader of held) reader.close()
      for (const attempt of racing) attempt.reader?.close()
    },
    TIMEOUT_MS,
  )
})
