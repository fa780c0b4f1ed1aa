import type { AddressInfo } from 'node:net'
import PostalMime, { type Email } from 'postal-mime'
import { SMTPServer } from 'smtp-server'

/** A real SMTP listener on loopback that keeps every message it receives, parsed. */
export interface MailCatcher {
  url: string
  messages: Email[]
  /** SMTP sessions that ended in an error: a sender that dropped its connection mid-message (a server stopped or killed). */
  readonly droppedSessions: number
  /** Resolves once `count` messages to `to` have arrived (or rejects after timeoutMs). */
  waitFor(to: string, count?: number, timeoutMs?: number): Promise<Email[]>
  close(): Promise<void>
}

export async function startMailCatcher(): Promise<MailCatcher> {
  const messages: Email[] = []
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, _session, callback) {
      const chunks: Buffer[] = []
      stream.on('data', (chunk: Buffer) => chunks.push(chunk))
      stream.on('end', () => {
        PostalMime.parse(Buffer.concat(chunks))
          .then((email) => {
            messages.push(email)
            callback()
          })
          .catch((error: Error) => callback(error))
      })
    },
  })
  // A sender that drops its connection mid-message is no failure of the listener: it is counted.
  let droppedSessions = 0
  server.on('error', () => droppedSessions++)
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.server.address() as AddressInfo
  const to = (address: string) => messages.filter((m) => m.to?.some((t) => t.address === address))
  return {
    url: `smtp://127.0.0.1:${port}`,
    messages,
    get droppedSessions() {
      return droppedSessions
    },
    async waitFor(address, count = 1, timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs
      while (to(address).length < count) {
        if (Date.now() > deadline) throw new Error(`expected ${count} message(s) to ${address}, got ${to(address).length}`)
        await new Promise((r) => setTimeout(r, 25))
      }
      return to(address)
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }
}
