import type { Browser } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { setupOrg, type TestOrg } from './helpers/api.ts'
import { launchChromium } from './helpers/browser.ts'
import { startTestServer, type TestServer } from './helpers/test-server.ts'
import { haveTools } from '../../../test-support/tools.ts'

let server: TestServer
let org: TestOrg
beforeAll(async () => {
  server = await startTestServer()
  org = await setupOrg(server)
})
afterAll(() => server.close())

/** A Content-Security-Policy header as directive → sources. */
function directivesOf(csp: string | null): Record<string, string[]> {
  return Object.fromEntries(
    (csp ?? '')
      .split(';')
      .map((part) => part.trim().split(/\s+/))
      .filter(([name]) => name)
      .map(([name = '', ...sources]) => [name, sources]),
  )
}

describe('X-Content-Type-Options: nosniff', () => {
  it.each([
    ['a JSON success', () => server.request('/healthz'), 200],
    ['an API error', () => server.request('/api/v1/templates'), 401],
    ['an API success', () => server.request('/api/v1/templates', { key: org.apiKey }), 200],
    [
      'a wrong Content-Type',
      () => server.request('/api/v1/documents', { method: 'POST', key: org.apiKey, body: 'x', headers: { 'content-type': 'text/plain' } }),
      415,
    ],
    ['an unknown route', () => server.request('/no/such/page'), 404],
    ['a path Fastify cannot route (malformed %-escape)', () => server.request('/api/v1/documents/%E0%A4%A'), 400],
    ['the OpenAPI document', () => server.request('/api/v1/openapi.json'), 200],
    ['the docs page', () => server.request('/docs'), 200],
    ['a docs asset', () => server.request('/docs/static/swagger-ui.css'), 200],
    ['the billing page', () => server.request('/billing'), 200],
    ['a signing page', () => server.request('/sign/not-a-token'), 404],
  ])('is sent with %s', async (_label, send, status) => {
    const response = await send()
    await response.arrayBuffer()
    expect(response.status).toBe(status)
    expect(response.headers.get('x-content-type-options')).toBe('nosniff')
  })
})

describe('the API docs (/docs)', () => {
  it('may not be framed and may run only its own scripts and styles', async () => {
    for (const path of ['/docs', '/docs/', '/docs/static/swagger-initializer.js', '/docs/json']) {
      const response = await server.request(path)
      await response.arrayBuffer()
      expect(response.status, path).toBe(200)
      expect(response.headers.get('x-frame-options'), path).toBe('DENY')
      expect(response.headers.get('referrer-policy'), path).toBe('no-referrer')
      const csp = directivesOf(response.headers.get('content-security-policy'))
      expect(csp, path).toMatchObject({
        'default-src': ["'none'"],
        'script-src': ["'self'"],
        'connect-src': ["'self'"],
        'frame-ancestors': ["'none'"],
        'base-uri': ["'none'"],
        'form-action': ["'none'"],
      })
      // Styles: our own files and one fixed inline <style> (Swagger's logo) by its hash, never any inline style.
      expect(csp['style-src']?.[0], path).toBe("'self'")
      expect(csp['style-src']?.slice(1), path).toEqual([expect.stringMatching(/^'sha256-[A-Za-z0-9+/]{43}='$/)])
    }
  })

  it('serves every script and stylesheet its page names, from its own origin', async () => {
    const page = await (await server.request('/docs')).text()
    const assets = [...page.matchAll(/(?:src|href)="([^"]+)"/g)].map((match) => match[1] ?? '')
    expect(assets.filter((asset) => /\.(js|css)$/.test(asset))).toHaveLength(5)
    for (const asset of assets) {
      expect(asset, 'no third-party resource').toMatch(/^\/docs\//)
      const response = await server.request(asset)
      expect(response.status, asset).toBe(200)
      expect((await response.arrayBuffer()).byteLength, asset).toBeGreaterThan(0)
      if (asset.endsWith('.js')) expect(response.headers.get('content-type'), asset).toMatch(/javascript/)
      if (asset.endsWith('.css')) expect(response.headers.get('content-type'), asset).toMatch(/text\/css/)
    }
  })
})

describe('the pages share one strict policy', () => {
  it.each([
    ['the signing page', '/sign/not-a-token', "'self'"],
    ['the verification page', '/verify/00000000-0000-4000-8000-000000000000', "'none'"],
    ['the billing page', '/billing', "'none'"],
  ])('%s may not be framed, leaks no Referer and runs no third-party script', async (_label, path, formAction) => {
    const response = await server.request(path)
    await response.arrayBuffer()
    expect(response.headers.get('content-type')).toMatch(/^text\/html/)
    expect(response.headers.get('x-frame-options')).toBe('DENY')
    expect(response.headers.get('referrer-policy')).toBe('no-referrer')
    const csp = directivesOf(response.headers.get('content-security-policy'))
    expect(csp).toMatchObject({ 'default-src': ["'none'"], 'frame-ancestors': ["'none'"], 'base-uri': ["'none'"], 'form-action': [formAction] })
    expect(csp['script-src'] ?? []).not.toContain("'unsafe-inline'")
  })
})

describe.runIf(haveTools('chromium'))('the API docs in a browser', () => {
  let browser: Browser
  beforeAll(async () => {
    browser = await launchChromium()
  })
  afterAll(() => browser?.close())

  it('render every operation under their CSP, with no violation and no error', async () => {
    const page = await browser.newPage()
    const problems: string[] = []
    page.on('console', (message) => {
      if (message.type() === 'error' || /Content Security Policy/i.test(message.text())) problems.push(message.text())
    })
    page.on('pageerror', (error) => problems.push(error.message))
    await page.addInitScript(() => {
      document.addEventListener('securitypolicyviolation', (event) => console.error(`CSP violation: ${event.violatedDirective} ${event.blockedURI}`))
    })
    await page.goto(`${server.url}/docs`)
    await page.waitForSelector('.opblock-summary-path')
    const paths = await page.$$eval('.opblock-summary-path', (elements) => elements.map((element) => element.getAttribute('data-path')))
    expect(paths).toContain('/api/v1/documents')
    expect(paths).toContain('/api/v1/seals')
    // Opening an operation renders its schemas and examples (more of Swagger UI's styles and scripts at work).
    await page.click('#operations-Documents-createDocument .opblock-summary')
    await page.waitForSelector('#operations-Documents-createDocument .opblock-body')
    expect(problems).toEqual([])
    await page.close()
  })

  it('cannot be framed by another page', async () => {
    const page = await browser.newPage()
    const blocked: string[] = []
    page.on('console', (message) => {
      if (/frame-ancestors|X-Frame-Options/i.test(message.text())) blocked.push(message.text())
    })
    await page.setContent(`<iframe src="${server.url}/docs"></iframe>`)
    await expect.poll(() => blocked.length, { timeout: 10_000 }).toBeGreaterThan(0)
    const framed = page.frames().find((frame) => frame !== page.mainFrame())
    expect(await framed?.$('#swagger-ui')).toBeFalsy()
    await page.close()
  })
})
