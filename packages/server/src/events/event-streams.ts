import type { Actor } from '../actors/actor.ts'
import { requireScope } from '../actors/scopes.ts'
import { AppError } from '../errors.ts'
import type { Services } from '../services.ts'
import { activeApiKeyId, credentialStillValid, type StreamCredential } from './credential.ts'
import { OrgFeeds } from './org-feed.ts'
import { advance, parseCursor, readEvents, type StreamCursor, type StreamEvent } from './stream-events.ts'
import {
  beatStreamSessions,
  claimStreamSession,
  endStreamSession,
  HEARTBEAT_MS,
  MAX_STREAMS_PER_ORG,
  recordStreamSession,
  type StreamEndReason,
} from './stream-sessions.ts'

export { MAX_STREAMS_PER_ORG }
/** A Last-Event-ID resumes at most this far back. */
const RESUME_WINDOW_MS = 3600_000
/** The credential is checked again at least this often, and soon after this process hears that keys changed. */
const CREDENTIAL_CHECK_MS = 60_000
/** How often the (in-memory) key-change counter is looked at. */
const KEY_CHANGE_LOOK_MS = 1_000

type StreamServices = Pick<Services, 'db' | 'clock' | 'config' | 'logger' | 'principals'>

/** Where a stream's events go: the HTTP route writes them as Server-Sent Events. */
export interface StreamSink {
  /** Writes one event with the cursor after it; false when the client is not keeping up (the stream then ends). */
  send(event: StreamEvent, cursor: StreamCursor): boolean
  /** The service ends the stream (revoked credential, shutdown, a client that does not read). */
  end(): void
}

export interface OpenedStream {
  /** The session's id (event_stream_sessions), sent in the `ready` message. */
  id: string
  /** Where the stream starts: the `ready` message's id, so that a reconnect before the first event misses nothing. */
  readonly position: StreamCursor
  /** Starts delivery: what was found while opening first, then live events. */
  attach(sink: StreamSink): void
  /** The client went away, or the service ends the stream: stops it and records its end (never rejects). */
  close(): Promise<void>
}

/**
 * The live event streams this process serves (GET /api/v1/events): the per-org cap (counted in
 * event_stream_sessions across processes, stream-sessions.ts) and this process's heartbeat for
 * its streams, the audit record of each, the credential re-check, and delivery from the org's
 * shared feed (org-feed.ts).
 */
export class EventStreams {
  private readonly open = new Set<LiveStream>()
  private readonly feeds: OrgFeeds
  private readonly heartbeat: NodeJS.Timeout
  private beating = false

  constructor(private readonly services: StreamServices) {
    this.feeds = new OrgFeeds({ db: services.db, logger: services.logger, now: () => services.clock.now().getTime() })
    this.heartbeat = setInterval(() => void this.beat(), HEARTBEAT_MS)
    this.heartbeat.unref()
  }

  /**
   * Opens a stream of the actor's org: from now on, or after `lastEventId` (a reconnect, at most
   * an hour back). Throws before anything is written for a bad Last-Event-ID or a full org.
   */
  async openStream(actor: Actor, credential: StreamCredential, lastEventId: string | undefined): Promise<OpenedStream> {
    requireScope(actor, 'read', 'the live event stream')
    const resumeAfter = lastEventId === undefined ? undefined : parseCursor(lastEventId)
    // Known to this process before the first await, so that a shutdown meanwhile ends it too.
    const stream = new LiveStream(this.services, actor.orgId, credential, () => this.open.delete(stream))
    this.open.add(stream)
    try {
      await stream.start(actor, this.feeds, resumeAfter)
    } catch (error) {
      await stream.close('open_failed')
      throw error
    }
    return stream
  }

  /**
   * Marks this process's open sessions as alive (one statement). A session the sweep closed
   * meanwhile (this process went unheard for HEARTBEAT_WINDOW_MS: a long pause, a lost database)
   * no longer counts against the cap, so its stream ends.
   */
  private async beat(): Promise<void> {
    const streams = [...this.open].filter((stream) => stream.id)
    if (this.beating || streams.length === 0) return
    this.beating = true
    try {
      const alive = await beatStreamSessions(
        this.services.db,
        streams.map((stream) => stream.id),
        this.services.clock.now(),
      )
      await Promise.all(streams.filter((stream) => !alive.has(stream.id)).map((stream) => stream.endByService('heartbeat_lost')))
    } catch (error) {
      this.services.logger.error({ err: error }, 'event stream heartbeat failed')
    } finally {
      this.beating = false
    }
  }

  /** Ends every stream (the server is shutting down), recording each end. */
  async closeAll(): Promise<void> {
    clearInterval(this.heartbeat)
    await Promise.all([...this.open].map((stream) => stream.endByService('server_shutdown')))
    this.feeds.close()
  }
}

