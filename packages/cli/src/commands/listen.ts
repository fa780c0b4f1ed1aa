import { randomBytes } from 'node:crypto'
import type { EventSourceMessage } from 'eventsource-parser'
import { signWebhook } from '@signet/sdk'
import { connect } from '../client.ts'
import { followEvents } from '../event-stream.ts'
import { EXIT, usageError } from '../exit-codes.ts'
import { onInterrupt } from '../interrupt.ts'
import { bold, dim, green, note, print, red } from '../output.ts'

/** How long the local endpoint has to answer one event (a registered endpoint gets 10 s too). */
const FORWARD_TIMEOUT_MS = 10_000

export interface ListenOptions {
  forwardTo: string
  secret?: string
  json?: boolean
}

function forwardUrl(value: string): string {
  let url: URL
  try {
    url = new URL(value)
  } catch {
    throw usageError(`--forward-to must be a URL such as http://localhost:4000/webhooks (got "${value}").`)
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw usageError(`--forward-to must be an http:// or https:// URL (got "${value}").`)
  return url.href
}

/** A Standard Webhooks secret: whsec_ and the base64 of 32 random bytes, as the server makes them. */
function secretFor(given: string | undefined): string {
  if (given === undefined) return `whsec_${randomBytes(32).toString('base64')}`
  if (!/^whsec_[A-Za-z0-9+/]{20,}={0,2}$/.test(given))
    throw usageError('--secret must be a webhook secret: whsec_ followed by base64 (or leave it out for a new one).')
  return given
}

/** One line per forwarded event: `→ document.signed  200  12 ms`. */
function report(json: boolean, entry: { event: string; id: string; status?: number; error?: string; ms: number }): void {
  if (json) return void process.stdout.write(`${JSON.stringify({ type: 'forwarded', ...entry })}\n`)
  const outcome = entry.status !== undefined ? (entry.status < 300 ? green(String(entry.status)) : red(String(entry.status))) : red(`failed (${entry.error})`)
  print(`→ ${entry.event.padEnd(18)} ${outcome}  ${entry.ms} ms  ${dim(entry.id)}`)
}

async function forward(url: string, secret: string, message: EventSourceMessage, json: boolean): Promise<void> {
  const { id, payload } = JSON.parse(message.data) as { id: string; payload: { event?: unknown } }
  // The exact body and headers a registered endpoint gets for this event.
  const body = JSON.stringify(payload)
  // A triggered event comes as `event: test`; its payload names the type it imitates.
  const event = typeof payload.event === 'string' ? payload.event : (message.event ?? 'message')
  const headers = await signWebhook(secret, { id, timestamp: Math.floor(Date.now() / 1000), body })
  const started = performance.now()
  try {
    const response = await fetch(url, { method: 'POST', headers, body, redirect: 'manual', signal: AbortSignal.timeout(FORWARD_TIMEOUT_MS) })
    await response.body?.cancel()
    report(json, { event, id, status: response.status, ms: Math.round(performance.now() - started) })
  } catch (error) {
    const cause = error instanceof Error ? ((error.cause as { code?: string } | undefined)?.code ?? error.message) : String(error)
    report(json, { event, id, error: cause, ms: Math.round(performance.now() - started) })
  }
}

export async function listen(options: ListenOptions): Promise<number> {
  const target = forwardUrl(options.forwardTo)
  const secret = secretFor(options.secret)
  const { url, apiKey } = connect()
  const interrupted = onInterrupt()
  const json = Boolean(options.json)
  await followEvents({ url, apiKey }, interrupted.signal, interrupted.sleep, {
    onReady(streamId, reconnected) {
      if (reconnected) return json ? undefined : note('Reconnected.')
      if (json) process.stdout.write(`${JSON.stringify({ type: 'ready', forward_to: target, secret, stream_id: streamId })}\n`)
      else
        print(`Forwarding Signet events to ${bold(target)}\nWebhook signing secret for this run: ${bold(secret)}\nReady (stream ${streamId}). Ctrl-C to stop.`)
    },
    onEvent: (message) => forward(target, secret, message, json),
    onReconnecting(lastEventId) {
      if (!json) note(`The event stream closed; reconnecting${lastEventId ? ` from event ${lastEventId}` : ''}…`)
    },
  })
  if (!json) note('Stopped.')
  return EXIT.ok
}
