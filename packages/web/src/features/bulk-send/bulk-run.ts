import { ApiError } from '../../api/client.ts'
import type { operations } from '@signet/sdk/openapi'
import type { Recipient } from './recipients-csv.ts'

/** POST /documents/bulk-send's answer. */
export type BulkSendResult = operations['bulkSendDocuments']['responses'][201]['content']['application/json']

export interface BulkOutcome {
  sent: { documentId: string; email: string }[]
  /** Not sent: the plan's allowance or the spend cap ran out (at the server, or before a later batch was tried). */
  skippedForCap: Recipient[]
  /** Not sent: a request's time budget ran out; sending them again is safe. */
  skippedForTime: Recipient[]
  /** Not sent because a request failed; `error` says why. */
  notSent: Recipient[]
  error: unknown
}

export interface BulkProgress {
  done: number
  total: number
}

/** Recipients per request: small enough to show progress often, large enough to keep the server's batches full. */
export const BATCH_SIZE = 250

/** A request whose answer never arrived (status 0): the server may or may not have sent the batch. */
const answerLost = (error: unknown): boolean => error instanceof ApiError && error.status === 0

/**
 * One batch under its own Idempotency-Key. When the answer is lost on the way back, the same
 * request is repeated once with the same key: the server replays or resumes it and sends
 * nobody twice.
 */
async function sendBatch(batch: Recipient[], send: BulkSend): Promise<BulkSendResult> {
  const idempotencyKey = crypto.randomUUID()
  try {
    return await send(batch, idempotencyKey)
  } catch (error) {
    if (!answerLost(error)) throw error
    return send(batch, idempotencyKey)
  }
}

export type BulkSend = (batch: Recipient[], idempotencyKey: string) => Promise<BulkSendResult>

/**
 * Sends recipients in batches, one request each, reporting progress after each. Stops at the
 * first batch the cap stopped (the rest would be refused too) or the first failed request.
 */
export async function runBulkSend(recipients: Recipient[], send: BulkSend, onProgress: (progress: BulkProgress) => void): Promise<BulkOutcome> {
  const outcome: BulkOutcome = { sent: [], skippedForCap: [], skippedForTime: [], notSent: [], error: null }
  const byEmail = new Map(recipients.map((r) => [r.email.toLowerCase(), r]))
  const recipientsOf = (emails: string[] | undefined) => (emails ?? []).map((email) => byEmail.get(email.toLowerCase()) ?? { email })
  onProgress({ done: 0, total: recipients.length })
  for (let start = 0; start < recipients.length; start += BATCH_SIZE) {
    const batch = recipients.slice(start, start + BATCH_SIZE)
    let result: BulkSendResult
    try {
      result = await sendBatch(batch, send)
    } catch (error) {
      outcome.error = error
      outcome.notSent.push(...recipients.slice(start))
      break
    }
    outcome.sent.push(...result.documents)
    outcome.skippedForTime.push(...recipientsOf(result.skipped_timeout_reached))
    const capped = recipientsOf(result.skipped_cap_reached)
    onProgress({ done: Math.min(start + batch.length, recipients.length), total: recipients.length })
    if (capped.length > 0) {
      outcome.skippedForCap.push(...capped, ...recipients.slice(start + batch.length))
      break
    }
  }
  return outcome
}

/**
 * The recipient a refusal's `field` points at (/recipients/3/name). The pointer counts in the
 * batch that was refused, and that batch's first recipient is the first one not sent.
 */
export function recipientAt(outcome: BulkOutcome, field: string): Recipient | undefined {
  const [, list, index] = field.split('/')
  return list === 'recipients' && index !== undefined && /^\d+$/.test(index) ? outcome.notSent[Number(index)] : undefined
}
