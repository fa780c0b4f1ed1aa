import { fileURLToPath } from 'node:url'
import { buildApp } from '../src/app.ts'
import { loadConfig } from '../src/config.ts'
import { openDatabase } from '../src/db/client.ts'
import { createLogger } from '../src/lib/logger.ts'
import { createServices } from '../src/compose-services.ts'

/** Where the committed document lives: the dashboard's typed client is generated from it. */
export const OPENAPI_FILE = fileURLToPath(new URL('../../web/openapi.json', import.meta.url))

/** The command that rewrites it (named in the drift test's failure). */
export const OPENAPI_COMMAND = 'npm run openapi -w @signet/server'

/** The instance's own address is where the dashboard is served, so the document names none of a machine's. */
const SERVERS = [{ url: '/', description: 'This Signet instance (the routes carry their /api/v1 prefix)' }]

/** The top-level sections in the order OpenAPI documents usually show them; everything below is sorted by key. */
const TOP_LEVEL_ORDER = ['openapi', 'info', 'servers', 'security', 'tags', 'paths', 'components']

function sortedKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortedKeys)
  if (value === null || typeof value !== 'object') return value
  const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
  return Object.fromEntries(entries.map(([key, item]) => [key, sortedKeys(item)]))
}

/** The OpenAPI document as the committed file holds it: pretty-printed, keys in a stable order, servers normalised. */
export function normaliseOpenApi(document: Record<string, unknown>): string {
  const sorted = sortedKeys({ ...document, servers: SERVERS }) as Record<string, unknown>
  const rank = (key: string) => (TOP_LEVEL_ORDER.includes(key) ? TOP_LEVEL_ORDER.indexOf(key) : TOP_LEVEL_ORDER.length)
  const ordered = Object.fromEntries(Object.entries(sorted).sort(([a], [b]) => rank(a) - rank(b)))
  return `${JSON.stringify(ordered, null, 2)}\n`
}

/**
 * Builds the application as the server does, over a throwaway in-memory database with the
 * default configuration (so limits named in descriptions are the defaults), and returns the
 * document its routes produce.
 */
export async function buildOpenApiDocument(): Promise<string> {
  const config = loadConfig({ LOG_LEVEL: 'silent', PUBLIC_URL: 'http://localhost:3000' })
  const database = await openDatabase({ inMemory: true })
  const services = await createServices(config, database, createLogger(config))
  try {
    const app = await buildApp(services)
    try {
      await app.ready()
      return normaliseOpenApi(app.swagger() as unknown as Record<string, unknown>)
    } finally {
      await app.close()
    }
  } finally {
    await services.close()
  }
}
