import { and, asc, eq, gt, gte, inArray, max, notInArray } from 'drizzle-orm'
import type { Db } from '../db/client.ts'
import { auditEvents, documents, streamTestEvents } from '../db/schema.ts'
import { invalid } from '../errors.ts'
import { auditEventPayload } from '../webhooks/payload.ts'
import { WEBHOOK_EVENT_TYPES, type WebhookEventType } from '../webhooks/webhook-events.ts'

/*
 * What a live event stream carries: the workspace's four webhook events, read from the audit
 * trail (the same rows that queue webhook deliveries), and the test events `signet trigger`
 * made (stream_test_events). Both tables number their rows with a bigserial, so a position in
 * the stream is a pair of row ids: the cursor.
 */

/** A position in both sources: every event at or below it was sent (or predates the stream). */
export interface StreamCursor {
  audit: number
  test: number
}

export interface StreamEvent {
  /** Which source and row, unique across both ('a123', 't7'): what streams de-duplicate on. */
  key: string
  source: keyof StreamCursor
  rowId: number
  /** The SSE event name: the webhook event's type, or `test` for a triggered one. */
  name: WebhookEventType | 'test'
  /** The event's id in the stream's data, stable across reconnects: evt_123, evt_test_7. */
  id: string
  /** The JSON body a webhook delivery of this event carries, byte for byte. */
  payload: string
}

/** SSE ids are `<audit row>.<test row>`: opaque to clients, who only echo them as Last-Event-ID. */
export const formatCursor = (cursor: StreamCursor): string => `${cursor.audit}.${cursor.test}`

const CURSOR_PATTERN = /^(\d{1,15})\.(\d{1,15})$/

export function parseCursor(text: string): StreamCursor {
  const match = CURSOR_PATTERN.exec(text.trim())
  if (!match) throw invalid(`Last-Event-ID must be the id of an event this stream sent (two numbers joined by a dot, e.g. 1042.7); got "${text.slice(0, 40)}".`)
  return { audit: Number(match[1]), test: Number(match[2]) }
}

/** The cursor after `event`: a late-committed event below it leaves it where it is. */
export const advance = (cursor: StreamCursor, event: StreamEvent): StreamCursor =>
  event.rowId > cursor[event.source] ? { ...cursor, [event.source]: event.rowId } : cursor

export const testEventId = (rowId: number): string => `evt_test_${rowId}`

/**
 * The newest row of each source now: every audit event (of all orgs: the id sequence is
 * shared, and the whole table's maximum is one index lookup) and this org's test events.
 */
export async function latestCursor(db: Db, orgId: string): Promise<StreamCursor> {
  const [audit] = await db.select({ top: max(auditEvents.id) }).from(auditEvents)
  const [test] = await db
    .select({ top: max(streamTestEvents.id) })
    .from(streamTestEvents)
    .where(eq(streamTestEvents.orgId, orgId))
  return { audit: Number(audit?.top ?? 0), test: Number(test?.top ?? 0) }
}

export interface EventRead {
  /** Rows at or below it are not read. */
  after: StreamCursor
  /** Keys already sent, left out by the query. */
  skip?: ReadonlySet<string>
  /** Events older than this are not read (a reconnect resumes at most an hour back). */
  since?: Date
}

const rowIdsOf = (skip: ReadonlySet<string> | undefined, prefix: string): number[] =>
  [...(skip ?? [])].filter((key) => key.startsWith(prefix)).map((key) => Number(key.slice(prefix.length)))

/**
 * The org's events after `read.after`, audit events in id order (which is each document's
 * seq order: appends to a document are serialised by its row lock) and then test events.
 * Two indexed range scans: audit_events by (id, type), stream_test_events by (org_id, id).
 */
export async function readEvents(db: Db, orgId: string, read: EventRead): Promise<StreamEvent[]> {
  const skipAudit = rowIdsOf(read.skip, 'a')
  const skipTest = rowIdsOf(read.skip, 't')
  const auditRows = await db
    .select({
      id: auditEvents.id,
      type: auditEvents.type,
      occurredAt: auditEvents.occurredAt,
      documentId: auditEvents.documentId,
      actorEmail: auditEvents.actorEmail,
      actorName: auditEvents.actorName,
      title: documents.title,
    })
    .from(auditEvents)
    .innerJoin(documents, eq(documents.id, auditEvents.documentId))
    .where(
      and(
        gt(auditEvents.id, read.after.audit),
        inArray(auditEvents.type, [...WEBHOOK_EVENT_TYPES]),
        eq(auditEvents.orgId, orgId),
        read.since ? gte(auditEvents.occurredAt, read.since) : undefined,
        skipAudit.length > 0 ? notInArray(auditEvents.id, skipAudit) : undefined,
      ),
    )
    .orderBy(asc(auditEvents.id))
  const testRows = await db
    .select({ id: streamTestEvents.id, payload: streamTestEvents.payload })
    .from(streamTestEvents)
    .where(
      and(
        eq(streamTestEvents.orgId, orgId),
        gt(streamTestEvents.id, read.after.test),
        read.since ? gte(streamTestEvents.createdAt, read.since) : undefined,
        skipTest.length > 0 ? notInArray(streamTestEvents.id, skipTest) : undefined,
      ),
    )
    .orderBy(asc(streamTestEvents.id))
  return [
    ...auditRows.map((row): StreamEvent => {
      const type = row.type as WebhookEventType
      // As webhooks/enqueue.ts builds a delivery's body: a registered endpoint gets these same bytes.
      const payload = auditEventPayload(type, row, row.title)
      return { key: `a${row.id}`, source: 'audit', rowId: row.id, name: type, id: `evt_${row.id}`, payload }
    }),
    ...testRows.map((row): StreamEvent => ({ key: `t${row.id}`, source: 'test', rowId: row.id, name: 'test', id: testEventId(row.id), payload: row.payload })),
  ]
}
