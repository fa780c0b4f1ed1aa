import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import { eq } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { openDatabase } from '../src/db/client.ts'
import { eventStreamSessions, streamTestEvents } from '../src/db/schema.ts'
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
import type { TestServer } from './helpers/test-server.ts'
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

async function openStream(key: string, headers: Record<string, string> = {}): Promise<StreamReader> {
  const controller = new AbortController()
  const response = await server.request('/api/v1/events', { key, headers, signal: controller.signal })
  const reader = new StreamReader(response, controller)
  readers.push(reader)
  return reader
}

/** An opened stream after its `ready` message. */
async function readyStream(key: string, headers: Record<string, string> = {}): Promise<StreamReader> {
  const reader = await openStream(key, headers)
  expect(reader.response.status).toBe(200)
  await reader.waitFor(1)
  return reader
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
      } finally {
        await database.close()
      }
    },
    TIMEOUT_MS,
  )
})
