/*
 * An in-process nudge from where webhook events are written (audit/audit-trail.ts, the trigger)
 * to the live event streams' pollers (org-feed.ts), so that a stream served by the process
 * that recorded an event need not wait for its next poll. It carries no event: the database
 * stays the only source (another process's events are found by polling), so a lost nudge
 * costs at most one poll interval. Imports nothing, so the audit trail can call it.
 */

type Listener = (orgId: string) => void

const listeners = new Set<Listener>()

/** Calls `listener` with the org of every webhook event this process writes; returns the unsubscribe. */
export function onWebhookEventsWritten(listener: Listener): () => void {
  listeners.add(listener)
  return () => listeners.delete(listener)
}

export function announceWebhookEventsWritten(orgIds: Iterable<string>): void {
  if (listeners.size === 0) return
  for (const orgId of new Set(orgIds)) for (const listener of listeners) listener(orgId)
}
