import { asc, desc, eq } from 'drizzle-orm'
import { insertMany } from '../db/bulk-insert.ts'
import type { Db } from '../db/client.ts'
import { auditEvents } from '../db/schema.ts'
import { sha256Hex } from '../lib/crypto.ts'
import { announceWebhookEventsWritten } from '../events/append-signal.ts'
import { enqueueWebhookDeliveries } from '../webhooks/enqueue.ts'
import { isWebhookEvent } from '../webhooks/webhook-events.ts'
import type { AuditEventType, AuthMethod } from '@signet/vocabulary'

/** Every event the trail records and how its actor proved who they are: enums of the API, each with its words, in @signet/vocabulary. */
export type { AuditEventType, AuthMethod } from '@signet/vocabulary'

export interface AuditEventInput {
  type: AuditEventType
  occurredAt: Date
  signerId?: string | null
  actorEmail?: string | null
  actorName?: string | null
  ip?: string | null
  userAgent?: string | null
  authMethod: AuthMethod
  agentTriggered?: boolean
  data?: Record<string, string | number | boolean | null>
}

export type AuditEvent = typeof auditEvents.$inferSelect

/** The prevHash of a document's first event. */
export const GENESIS_HASH = '0'.repeat(64)

/*
 * Each event's hash covers its content and the previous event's hash, so editing,
 * deleting or reordering any recorded event breaks every later link. The content
 * is serialised in a fixed order (jsonb does not keep key order, so `data` is sorted).
 */
function eventHash(event: Omit<AuditEvent, 'id' | 'hash'>): string {
  const data = Object.fromEntries(Object.entries(event.data).sort(([a], [b]) => (a < b ? -1 : 1)))
  return sha256Hex(
    JSON.stringify([
      event.prevHash,
      event.documentId,
      event.orgId,
      event.seq,
      event.type,
      event.signerId,
      event.actorEmail,
      event.actorName,
      event.ip,
      event.userAgent,
      event.authMethod,
      event.agentTriggered,
      data,
      event.occurredAt.toISOString(),
    ]),
  )
}

/** The rows of `events` chained after (seq, prevHash). */
function chainRows(document: { id: string; orgId: string }, after: { seq: number; hash: string }, events: AuditEventInput[]) {
  let seq = after.seq
  let prevHash = after.hash
  return events.map((input) => {
    seq += 1
    const row = {
      documentId: document.id,
      orgId: document.orgId,
      seq,
      type: input.type,
      signerId: input.signerId ?? null,
      actorEmail: input.actorEmail ?? null,
      actorName: input.actorName ?? null,
      ip: input.ip ?? null,
      userAgent: input.userAgent ?? null,
      authMethod: input.authMethod,
      agentTriggered: input.agentTriggered ?? false,
      data: input.data ?? {},
      occurredAt: input.occurredAt,
      prevHash,
    }
    prevHash = eventHash(row)
    return { ...row, hash: prevHash }
  })
}

async function insertEvents(tx: Db, rows: ReturnType<typeof chainRows>): Promise<void> {
  if (rows.length === 0) return
  // Reading the rows back is only needed to queue webhooks (a bulk send's thousands of document.sent need none).
  if (!rows.some((row) => isWebhookEvent(row.type))) {
    await insertMany(tx, auditEvents, rows)
    return
  }
  const inserted = await tx.insert(auditEvents).values(rows).returning()
  await enqueueWebhookDeliveries(tx, inserted)
  // Live event streams served by this process look for them now rather than at their next poll.
  announceWebhookEventsWritten(rows.map((row) => row.orgId))
}

/**
 * Appends events to a document's trail inside the caller's transaction. The caller
 * must hold the document's row lock (SELECT … FOR UPDATE or an UPDATE of it), which
 * serialises appends; the unique (document_id, seq) index would reject a fork anyway.
 */
export async function appendAuditEvents(tx: Db, document: { id: string; orgId: string }, events: AuditEventInput[]): Promise<void> {
  if (events.length === 0) return
  const [last] = await tx
    .select({ seq: auditEvents.seq, hash: auditEvents.hash })
    .from(auditEvents)
    .where(eq(auditEvents.documentId, document.id))
    .orderBy(desc(auditEvents.seq))
    .limit(1)
  await insertEvents(tx, chainRows(document, last ?? { seq: 0, hash: GENESIS_HASH }, events))
}

/** Opens the trails of documents created in this transaction (no earlier events), in one insert. */
export async function startAuditTrails(tx: Db, entries: { document: { id: string; orgId: string }; events: AuditEventInput[] }[]): Promise<void> {
  await insertEvents(
    tx,
    entries.flatMap(({ document, events }) => chainRows(document, { seq: 0, hash: GENESIS_HASH }, events)),
  )
}

export async function readAuditTrail(db: Db, documentId: string): Promise<AuditEvent[]> {
  return db.select().from(auditEvents).where(eq(auditEvents.documentId, documentId)).orderBy(asc(auditEvents.seq))
}

export type ChainCheck = { intact: true; headHash: string } | { intact: false; brokenAtSeq: number }

/** Recomputes every link of a trail. */
export function checkAuditChain(trail: AuditEvent[]): ChainCheck {
  let prevHash = GENESIS_HASH
  for (const [index, event] of trail.entries()) {
    if (event.seq !== index + 1 || event.prevHash !== prevHash || eventHash(event) !== event.hash) {
      return { intact: false, brokenAtSeq: event.seq }
    }
    prevHash = event.hash
  }
  return { intact: true, headHash: prevHash }
}
