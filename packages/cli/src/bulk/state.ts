import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs'

/**
 * What a bulk run has finished, kept next to the CSV so that a rerun after Ctrl-C or a crash
 * skips the finished batches and sends the interrupted one again with the same Idempotency-Key
 * (the server then resumes it without sending anyone twice: routes/bulk-send.ts).
 */
export interface BulkState {
  version: 1
  file_sha256: string
  template_id: string
  batch_size: number
  /** Batch index → its outcome. */
  finished: Record<string, { sent: number; not_sent: { email: string; error: string }[] }>
  /** Addresses (lower case) sent by finished batches, kept across edits of the CSV. */
  sent_emails: string[]
}

export function loadState(path: string): BulkState | undefined {
  if (!existsSync(path)) return undefined
  try {
    const state = JSON.parse(readFileSync(path, 'utf8')) as BulkState
    return state.version === 1 && typeof state.finished === 'object' && Array.isArray(state.sent_emails) ? state : undefined
  } catch {
    return undefined
  }
}

/** Written aside and renamed: a crash mid-write leaves the previous state, never half of one. */
export function saveState(path: string, state: BulkState): void {
  const aside = `${path}.${process.pid}.tmp`
  writeFileSync(aside, `${JSON.stringify(state)}\n`)
  renameSync(aside, path)
}