class LiveStream implements OpenedStream {
  id = ''
  private cursor: StreamCursor = { audit: 0, test: 0 }
  private sink: StreamSink | undefined
  /** Events found before a sink was attached, in order. */
  private pending: StreamEvent[] = []
  /** Events a reconnect read itself, which the feed may hand out again. */
  private caughtUp = new Set<string>()
  private eventsSent = 0
  private unsubscribe: (() => void) | undefined
  private timer: NodeJS.Timeout | undefined
  private keyChanges = 0
  private lastCheck = 0
  private checking = false
  private closed: Promise<void> | undefined

  constructor(
    private readonly services: StreamServices,
    private readonly orgId: string,
    private readonly credential: StreamCredential,
    private readonly release: () => void,
  ) {}

  async start(actor: Actor, feeds: OrgFeeds, resumeAfter: StreamCursor | undefined): Promise<void> {
    const { db, clock } = this.services
    let apiKeyId: string | null = null
    if (this.credential.kind === 'api_key') {
      apiKeyId = await activeApiKeyId(db, this.orgId, this.credential.keyHash)
      if (!apiKeyId) throw new AppError('invalid_api_key', 'Invalid API key.')
    }
    const startedAt = clock.now()
    this.id = await claimStreamSession(db, actor, apiKeyId, startedAt)
    this.lastCheck = startedAt.getTime()
    this.keyChanges = this.services.principals.currentGeneration()
    // Subscribed before a reconnect reads what it missed: every event is then in one or the other (or both, de-duplicated).
    const subscription = await feeds.subscribe(this.orgId, (events) => this.found(events))
    this.unsubscribe = subscription.unsubscribe
    this.cursor = subscription.position
    if (resumeAfter) {
      // A cursor from elsewhere (another server's database, a made-up one) cannot hide events to come.
      const after = { audit: Math.min(resumeAfter.audit, this.cursor.audit), test: Math.min(resumeAfter.test, this.cursor.test) }
      const missed = await readEvents(db, this.orgId, { after, since: new Date(startedAt.getTime() - RESUME_WINDOW_MS) })
      this.caughtUp = new Set(missed.map((event) => event.key))
      this.pending = [...missed, ...this.pending.filter((event) => !this.caughtUp.has(event.key))]
      this.cursor = after
    }
  }

  get position(): StreamCursor {
    return this.cursor
  }

  attach(sink: StreamSink): void {
    if (this.closed) return
    this.sink = sink
    const pending = this.pending
    this.pending = []
    this.deliver(pending)
    this.timer = setInterval(() => void this.checkCredential(), KEY_CHANGE_LOOK_MS)
  }

  private found(events: readonly StreamEvent[]): void {
    const fresh = events.filter((event) => !this.caughtUp.has(event.key))
    if (this.sink) this.deliver(fresh)
    else this.pending.push(...fresh)
  }

  private deliver(events: readonly StreamEvent[]): void {
    for (const event of events) {
      if (this.closed || !this.sink) return
      this.cursor = advance(this.cursor, event)
      this.eventsSent++
      if (!this.sink.send(event, this.cursor)) {
        void this.endByService('not_reading')
        return
      }
    }
  }

  /** Soon after this process hears of a key change (every revocation announces one), and at least every CREDENTIAL_CHECK_MS. */
  private async checkCredential(): Promise<void> {
    const now = this.services.clock.now().getTime()
    const keyChanges = this.services.principals.currentGeneration()
    if (this.checking || this.closed || (keyChanges === this.keyChanges && now - this.lastCheck < CREDENTIAL_CHECK_MS)) return
    this.checking = true
    this.keyChanges = keyChanges
    this.lastCheck = now
    try {
      if (!(await credentialStillValid(this.services, this.orgId, this.credential))) await this.endByService('credential_revoked')
      else await recordStreamSession(this.services.db, { id: this.id, orgId: this.orgId }, this.eventsSent)
    } catch (error) {
      this.services.logger.error({ err: error }, 'event stream credential check failed')
    } finally {
      this.checking = false
    }
  }

  /** The service ends the stream: the end is recorded with `reason` (closed first, so the connection's close does not claim it). */
  async endByService(reason: StreamEndReason): Promise<void> {
    const closed = this.close(reason)
    this.sink?.end()
    await closed
  }

  /** Ends the stream; the first caller's reason is the one recorded (by default: the client went away). */
  close(reason: StreamEndReason = 'client_closed'): Promise<void> {
    this.closed ??= this.finish(reason)
    return this.closed
  }

  /** Never rejects: whoever ends a stream (a closed connection, a shutdown) has nobody to report a failed write to but the log. */
  private async finish(reason: StreamEndReason): Promise<void> {
    clearInterval(this.timer)
    this.unsubscribe?.()
    this.release()
    if (!this.id) return
    try {
      const end = { eventsSent: this.eventsSent, endedAt: this.services.clock.now(), reason }
      await endStreamSession(this.services.db, { id: this.id, orgId: this.orgId }, end)
    } catch (error) {
      this.services.logger.error({ err: error, streamId: this.id }, 'recording the end of an event stream failed')
    }
  }
}
