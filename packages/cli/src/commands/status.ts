import type { EventSourceMessage } from 'eventsource-parser'
import { connect, type Session } from '../client.ts'
import { followEvents } from '../event-stream.ts'
import { EXIT, usageError } from '../exit-codes.ts'
import { bold, dim, paintStatus, print, printJson, shortDate, table } from '../output.ts'
import { onInterrupt, sleepUnless } from '../interrupt.ts'

type Signet = ReturnType<typeof connect>['signet']
type DocumentView = Awaited<ReturnType<Signet['documents']['get']>>

/** A document stops changing once it is completed, declined or voided. */
const FINAL = new Set(['completed', 'declined', 'voided'])

function render(document: DocumentView): string {
  const header = `${bold(document.title)}  ${paintStatus(document.status)}\n${dim(`id ${document.id} · created ${shortDate(document.created_at)} · expires ${shortDate(document.expires_at)}`)}\n`
  const rows = document.signers.map((s) => [
    s.name ? `${s.name} <${s.email}>` : s.email,
    s.role_name ?? `Party ${s.role + 1}`,
    paintStatus(s.status),
    shortDate(s.signed_at ?? s.declined_at),
  ])
  return `${header}\n${table(['SIGNER', 'ROLE', 'STATUS', 'WHEN'], rows)}`
}

/** What a watcher prints when something changed: one line per signer or document change. */
function changes(before: DocumentView | undefined, after: DocumentView): string[] {
  const time = new Date().toISOString().slice(11, 19)
  const lines = after.signers.filter((s) => before?.signers.find((b) => b.id === s.id)?.status !== s.status).map((s) => `${time}  ${s.email}  ${s.status}`)
  if (before?.status !== after.status) lines.push(`${time}  document  ${after.status}`)
  return lines
}

export interface StatusOptions {
  watch?: boolean
  interval: number
  json?: boolean
}

export async function status(id: string, options: StatusOptions): Promise<number> {
  if (!Number.isFinite(options.interval) || options.interval < 1) throw usageError('--interval must be a number of seconds, at least 1.')
  const session = connect()
  const document = await session.signet.documents.get(id)
  if (options.watch) return watch(session, document, options)
  if (options.json) printJson(document)
  else print(render(document))
  return 0
}

/** The document id an event of the stream is about (a webhook payload's document_id). */
function documentIdOf(message: EventSourceMessage): string | undefined {
  try {
    const { payload } = JSON.parse(message.data) as { payload?: { document_id?: unknown } }
    return typeof payload?.document_id === 'string' ? payload.document_id : undefined
  } catch {
    return undefined
  }
}

/**
 * Shows the document, and again each time it changes, until it is final. The live event stream
 * says when to read it again (reads are rate-limited: 300 an hour); a read every `interval` seconds
 * covers a server without the stream, or an event missed while it reconnects.
 */
async function watch({ signet, url, apiKey }: Session, first: DocumentView, options: StatusOptions): Promise<number> {
  const interrupted = onInterrupt()
  const finished = new AbortController()
  const stop = AbortSignal.any([interrupted.signal, finished.signal])
  // An event since the last read: read again at once (`pending` keeps one that came during a read).
  let pending = false
  let sleeping: AbortController | undefined
  const wake = () => {
    pending = true
    sleeping?.abort()
  }
  followEvents({ url, apiKey }, stop, (ms) => sleepUnless(stop, ms), {
    // Read once the stream is open: whatever happened before it opened is then seen too.
    onReady: () => wake(),
    onEvent: async (message) => (documentIdOf(message) === first.id ? wake() : undefined),
    onReconnecting: () => undefined,
  }).catch(() => undefined)

  const redraw = process.stdout.isTTY && !options.json
  let drawnLines = 0
  let previous: DocumentView | undefined
  for (let document = first; ; document = await signet.documents.get(first.id)) {
    if (options.json) {
      if (changes(previous, document).length > 0) process.stdout.write(`${JSON.stringify(document)}\n`)
    } else if (redraw) {
      const text = render(document)
      // Up to where the last drawing began, clear to the end, draw again.
      process.stdout.write(`${drawnLines > 0 ? `\u001b[${drawnLines}A\u001b[0J` : ''}${text}`)
      drawnLines = text.split('\n').length - 1
    } else if (!previous) print(render(document))
    else for (const line of changes(previous, document)) print(line)
    previous = document
    if (FINAL.has(document.status)) {
      finished.abort()
      return 0
    }
    if (!pending) {
      sleeping = new AbortController()
      await sleepUnless(AbortSignal.any([interrupted.signal, sleeping.signal]), options.interval * 1000)
    }
    if (interrupted.signal.aborted) return EXIT.interrupted
    pending = false
  }
}
