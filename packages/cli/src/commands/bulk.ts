import { createHash } from 'node:crypto'
import { readFileSync, statSync } from 'node:fs'
import { SignetError } from '@signet/sdk'
import { connect } from '../client.ts'
import { parseRecipients, MAX_CSV_BYTES, MAX_ROWS, type RowProblem, type ValidRow } from '../bulk/csv.ts'
import { loadState, saveState, type BulkState } from '../bulk/state.ts'
import { CliError, EXIT, usageError } from '../exit-codes.ts'
import { note, print, printJson } from '../output.ts'

/** Recipients per request: a batch is one server transaction, and the most an interruption can leave to resume. */
const BATCH_SIZE = 100
/** A repeat of a batch the server is still working on is refused (409) until it ends: at most its 60 s budget. */
const IN_PROGRESS_WAIT_MS = 90_000

export interface BulkOptions {
  template: string
  state?: string
  json?: boolean
}

type Signet = ReturnType<typeof connect>['signet']

function readCsv(file: string): Buffer {
  let size: number
  try {
    size = statSync(file).size
  } catch {
    throw usageError(`Cannot read ${file}: no such file.`)
  }
  if (size > MAX_CSV_BYTES)
    throw usageError(
      `${file} is ${(size / 1024 / 1024).toFixed(1)} MB: a bulk send takes at most ${MAX_ROWS.toLocaleString('en')} rows (files up to ${MAX_CSV_BYTES / 1024 / 1024} MB). Split it into smaller files.`,
    )
  return readFileSync(file)
}

/** The row `/recipients/3/email` points at, when the server refused one recipient of the batch. */
const refusedIndex = (error: unknown): number | undefined => {
  if (!(error instanceof SignetError) || error.status !== 400 || !error.field) return undefined
  const match = /^\/recipients\/(\d+)(\/|$)/.exec(error.field)
  return match ? Number(match[1]) : undefined
}

const inProgress = (error: unknown): boolean => error instanceof SignetError && error.code === 'idempotency_key_in_progress'

/**
 * Sends one batch under its key. A recipient the server refuses is dropped (reported as a row
 * error) and the rest sent again under the same key; a repeat the server is still running waits.
 */
async function sendBatch(signet: Signet, templateId: string, batch: ValidRow[], key: string, problems: RowProblem[]) {
  let recipients = batch
  const deadline = Date.now() + IN_PROGRESS_WAIT_MS
  for (;;) {
    try {
      const result = await signet.bulkSend(
        { template_id: templateId, recipients: recipients.map(({ email, name }) => (name ? { email, name } : { email })) },
        { idempotencyKey: key },
      )
      return result
    } catch (error) {
      const index = refusedIndex(error)
      const refused = index !== undefined ? recipients[index] : undefined
      if (refused && error instanceof SignetError) {
        problems.push({ row: refused.row, email: refused.email, error: `refused by Signet: ${error.error}` })
        recipients = recipients.filter((r) => r !== refused)
        if (recipients.length === 0) return undefined
        continue
      }
      if (inProgress(error) && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 1000 * ((error as SignetError).retryAfter ?? 2)))
        continue
      }
      throw error
    }
  }
}

/** A progress bar on a terminal, a line per batch otherwise. */
async function progressReporter(total: number, done: number, json: boolean) {
  if (process.stderr.isTTY && !json) {
    // CommonJS: its module.exports is the default export, in Node and in the bundle alike.
    const { SingleBar, Presets } = (await import('cli-progress')).default
    const bar = new SingleBar(
      { format: 'Sending {bar} {value}/{total} rows · {eta_formatted} left', stream: process.stderr, hideCursor: true },
      Presets.shades_classic,
    )
    bar.start(total, done)
    return { update: (value: number) => bar.update(value), stop: () => bar.stop() }
  }
  return { update: (value: number) => (json ? undefined : note(`sent ${value}/${total} rows`)), stop: () => undefined }
}

