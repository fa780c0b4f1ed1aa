import { and, eq, gt, inArray, isNull, lt, sql } from 'drizzle-orm'
import type { Actor } from '../actors/actor.ts'
import type { Db } from '../db/client.ts'
import { eventStreamSessions } from '../db/schema.ts'
import { AppError } from '../errors.ts'

/*
 * The record of live event streams (event_stream_sessions): who opened one, how (the key, or a
 * dashboard session), from where, when it started and ended and why, and how many events it
 * carried. Streams are the workspace's events leaving the service, as webhook deliveries are.
 *
 * The same rows hold the per-org cap for every process on the database: a session counts while
 * it is not ended and its process's heartbeat (last_seen_at) is recent. A process that dies
 * stops beating; its sessions stop counting after HEARTBEAT_WINDOW_MS and the background sweep
 * closes them.
 */

/** Open streams per org, across every server process: `signet listen` needs one; a few leave room for a second terminal or a restart. */
export const MAX_STREAMS_PER_ORG = 5
/** How often a process marks its open streams as alive. */
export const HEARTBEAT_MS = 15_000
/** A session not seen for this long (three missed heartbeats) is taken for dead: not counted, then closed by the sweep. */
export const HEARTBEAT_WINDOW_MS = 45_000

/** Why a stream ended: its client left, the service ended it (a revoked credential, a client not reading, a shutdown, the sweep), or it failed to open. */
export type StreamEndReason = 'client_closed' | 'credential_revoked' | 'not_reading' | 'server_shutdown' | 'heartbeat_lost' | 'open_failed'

const liveSince = (now: Date) => new Date(now.getTime() - HEARTBEAT_WINDOW_MS)

/**
 * Opens a session if the org has fewer than MAX_STREAMS_PER_ORG live ones, else a 429. The count
 * and the insert run under a transaction-scoped advisory lock of the org, so two processes
 * opening the last free stream at once are serialised: one wins, the other counts it.
 */
export async function claimStreamSession(db: Db, actor: Actor, apiKeyId: string | null, now: Date): Promise<string> {
  return db.transaction(async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(hashtextextended(${`signet:event-streams:${actor.orgId}`}, 0))`)
    const [live] = await tx
      .select({ count: sql<number>`count(*)::int` })
      .from(eventStreamSessions)
      .where(and(eq(eventStreamSessions.orgId, actor.orgId), isNull(eventStreamSessions.endedAt), gt(eventStreamSessions.lastSeenAt, liveSince(now))))
    if ((live?.count ?? 0) >= MAX_STREAMS_PER_ORG) {
      throw new AppError(
        'too_many_event_streams',
        `This workspace already has ${MAX_STREAMS_PER_ORG} live event streams open; close one (stop a running \`signet listen\`) and try again.`,
      )
    }
    const [row] = await tx
      .insert(eventStreamSessions)
      .values({ orgId: actor.orgId, apiKeyId, authMethod: actor.authMethod, ip: actor.ip, userAgent: actor.userAgent, startedAt: now, lastSeenAt: now })
      .returning({ id: eventStreamSessions.id })
    if (!row) throw new Error('insert returned no row')
    return row.id
  })
}

/**
 * The heartbeat of this process's open sessions (one statement for all of them). Returns the ids
 * still open: a session missing from it was closed by the sweep (this process went unheard for
 * too long) and no longer counts, so its stream must end.
 */
export async function beatStreamSessions(db: Db, ids: readonly string[], now: Date): Promise<Set<string>> {
  if (ids.length === 0) return new Set()
  const alive = await db
    .update(eventStreamSessions)
    .set({ lastSeenAt: now })
    .where(and(inArray(eventStreamSessions.id, [...ids]), isNull(eventStreamSessions.endedAt)))
    .returning({ id: eventStreamSessions.id })
  return new Set(alive.map((row) => row.id))
}

/** The count so far (written now and then, so a process that dies leaves a count behind). */
export async function recordStreamSession(db: Db, session: { id: string; orgId: string }, eventsSent: number): Promise<void> {
  await db
    .update(eventStreamSessions)
    .set({ eventsSent })
    .where(and(eq(eventStreamSessions.id, session.id), eq(eventStreamSessions.orgId, session.orgId)))
}

/** The end of a session: its count, when and why. A session the sweep already closed keeps the sweep's end. */
export async function endStreamSession(
  db: Db,
  session: { id: string; orgId: string },
  end: { eventsSent: number; endedAt: Date; reason: StreamEndReason },
): Promise<void> {
  await db
    .update(eventStreamSessions)
    .set({
      eventsSent: end.eventsSent,
      endedAt: sql`coalesce(${eventStreamSessions.endedAt}, ${end.endedAt.toISOString()}::timestamptz)`,
      endReason: sql`coalesce(${eventStreamSessions.endReason}, ${end.reason})`,
    })
    .where(and(eq(eventStreamSessions.id, session.id), eq(eventStreamSessions.orgId, session.orgId)))
}

/**
 * The background sweep's part (compose-services.ts): sessions whose process stopped beating are
 * closed as `heartbeat_lost`, ended when they were last seen alive.
 */
export async function closeLostStreamSessions(db: Db, now: Date): Promise<void> {
  await db
    .update(eventStreamSessions)
    .set({ endedAt: sql`${eventStreamSessions.lastSeenAt}`, endReason: 'heartbeat_lost' satisfies StreamEndReason })
    .where(and(isNull(eventStreamSessions.endedAt), lt(eventStreamSessions.lastSeenAt, liveSince(now))))
}
