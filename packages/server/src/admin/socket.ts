import { chmodSync, rmSync } from 'node:fs'
import { createServer, type IncomingMessage } from 'node:http'
import { AppError } from '../errors.ts'
import type { Services } from '../services.ts'
import { executeAdminCommand, parseAdminCommand } from './commands.ts'
import { adminSocketPath } from './socket-path.ts'

const MAX_COMMAND_BYTES = 40 * 1024 * 1024

async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = []
  let size = 0
  for await (const chunk of request) {
    size += (chunk as Buffer).length
    if (size > MAX_COMMAND_BYTES) throw new AppError('payload_too_large', 'Admin command too large.')
    chunks.push(chunk as Buffer)
  }
  return Buffer.concat(chunks).toString('utf8')
}

/**
 * While the server owns the embedded database, the operator CLI sends its commands here.
 * A Unix socket readable only by the instance's user: file permissions are the access control.
 */
export async function startAdminSocket(services: Services): Promise<{ close(): Promise<void> }> {
  const path = adminSocketPath(services.config.dataDir)
  // We hold the instance lock, so a socket file left here belongs to a crashed process.
  rmSync(path, { force: true })
  const server = createServer((request, response) => {
    const reply = (status: number, body: unknown) => {
      // One command per connection: nothing idles on the socket to hold up a shutdown.
      response.writeHead(status, { 'content-type': 'application/json', connection: 'close' })
      response.end(JSON.stringify(body))
    }
    readBody(request)
      .then((body) => executeAdminCommand(services, parseAdminCommand(JSON.parse(body))))
      .then((result) => reply(200, { result }))
      .catch((error: unknown) => {
        if (error instanceof AppError) return reply(error.status, error.body)
        if (error instanceof SyntaxError) return reply(400, { error: 'Admin command is not valid JSON.', code: 'invalid_json' })
        services.logger.error({ err: error }, 'admin command failed')
        reply(500, { error: 'Admin command failed; see the server log.', code: 'internal_error' })
      })
  })
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(path, () => resolve())
  })
  chmodSync(path, 0o600)
  return {
    // Stops accepting and closes idle connections; a command already received runs to completion first.
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }
}
