/**
 * The baselines as a server process of their own, configured like the server under test (the
 * same environment, the app's logger at the same level, the database opened the same way):
 * `GET /bare` answers a constant, `GET /one-query/:id` does one prepared select of a document
 * row by id (the read's floor) and answers six of its fields.
 *
 * Started with fork() by bench/server-process.ts; sends `{ url }` over IPC once it listens.
 */
import type { AddressInfo } from 'node:net'
import Fastify from 'fastify'
import { eq, sql } from 'drizzle-orm'
import { documents } from '../packages/server/src/db/schema.ts'
import { loadConfig } from '../packages/server/src/config.ts'
import { openInstanceDatabase } from '../packages/server/src/db/instance.ts'
import { createLogger } from '../packages/server/src/lib/logger.ts'

const config = loadConfig()
const database = await openInstanceDatabase(config)
const byId = database.db
  .select()
  .from(documents)
  .where(eq(documents.id, sql.placeholder('id')))
  .prepare('bench_one_query')

const app = Fastify({ loggerInstance: createLogger(config) })
app.get('/bare', () => ({ hello: 'world' }))
app.get<{ Params: { id: string } }>('/one-query/:id', async (request) => {
  const [row] = await byId.execute({ id: request.params.id })
  return { id: row?.id, title: row?.title, status: row?.status, created_at: row?.createdAt, updated_at: row?.updatedAt, expires_at: row?.expiresAt }
})
await app.listen({ port: 0, host: '127.0.0.1' })
process.send?.({ url: `http://127.0.0.1:${(app.server.address() as AddressInfo).port}` })
process.on('SIGTERM', () => {
  void app
    .close()
    .then(() => database.close())
    .then(() => process.exit(0))
})
