import { createParser, type EventSourceMessage } from 'eventsource-parser'
import type { Credentials } from './config.ts'
import { CliError, EXIT } from './exit-codes.ts'

/** Waits between reconnection attempts after the stream dropped, growing to the last. */
const RECONNECT_DELAYS_MS = [250, 500, 1000, 2000, 5000]

export interface StreamHandlers {
  /** The `ready` message: first (`reconnected` false) and after each reconnection. */
  onReady(streamId: string, reconnected: boolean): void
  /** Each event, in order; the next is not handed over before this one's promise settles. */
  onEvent(message: EventSourceMessage): Promise<void>
  /** The stream closed and is about to be reopened from `lastEventId`. */
  onReconnecting(lastEventId: string | undefined): void
}

/**
 * Follows GET /api/v1/events (Server-Sent Events) until `signal` aborts: events are handed over one
 * at a time, and a dropped stream is reopened with Last-Event-ID (the last event handled, or the
 * ready message's position), so none is missed or repeated. A refused key or a server without the
 * route ends it with a CliError; a server that cannot be reached before the first `ready` rethrows.
 */
export async function followEvents({ url, apiKey }: Credentials, signal: AbortSignal, sleep: (ms: number) => Promise<boolean>, handlers: StreamHandlers) {
  let lastEventId: string | undefined
  let failures = 0
  let connected = false

  while (!signal.aborted) {
    let response: Response | undefined
    try {
      response = await fetch(`${url}/api/v1/events`, {
        headers: { authorization: `Bearer ${apiKey}`, accept: 'text/event-stream', ...(lastEventId ? { 'last-event-id': lastEventId } : {}) },
        signal,
      })
    } catch (error) {
      if (signal.aborted) return
      // Never connected at all: the server is not there (reportError says so). Later, it may be restarting.
      if (!connected) throw error
      failures++
    }
    if (response) {
      if (response.status === 401) throw new CliError('Signet refused the API key (invalid_api_key) — check SIGNET_API_KEY, or run `signet login`.', EXIT.auth)
      if (response.status !== 200 || !response.body) {
        const text = await response.text().catch(() => '')
        throw new CliError(`Signet refused the event stream: HTTP ${response.status} ${text.slice(0, 200)} — does this server have \`GET /api/v1/events\`?`)
      }
      let queue = Promise.resolve()
      const parser = createParser({
        onEvent: (message) => {
          if (message.event === 'ready') {
            failures = 0
            // The ready message carries the stream's position: a reconnect from it misses nothing.
            if (message.id && !lastEventId) lastEventId = message.id
            handlers.onReady((JSON.parse(message.data) as { stream_id: string }).stream_id, connected)
            connected = true
            return
          }
          queue = queue.then(async () => {
            await handlers.onEvent(message)
            if (message.id) lastEventId = message.id
          })
        },
      })
      try {
        const decoder = new TextDecoder()
        const reader = response.body.getReader()
        for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) parser.feed(decoder.decode(chunk.value, { stream: true }))
      } catch {
        // The stream dropped (or Ctrl-C): reconnect below, or stop.
      }
      await queue
      failures++
    }
    if (signal.aborted) return
    handlers.onReconnecting(lastEventId)
    if (await sleep(RECONNECT_DELAYS_MS[Math.min(failures, RECONNECT_DELAYS_MS.length) - 1] ?? 250)) return
  }
}
