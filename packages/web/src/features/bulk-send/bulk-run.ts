import type { operations } from '../../api/schema'
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

/**
 * Sends recipients in batches, one request each, reporting progress after each. Stops at the
 * first batch the cap stopped (the rest would be refused too) or the first failed request.
 */
export async function runBulkSend(
  recipients: Recipient[],
  send: (batch: Recipient[]) => Promise<BulkSendResult>,
  onProgress: (progress: BulkProgress) => void,
): Promise<BulkOutcome> {
  const outcome: BulkOutcome = { sent: [], skippedForCap: [], skippedForTime: [], notSent: [], error: null }
  const byEmail = new Map(recipients.map((r) => [r.email.toLowerCase(), r]))
  const recipientsOf = (emails: string[] | undefined) => (emails ?? []).map((email) => byEmail.get(email.toLowerCase()) ?? { email })
  onProgress({ done: 0, total: recipients.length })
  for (let start = 0; start < recipients.length; start += BATCH_SIZE) {
    const batch = recipients.slice(start, start + BATCH_SIZE)
    let result: BulkSendResult
    try {
      result = await send(batch)
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
