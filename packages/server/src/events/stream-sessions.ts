import { and, eq } from 'drizzle-orm'
import type { Actor } from '../actors/actor.ts'
import type { Db } from '../db/client.ts'
import { eventStreamSessions } from '../db/schema.ts'

/*
 * The audit record of live event streams (event_stream_sessions): who opened one, how (the
 * key, or a dashboard session), from where, when it started and ended, and how many events it
 * carried. Streams are the workspace's events leaving the service, as webhook deliveries are.
 */

export async function openStreamSession(db: Db, actor: Actor, apiKeyId: string | null, startedAt: Date): Promise<string> {
  const [row] = await db
    .insert(eventStreamSessions)
    .values({ orgId: actor.orgId, apiKeyId, authMethod: actor.authMethod, ip: actor.ip, userAgent: actor.userAgent, startedAt })
    .returning({ id: eventStreamSessions.id })
  if (!row) throw new Error('insert returned no row')
  return row.id
}

/** The count so far (written now and then, so a process that dies leaves a count behind), and `endedAt` once it ends. */
export async function recordStreamSession(db: Db, session: { id: string; orgId: string }, eventsSent: number, endedAt?: Date): Promise<void> {
  await db
    .update(eventStreamSessions)
    .set({ eventsSent, ...(endedAt ? { endedAt } : {}) })
    .where(and(eq(eventStreamSessions.id, session.id), eq(eventStreamSessions.orgId, session.orgId)))
}
