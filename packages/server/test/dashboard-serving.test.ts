import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Fastify from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { DASHBOARD_DIST, dashboardRoutes } from '../src/http/routes/dashboard.ts'
import { startTestServer, type TestServer } from './helpers/test-server.ts'

/** The dashboard's policy: its own scripts only; inline styles for Radix's positioning; pdf.js's worker and blob: images; never framed. */
const DASHBOARD_CSP =
  "default-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; " +
  "img-src 'self' data: blob:; font-src 'self'; connect-src 'self'; worker-src 'self' blob:"

let server: TestServer
let indexHtml: string
beforeAll(async () => {
  if (!existsSync(join(DASHBOARD_DIST, 'index.html'))) {
    throw new Error('packages/web/dist is missing: `npm test` builds it (scripts/ensure-deps.mjs); or run `npm run build -w @signet/web`')
  }
  indexHtml = readFileSync(join(DASHBOARD_DIST, 'index.html'), 'utf8')
  server = await startTestServer()
})
afterAll(() => server.close())

async function get(path: string, headers: Record<string, string> = {}) {
  const response = await server.request(path, { redirect: 'manual', headers })
  return { response, body: await response.text() }
}

describe('the dashboard under /app/', () => {
  it('is where / and /app lead', async () => {
    for (const path of ['/', '/app']) {
      const { response } = await get(path)
      expect(response.status, path).toBe(302)
      expect(response.headers.get('location'), path).toBe('/app/')
    }
  })

  it('answers every client route with index.html under a strict CSP, never cached', async () => {
    for (const path of ['/app/', '/app/login', '/app/settings/api-keys', '/app/documents/0b7e-not-a-real-id', '/app/invite/some-token?x=1']) {
      const { response, body } = await get(path)
      expect(response.status, path).toBe(200)
      expect(response.headers.get('content-type'), path).toMatch(/^text\/html/)
      expect(body, path).toBe(indexHtml)
      expect(response.headers.get('content-security-policy'), path).toBe(DASHBOARD_CSP)
      expect(response.headers.get('x-frame-options'), path).toBe('DENY')
      expect(response.headers.get('cache-control'), path).toBe('no-cache')
      expect(response.headers.get('x-content-type-options'), path).toBe('nosniff')
    }
  })

  it('serves the hashed bundle for a year, compressed when the browser accepts it', async () => {
    const script = /<script type="module" crossorigin src="(\/app\/assets\/[^"]+\.js)"/.exec(indexHtml)?.[1]
    expect(script).toBeDefined()
    const plain = await get(script!)
    expect(plain.response.status).toBe(200)
    expect(plain.response.headers.get('content-type')).toMatch(/javascript/)
    expect(plain.response.headers.get('cache-control')).toBe('public, max-age=31536000, immutable')
    expect(plain.body).toBe(readFileSync(join(DASHBOARD_DIST, script!.replace('/app/', '')), 'utf8'))

    const raw = await fetch(server.url + script!, { headers: { 'accept-encoding': 'br' } })
    expect(raw.headers.get('content-encoding')).toBe('br')
    expect(raw.headers.get('vary')).toMatch(/accept-encoding/i)
    expect(await raw.text()).toBe(plain.body) // fetch decodes br
  })

  it('does not answer a missing asset or a non-GET request with the page', async () => {
    const asset = await get('/app/assets/index-00000000.js')
    expect(asset.response.status).toBe(404)
    expect(JSON.parse(asset.body)).toEqual({ error: 'No route for GET /app/assets/index-00000000.js.', code: 'not_found' })
    const post = await server.request('/app/login', { method: 'POST', json: {} })
    expect(post.status).toBe(404)
    expect(await post.json()).toEqual({ error: 'No route for POST /app/login.', code: 'not_found' })
  })

  it('never serves a file from outside the build', async () => {
    for (const path of ['/app/..%2f..%2fpackage.json', '/app/%2e%2e/%2e%2e/package.json', '/app/assets/..%2f..%2f..%2fserver%2fpackage.json']) {
      const { response, body } = await get(path)
      expect(body, path).not.toContain('"name"')
      expect([200, 403, 404], path).toContain(response.status)
    }
  })
})

describe('a server whose dashboard is not built', () => {
  it('answers 503 with how to build it', async () => {
    const empty = mkdtempSync(join(tmpdir(), 'signet-no-dist-'))
    const app = Fastify()
    await app.register(dashboardRoutes, { distDir: empty })
    try {
      for (const path of ['/app/', '/app/login']) {
        const response = await app.inject(path)
        expect(response.statusCode, path).toBe(503)
        expect(response.headers['content-type'], path).toBe('text/plain; charset=utf-8')
        expect(response.body, path).toContain('npm run build -w @signet/web')
      }
      expect((await app.inject('/')).headers.location).toBe('/app/')
    } finally {
      await app.close()
      rmSync(empty, { recursive: true, force: true })
    }
  })
})
