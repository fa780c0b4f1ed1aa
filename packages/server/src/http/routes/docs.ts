import { createHash } from 'node:crypto'
import fastifySwaggerUi from '@fastify/swagger-ui'
import type { FastifyPluginAsync } from 'fastify'
import { pageSecurityHeaders } from '../security-headers.ts'

/** Swagger UI's top-bar logo is an SVG carrying this <style>: allowed by its hash, not by opening inline styles. */
const LOGO_STYLE = '.logo_small_svg__cls-2{fill:#fff}.logo_small_svg__cls-3{fill:#85ea2d}'

/*
 * Swagger UI runs only its own bundled script and styles (served from here, no inline
 * script), fetches the OpenAPI document and "Try it out" calls from this origin, and shows
 * image responses (the badge) as blob: URLs.
 */
const DOCS_HEADERS = pageSecurityHeaders({
  'script-src': "'self'",
  'style-src': `'self' 'sha256-${createHash('sha256').update(LOGO_STYLE).digest('base64')}'`,
  'img-src': "'self' data: blob:",
  'connect-src': "'self'",
})

/** The interactive API documentation at /docs (public, like the OpenAPI document it shows). */
export const docsRoutes: FastifyPluginAsync = async (app) => {
  app.addHook('onRequest', (_request, reply, done) => {
    reply.headers(DOCS_HEADERS)
    done()
  })
  await app.register(fastifySwaggerUi, { routePrefix: '/docs' })
}