export async function bulk(file: string, options: BulkOptions): Promise<number> {
  const bytes = readCsv(file)
  const fileSha256 = createHash('sha256').update(bytes).digest('hex')
  const { valid, problems, rows } = parseRecipients(bytes.toString('utf8'), file)
  const statePath = options.state ?? `${file}.signet-bulk.json`
  const earlier = loadState(statePath)
  const sameRun = earlier?.file_sha256 === fileSha256 && earlier.template_id === options.template && earlier.batch_size === BATCH_SIZE
  // An edited CSV is a new run with new keys, but whoever an earlier version's finished batches sent is not sent again.
  const carried = earlier?.template_id === options.template ? new Set(earlier.sent_emails) : new Set<string>()
  const state: BulkState = sameRun
    ? earlier
    : { version: 1, file_sha256: fileSha256, template_id: options.template, batch_size: BATCH_SIZE, finished: {}, sent_emails: [...carried] }
  const alreadySent = sameRun ? [] : valid.filter((r) => carried.has(r.email.toLowerCase()))
  const pending = sameRun ? valid : valid.filter((r) => !carried.has(r.email.toLowerCase()))
  const batches = Array.from({ length: Math.ceil(pending.length / BATCH_SIZE) }, (_, i) => pending.slice(i * BATCH_SIZE, (i + 1) * BATCH_SIZE))

  const { signet } = connect()
  const sentBefore = alreadySent.length + Object.values(state.finished).reduce((sum, batch) => sum + batch.sent, 0)
  let sent = sentBefore
  const progress = await progressReporter(valid.length, sent, Boolean(options.json))
  process.once('SIGINT', () => {
    progress.stop()
    note(`Interrupted: ${sent} of ${valid.length} rows sent. Run the same command again to send the rest; nobody is sent twice.`)
    process.exit(EXIT.interrupted)
  })
  const notSent: RowProblem[] = []
  try {
    for (const [index, batch] of batches.entries()) {
      const done = state.finished[index]
      if (done) {
        notSent.push(...done.not_sent.map((n) => ({ row: batch.find((r) => r.email === n.email)?.row ?? 0, ...n })))
        continue
      }
      const key = `signet-cli:${fileSha256}:${options.template}:${index}`
      const batchProblems: RowProblem[] = []
      const result = await sendBatch(signet, options.template, batch, key, batchProblems)
      const skipped = [
        ...(result?.skipped_cap_reached ?? []).map((email) => ({ email, error: 'not sent: the plan allowance or spend cap was reached' })),
        ...(result?.skipped_timeout_reached ?? []).map((email) => ({ email, error: "not sent: the server's time budget ran out" })),
      ]
      const finished = { sent: result?.sent ?? 0, not_sent: [...batchProblems.map(({ email, error }) => ({ email, error })), ...skipped] }
      state.finished[index] = finished
      state.sent_emails.push(...(result?.documents ?? []).map((d) => d.email.toLowerCase()))
      saveState(statePath, state)
      notSent.push(...finished.not_sent.map((n) => ({ row: batch.find((r) => r.email === n.email)?.row ?? 0, ...n })))
      sent += finished.sent
      progress.update(sent)
    }
  } finally {
    progress.stop()
  }
  const errors = [...problems, ...notSent].sort((a, b) => a.row - b.row)
  const summary = { file, template_id: options.template, rows, sent, sent_by_earlier_runs: sentBefore, not_sent: errors.length, errors, state_file: statePath }
  if (options.json) printJson(summary)
  else {
    print(
      `Sent ${sent.toLocaleString('en')} of ${rows.toLocaleString('en')} rows${sentBefore ? ` (${sentBefore.toLocaleString('en')} by an earlier run)` : ''}.`,
    )
    if (errors.length > 0) {
      print(`${errors.length} row${errors.length === 1 ? ' was' : 's were'} not sent:`)
      for (const error of errors.slice(0, 20)) print(`  row ${error.row}: ${error.error}`)
      if (errors.length > 20) print(`  … and ${errors.length - 20} more (--json lists them all)`)
    }
  }
  if (sent === 0 && valid.length === 0) throw new CliError(`No row of ${file} can be sent: fix the rows above and run again.`, EXIT.usage)
  return errors.length > 0 ? EXIT.partial : EXIT.ok
}
