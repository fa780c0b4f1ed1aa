import { connect, createServer, type Socket } from 'node:net'
import type { AddressInfo } from 'node:net'

export interface LocalhostOrigin {
  /** http://localhost:<port>: give it to the server as PUBLIC_URL and open the dashboard there. */
  url: string
  /** Relays every connection to this http://127.0.0.1:<port> (the test server's url) from now on. */
  forwardTo(target: string): void
  close(): Promise<void>
}

/**
 * Passkeys (WebAuthn) work only on a page whose host is a name, never an IP address, in a
 * secure context: http://localhost is both. The server takes that origin as PUBLIC_URL (its
 * relying party id and the origin passkeys must answer from) before it listens, on a port it
 * learns only then; so this opens http://localhost:<port> first, as a plain TCP relay that
 * forwards to the test server once it runs. The browser never sees the relay: same bytes,
 * same Host header.
 */
export async function openLocalhostOrigin(): Promise<LocalhostOrigin> {
  let target: { host: string; port: number } | null = null
  const sockets = new Set<Socket>()
  const track = (socket: Socket) => {
    sockets.add(socket)
    socket.on('close', () => sockets.delete(socket))
    socket.on('error', () => socket.destroy())
  }
  const relay = createServer((client) => {
    track(client)
    if (!target) return client.destroy()
    const upstream = connect(target.port, target.host)
    track(upstream)
    upstream.on('close', () => client.destroy())
    client.on('close', () => upstream.destroy())
    client.pipe(upstream)
    upstream.pipe(client)
  })
  await new Promise<void>((resolve, reject) => {
    relay.once('error', reject)
    relay.listen(0, '127.0.0.1', () => resolve())
  })
  const { port } = relay.address() as AddressInfo
  return {
    url: `http://localhost:${port}`,
    forwardTo(url) {
      const parsed = new URL(url)
      target = { host: parsed.hostname, port: Number(parsed.port) }
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy()
        relay.close(() => resolve())
      }),
  }
}
