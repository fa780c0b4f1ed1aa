import type { DocumentStatus } from '../db/schema.ts'
import type { WebhookEventType } from './webhook-events.ts'

/*
 * The document's status at the moment of each event: a view or a signature happens
 * while the document is out for signature (a last signature's completion is its own
 * event), so reading the row later could only report something newer.
 */
const STATUS_AT_EVENT: Record<WebhookEventType, DocumentStatus> = {
  'document.viewed': 'sent',
  'document.signed': 'sent',
  'document.completed': 'completed',
  'document.declined': 'declined',
}

export interface WebhookPayloadInput {
  event: WebhookEventType
  occurredAt: Date
  documentId: string
  title: string
  signer: { email: string; name: string | null } | null
}

/**
 * The raw JSON body of a delivery, keys in the spec's order (`event, occurred_at,
 * document_id, title, status, signer`). It is built once, stored, signed and sent byte
 * for byte, so a retry or a redelivery carries exactly the same body. `signer` is left
 * out on document.completed; its `name` is null when the sender gave none.
 */
export function webhookPayload(input: WebhookPayloadInput): string {
  return JSON.stringify({
    event: input.event,
    occurred_at: input.occurredAt.toISOString(),
    document_id: input.documentId,
    title: input.title,
    status: STATUS_AT_EVENT[input.event],
    ...(input.event !== 'document.completed' && input.signer ? { signer: { email: input.signer.email, name: input.signer.name } } : {}),
  })
}

/** An audit trail row of one of the four webhook events, as much of it as its delivery body needs. */
export interface WebhookAuditRow {
  occurredAt: Date
  documentId: string
  actorEmail: string | null
  actorName: string | null
}

/** The delivery body of an audit trail row: what a registered endpoint and a live event stream both get. */
export const auditEventPayload = (event: WebhookEventType, row: WebhookAuditRow, title: string): string =>
  webhookPayload({
    event,
    occurredAt: row.occurredAt,
    documentId: row.documentId,
    title,
    signer: row.actorEmail ? { email: row.actorEmail, name: row.actorName } : null,
  })
