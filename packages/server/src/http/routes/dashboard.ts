import { existsSync } from 'node:fs'
import { basename, sep } from 'node:path'
import { fileURLToPath } from 'node:url'
import fastifyStatic from '@fastify/static'
import type { FastifyPluginAsync, FastifyReply } from 'fastify'
import { noRouteFor } from '../error-handler.ts'
import { pageSecurityHeaders } from '../security-headers.ts'

/** Where `npm run build -w @signet/web` (run by scripts/ensure-deps.mjs before start) writes the dashboard. */
export const DASHBOARD_DIST = fileURLToPath(new URL('../../../../web/dist/', import.meta.url))

/*
 * The dashboard runs only its own bundled scripts, talks to this origin's API, renders PDF
 * pages with pdf.js (its worker, and page images as blob: URLs). Styles allow 'unsafe-inline'
 * because Radix positions popovers, menus and selects through style attributes; scripts stay
 * strict, so an injected style can restyle the page but never run code.
 */
const INDEX_HEADERS = {
  ...pageSecurityHeaders({
    'script-src': "'self'",
    'style-src': "'self' 'unsafe-inline'",
    'img-src': "'self' data: blob:",
    'font-src': "'self'",
    'connect-src': "'self'",
    'worker-src': "'self' blob:",
    'form-action': "'self'",
  }),
  'cache-control': 'no-cache',
}

/** Vite names every file under assets/ by its content hash: it never changes, so browsers may keep it a year. */
function setCacheHeaders(reply: FastifyReply, path: string): void {
  if (basename(path).startsWith('index.html')) return void reply.headers(INDEX_HEADERS)
  const immutable = path.includes(`${sep}assets${sep}`)
  void reply.header('cache-control', immutable ? 'public, max-age=31536000, immutable' : 'no-cache')
}

/**
 * The single-page dashboard under /app/: built files from packages/web/dist (with the
 * precompressed .br/.gz copies the build writes), and index.html for every other /app/ path
 * so that client routes survive a reload. `/` leads there.
 */
export const dashboardRoutes: FastifyPluginAsync<{ distDir?: string }> = async (app, { distDir = DASHBOARD_DIST }) => {
  const indexFile = `${distDir}${sep}index.html`
  const hidden = { schema: { hide: true } }
  app.get('/', hidden, (_request, reply) => reply.redirect('/app/', 302))
  app.get('/app', hidden, (_request, reply) => reply.redirect('/app/', 302))

  await app.register(
    async (scope) => {
      await scope.register(fastifyStatic, {
        root: distDir,
        prefix: '/',
        preCompressed: true,
        setHeaders: setCacheHeaders,
        // The build may not exist yet when the server starts: requests answer 503 until it does.
        suppressWarning: true,
      })
      scope.setNotFoundHandler((request, reply) => {
        if (!existsSync(indexFile)) {
          return reply
            .status(503)
            .type('text/plain; charset=utf-8')
            .send('The dashboard has not been built. Run `npm run build -w @signet/web` (npm start does it for you), then reload.\n')
        }
        const path = request.url.split('?')[0] ?? ''
        // A missing hashed file is an old deploy's asset, not a client route: index.html would be parsed as script.
        if ((request.method !== 'GET' && request.method !== 'HEAD') || path.startsWith('/app/assets/')) {
          return reply.status(404).send(noRouteFor(request.method, path))
        }
        return reply.sendFile('index.html')
      })
    },
    { prefix: '/app' },
  )
}
