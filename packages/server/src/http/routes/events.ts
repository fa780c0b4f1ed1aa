import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { FastifyRequest } from 'fastify'
import { Type } from 'typebox'
import { AppError } from '../../errors.ts'
import { apiKeyCredential, type StreamCredential } from '../../events/credential.ts'
import { EventStreams, MAX_STREAMS_PER_ORG } from '../../events/event-streams.ts'
import { StreamHeaders, TriggerAccepted, TriggerBody } from '../../events/events.schemas.ts'
import { formatCursor, type StreamCursor, type StreamEvent } from '../../events/stream-events.ts'
import { triggerTestEvent } from '../../events/trigger.ts'
import type { Services } from '../../services.ts'
import { actorOf, presentedKey } from '../auth.ts'
import { rateLimit, RATE_LIMITS } from '../rate-limit.ts'
import { ErrorBody, withCommonErrors } from '../schemas.ts'
import { sessionTokenOf } from '../session-cookie.ts'

const tags = ['Events']

/** The contract's interval between `: keep-alive` comments. */
const KEEP_ALIVE_MS = 15_000
/** Unsent bytes a client may leave behind before its stream is ended: it is not reading. */
const MAX_UNSENT_BYTES = 1024 * 1024

const STREAM_DESCRIPTION = [
  "Extension: the workspace's four webhook events, live, as Server-Sent Events (text/event-stream), on every plan: `signet listen` forwards them to a local URL.",
  'The first message is `event: ready` with `data: {"stream_id":"<uuid>"}` (and an `id:`, so a reconnect before any event misses nothing).',
  'Then, for each document.viewed, document.signed, document.completed and document.declined of the workspace after the stream opened (or after the',
  "Last-Event-ID request header's id, at most one hour back), a message `id: <cursor>`, `event: <type>` (or `test` for POST /api/v1/events/trigger's),",
  '`data: {"id":"<event id>","payload":<the exact JSON body a registered webhook endpoint receives for it>}`, within a second of the event,',
  "each document's events in their order. A `: keep-alive` comment line comes every 15 seconds.",
  `At most ${MAX_STREAMS_PER_ORG} streams per workspace are open at once (more: 429 too_many_event_streams).`,
  'The stream ends when its API key is revoked (or its dashboard session ends), checked at least every minute. Each stream is audited: who, from where, when, how many events.',
].join(' ')

/** What authenticated the request, to be checked again while the stream lasts (apiAuth let a key win over a cookie). */
function credentialOf(request: FastifyRequest): StreamCredential {
  const token = request.userSession ? sessionTokenOf(request) : undefined
  if (token) return { kind: 'session', token }
  const key = presentedKey(request)
  if (!key) throw new AppError('missing_api_key', 'Missing API key. Pass it as a bearer header: Authorization: Bearer <API_KEY>.')
  return apiKeyCredential(key)
}

/** One SSE message; every value here is a single line (JSON.stringify escapes line breaks). */
const message = (fields: [string, string][]): string => `${fields.map(([name, value]) => `${name}: ${value}\n`).join('')}\n`

const eventMessage = (event: StreamEvent, cursor: StreamCursor): string =>
  // The payload is spliced in as text: these are the delivery body's own bytes, not a re-serialisation.
  message([
    ['id', formatCursor(cursor)],
    ['event', event.name],
    ['data', `{"id":${JSON.stringify(event.id)},"payload":${event.payload}}`],
  ])

/**
 * The live event stream and its test trigger (extensions). The stream is one long GET: it is
 * counted once against no hourly budget (an open stream is capped per org instead), and comments
 * every 15 s (or half the connection idle timeout, if that is shorter) keep the connection
 * from looking idle; REQUEST_TIMEOUT_MS bounds only the arrival of the request, not the answer.
 */
export const eventRoutes: FastifyPluginAsyncTypebox<{ services: Services }> = async (app, { services }) => {
  const streams = new EventStreams(services)
  // Before the server stops taking connections: end every stream (recording its end), or they would hold the shutdown.
  app.addHook('preClose', async () => streams.closeAll())
  const keepAliveMs = Math.min(KEEP_ALIVE_MS, Math.floor(services.config.connections.idleTimeoutMs / 2))

  app.get(
    '/events',
    {
      // A HEAD would open a stream that writes nothing and never ends.
      exposeHeadRoute: false,
      schema: {
        tags,
        operationId: 'streamEvents',
        summary: "Extension: a live stream of the workspace's webhook events (Server-Sent Events)",
        description: STREAM_DESCRIPTION,
        headers: StreamHeaders,
        response: {
          ...withCommonErrors({
            200: {
              description: 'A text/event-stream that stays open',
              content: { 'text/event-stream': { schema: Type.String({ description: 'Server-Sent Events, as described above' }) } },
            },
            400: { ...ErrorBody, description: 'A Last-Event-ID that is not an id this stream sends' },
            403: { ...ErrorBody, description: 'The API key lacks the read scope' },
          }),
          429: { ...ErrorBody, description: `The workspace has ${MAX_STREAMS_PER_ORG} streams open already (too_many_event_streams)` },
        },
      },
    },
    async (request, reply) => {
      const stream = await streams.openStream(actorOf(request), credentialOf(request), request.headers['last-event-id'])
      reply.hijack()
      const raw = reply.raw
      void reply.headers({
        'content-type': 'text/event-stream; charset=utf-8',
        'cache-control': 'no-cache',
        // Tells nginx (and proxies that follow it) not to buffer the stream.
        'x-accel-buffering': 'no',
      })
      // A hijacked reply writes nothing itself: its headers (these, and what hooks set) are copied over.
      for (const [name, value] of Object.entries(reply.getHeaders())) if (value !== undefined) raw.setHeader(name, value)
      raw.writeHead(200)
      const open = () => !raw.writableEnded && !raw.destroyed
      raw.write(
        message([
          ['event', 'ready'],
          ['data', JSON.stringify({ stream_id: stream.id })],
          ['id', formatCursor(stream.position)],
        ]),
      )
      const keepAlive = setInterval(() => {
        if (open()) raw.write(': keep-alive\n\n')
      }, keepAliveMs)
      const stop = () => {
        clearInterval(keepAlive)
        void stream.close()
      }
      raw.on('close', stop)
      // A client that left while the stream was being opened has already closed its connection.
      if (request.raw.socket.destroyed) stop()
      stream.attach({
        send: (event, cursor) => {
          if (!open()) return false
          raw.write(eventMessage(event, cursor))
          return raw.writableLength <= MAX_UNSENT_BYTES
        },
        end: () => raw.end(),
      })
      return reply
    },
  )

  app.post(
    '/events/trigger',
    {
      // A test event is a webhook test without an endpoint: it shares the webhook routes' budget.
      onRequest: rateLimit(services, RATE_LIMITS.webhooks),
      schema: {
        tags,
        operationId: 'triggerTestEvent',
        summary: "Extension: send a made-up event to the workspace's open live event streams (never to a registered webhook endpoint)",
        description:
          'Extension: a realistic payload of the given type (a made-up document id and title, a signer where the real event has one, occurred_at now, and "test": true) ' +
          'reaches the streams of GET /api/v1/events as an `event: test` message; no registered webhook endpoint receives it. Every plan.',
        body: TriggerBody,
        response: withCommonErrors({
          202: TriggerAccepted,
          400: { ...ErrorBody, description: 'The body is not {"event": one of the four webhook events}' },
          403: { ...ErrorBody, description: 'The API key lacks the write scope' },
        }),
      },
    },
    async (request, reply) => reply.status(202).send(await triggerTestEvent(services, actorOf(request), request.body.event)),
  )
}
