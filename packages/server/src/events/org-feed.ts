import type { Db } from '../db/client.ts'
import type { Logger } from '../lib/logger.ts'
import { onWebhookEventsWritten } from './append-signal.ts'
import { latestCursor, readEvents, type StreamCursor, type StreamEvent } from './stream-events.ts'

/** How often an org's events are looked for while one of its streams is open on this process. */
export const POLL_MS = 250
/** After a nudge (append-signal.ts): the writer's transaction commits a moment after it wrote, so look soon, and once more. */
const NUDGE_POLLS_MS = [10, 100] as const
/**
 * How long after drawing an event's id its transaction may commit and still have the event
 * streamed. audit_events ids come from one sequence, drawn at insert, so a transaction can
 * commit id 100 after another committed id 101; a poller that only read past the highest id it
 * had seen would never send 100. So each poll re-reads every event above a floor that trails the
 * highest id by this much time (the highest id as it was LATE_COMMIT_MS ago), and leaves out
 * what it already sent (the `seen` keys above the floor). An event's transaction would have to
 * stay open longer than this after its insert to be missed (the signing transactions that write
 * them last milliseconds); the re-read costs one index range scan over half a minute of ids.
 */
export const LATE_COMMIT_MS = 30_000

export type FeedListener = (events: readonly StreamEvent[]) => void

interface FeedDeps {
  db: Db
  logger: Logger
  /** Epoch ms (the service's clock). */
  now: () => number
}

const sourceOf = (key: string): keyof StreamCursor => (key.startsWith('a') ? 'audit' : 'test')
const highest = (a: StreamCursor, b: StreamCursor): StreamCursor => ({ audit: Math.max(a.audit, b.audit), test: Math.max(a.test, b.test) })

/**
 * One org's events as this process finds them, for every stream of that org it serves: one
 * poll (two indexed queries) per POLL_MS however many streams listen. Each event is handed to
 * the listeners once, in the order readEvents gives (per document, its seq order).
 */
class OrgFeed {
  readonly listeners = new Set<FeedListener>()
  /** The highest ids seen: where a new stream of this org starts. */
  private top: StreamCursor = { audit: 0, test: 0 }
  /** Polls re-read everything above it (LATE_COMMIT_MS). */
  private floor: StreamCursor = { audit: 0, test: 0 }
  /** The top after each poll, to move the floor up to the top of LATE_COMMIT_MS ago. */
  private readonly marks: { at: number; top: StreamCursor }[] = []
  /** Keys above the floor already handed out. */
  private readonly seen = new Set<string>()
  private timer: NodeJS.Timeout | undefined
  private polling = false
  private pollAgain = false
  private nudgeStep: number = NUDGE_POLLS_MS.length
  private stopped = false
  readonly ready: Promise<void>

  constructor(
    private readonly deps: FeedDeps,
    readonly orgId: string,
  ) {
    // Events already recorded when the first stream opens are not the stream's (a reconnect reads its own, stream.ts).
    this.ready = latestCursor(deps.db, orgId).then((start) => {
      this.top = start
      this.floor = start
      this.schedule(POLL_MS)
    })
  }

  get position(): StreamCursor {
    return this.top
  }

  nudge(): void {
    this.nudgeStep = 0
    if (this.polling) this.pollAgain = true
    else this.schedule(NUDGE_POLLS_MS[this.nudgeStep++] ?? POLL_MS)
  }

  stop(): void {
    this.stopped = true
    clearTimeout(this.timer)
  }

  private schedule(ms: number): void {
    clearTimeout(this.timer)
    if (this.stopped) return
    this.timer = setTimeout(() => void this.poll(), ms)
  }

  private async poll(): Promise<void> {
    this.polling = true
    try {
      await this.pollOnce()
    } catch (error) {
      this.deps.logger.error({ err: error, orgId: this.orgId }, 'event stream poll failed')
    } finally {
      this.polling = false
    }
    const again = this.pollAgain
    this.pollAgain = false
    this.schedule(again ? 0 : (NUDGE_POLLS_MS[this.nudgeStep++] ?? POLL_MS))
  }

  private async pollOnce(): Promise<void> {
    const now = this.deps.now()
    // Read before the events: the top is then never above an event the read could have missed.
    const latest = await latestCursor(this.deps.db, this.orgId)
    const events = await readEvents(this.deps.db, this.orgId, { after: this.floor, skip: this.seen })
    let top = highest(this.top, latest)
    for (const event of events) {
      this.seen.add(event.key)
      top = highest(top, { ...top, [event.source]: event.rowId })
    }
    this.top = top
    this.marks.push({ at: now, top })
    let settled: StreamCursor | undefined
    while (this.marks[0] && this.marks[0].at <= now - LATE_COMMIT_MS) settled = this.marks.shift()?.top
    if (settled) this.raiseFloor(settled)
    if (events.length > 0) for (const listener of this.listeners) listener(events)
  }

  private raiseFloor(floor: StreamCursor): void {
    this.floor = floor
    for (const key of this.seen) if (Number(key.slice(1)) <= floor[sourceOf(key)]) this.seen.delete(key)
  }
}

/** This process's feeds, one per org with an open stream; a feed stops with its last listener. */
export class OrgFeeds {
  private readonly feeds = new Map<string, OrgFeed>()
  private readonly stopNudges: () => void

  constructor(private readonly deps: FeedDeps) {
    this.stopNudges = onWebhookEventsWritten((orgId) => this.feeds.get(orgId)?.nudge())
  }

  /** Hands `listener` every event of the org found from now on; resolves with where the feed stands. */
  async subscribe(orgId: string, listener: FeedListener): Promise<{ position: StreamCursor; unsubscribe: () => void }> {
    let feed = this.feeds.get(orgId)
    if (!feed) {
      feed = new OrgFeed(this.deps, orgId)
      this.feeds.set(orgId, feed)
    }
    const subscribed = feed
    subscribed.listeners.add(listener)
    const unsubscribe = () => {
      subscribed.listeners.delete(listener)
      if (subscribed.listeners.size > 0) return
      subscribed.stop()
      if (this.feeds.get(orgId) === subscribed) this.feeds.delete(orgId)
    }
    try {
      await subscribed.ready
    } catch (error) {
      unsubscribe()
      throw error
    }
    return { position: subscribed.position, unsubscribe }
  }

  close(): void {
    this.stopNudges()
    for (const feed of this.feeds.values()) feed.stop()
    this.feeds.clear()
  }
}
