import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { mkdirSync } from 'node:fs'
import type { Browser, Frame, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { haveTools } from '../../../test-support/tools.ts'
import { bodyOf, setupOrg, type TestOrg } from './helpers/api.ts'
import { launchChromium } from './helpers/browser.ts'
import { movableClock } from './helpers/clock.ts'
import { sendForSigning } from './helpers/signing.ts'
import { startTestServer, type TestServer } from './helpers/test-server.ts'

/*
 * Embedded signing in Chromium: an integrator's page on another loopback origin
 * (http://localhost:<port>, the server being http://127.0.0.1:<port>) frames the signer page
 * through <signet-signing>, loaded from the server's /embed/signet-signing.js.
 * SIGNET_SCREENSHOTS=1 also refreshes docs/screenshots/embedded-signing-*.png.
 */

const SCREENSHOTS = process.env.SIGNET_SCREENSHOTS === '1' ? new URL('../../../docs/screenshots/', import.meta.url).pathname : undefined
const { clock, advance } = movableClock()

/** The integrator's app: a page that frames ?url= with <signet-signing> and keeps the events it hears. */
function integratorPage(signetUrl: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Acme HR – Onboarding</title>
<style>body{margin:0;font:16px system-ui,sans-serif;background:#f4f1ea;color:#222}header{padding:14px 20px;background:#1d3b2a;color:#fff;font-weight:600}
main{max-width:960px;margin:0 auto;padding:16px}h1{font-size:20px;margin:4px 0 12px}signet-signing{border:1px solid #d6d0c4;border-radius:8px;overflow:hidden;background:#fff}</style>
<script type="module" src="${signetUrl}/embed/signet-signing.js"></script></head>
<body><header>Acme HR</header><main><h1>Step 3 of 4: sign your employment contract</h1>
<signet-signing></signet-signing></main>
<script type="module">
window.signetEvents = []
const element = document.querySelector('signet-signing')
for (const type of ['signet:loaded', 'signet:signed', 'signet:declined', 'signet:error'])
  element.addEventListener(type, (event) => window.signetEvents.push({ type, detail: event.detail }))
element.setAttribute('url', new URL(location.href).searchParams.get('url'))
</script></body></html>`
}

/** One integrator origin: http://localhost:<port> serving integratorPage. */
async function startIntegrator(signetUrl: string): Promise<{ origin: string; server: Server }> {
  const server = createServer((_request, response) => response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(integratorPage(signetUrl)))
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return { origin: `http://localhost:${(server.address() as AddressInfo).port}`, server }
}

let signet: TestServer
let org: TestOrg
let browser: Browser
let registered: { origin: string; server: Server }
let unregistered: { origin: string; server: Server }

describe.runIf(haveTools('chromium'))('embedded signing in a browser', () => {
  beforeAll(async () => {
    signet = await startTestServer({ clock })
    org = await setupOrg(signet, { name: 'Acme HR' })
    registered = await startIntegrator(signet.url)
    unregistered = await startIntegrator(signet.url)
    const saved = await signet.request('/api/v1/settings/embed', { method: 'PUT', key: org.apiKey, json: { origins: [registered.origin] } })
    expect(saved.status).toBe(200)
    browser = await launchChromium()
    if (SCREENSHOTS) mkdirSync(SCREENSHOTS, { recursive: true })
  }, 120_000)
  afterAll(async () => {
    await browser?.close()
    for (const integrator of [registered, unregistered]) await new Promise((resolve) => integrator?.server.close(resolve))
    await signet?.close()
  })

  /** A fresh document's signer and an embed URL for them (as the server the test talks to spells it). */
  async function embedUrl(body: Record<string, unknown> = {}): Promise<{ url: string; documentId: string }> {
    const { documentId } = await sendForSigning(signet, org, { names: ['Dana Reyes'] })
    const document = await bodyOf<{ signers: { id: string }[] }>(await signet.request(`/api/v1/documents/${documentId}`, { key: org.apiKey }))
    const response = await signet.request(`/api/v1/documents/${documentId}/signers/${document.signers[0]!.id}/embed`, {
      method: 'POST',
      key: org.apiKey,
      json: body,
    })
    expect(response.status).toBe(201)
    return { url: signet.url + new URL((await bodyOf<{ url: string }>(response)).url).pathname, documentId }
  }

  async function openIn(origin: string, url: string, viewport = { width: 1280, height: 900 }): Promise<Page> {
    const page = await (await browser.newContext({ viewport })).newPage()
    await page.goto(`${origin}/?url=${encodeURIComponent(url)}`)
    return page
  }

  /** The signer page's frame once it has loaded something from the Signet server. */
  async function signetFrame(page: Page): Promise<Frame> {
    await expect.poll(() => page.frames().some((f) => f.url().startsWith(signet.url)), { timeout: 15_000 }).toBe(true)
    return page.frames().find((f) => f.url().startsWith(signet.url))!
  }

  const events = (page: Page) => page.evaluate(() => (window as unknown as { signetEvents: { type: string; detail: Record<string, unknown> }[] }).signetEvents)

  it('frames the signer page on a registered origin; the signer signs inside it and the parent hears signet:signed', async () => {
    const { url, documentId } = await embedUrl({ parent_origin: registered.origin })
    const page = await openIn(registered.origin, url)
    const frame = await signetFrame(page)
    await frame.waitForSelector('body[data-ready]')
    await expect.poll(() => events(page)).toEqual([{ type: 'signet:loaded', detail: {} }])
    // The element took the height the page reported (up to the window's).
    await expect.poll(async () => (await page.locator('signet-signing iframe').boundingBox())?.height).toBe(900)

    // A message from anything but the element's own frame (here the integrator's page itself) is not the signer's.
    await page.evaluate(() => window.postMessage({ type: 'signet:signed', detail: { forged: true } }, '*'))
    await frame.locator('.field[data-type="signature"] .field-control').click()
    await frame.getByRole('tab', { name: 'Type' }).click()
    await frame.getByRole('button', { name: 'Apply' }).click()
    await frame.locator('.field[data-type="text"] .field-control').fill('Engineer')
    // The progress bar and Finish button animate as the last field fills: let them settle for the picture.
    if (SCREENSHOTS) await page.waitForTimeout(500)
    if (SCREENSHOTS) await page.screenshot({ path: `${SCREENSHOTS}embedded-signing-desktop.png`, fullPage: true })
    await frame.getByRole('button', { name: 'Finish' }).click()
    await expect
      .poll(() => events(page))
      .toEqual([
        { type: 'signet:loaded', detail: {} },
        { type: 'signet:signed', detail: { status: 'signed', document_status: 'completed' } },
      ])
    await frame.getByText('Everyone has signed').waitFor()
    const trail = await bodyOf<{ events: { event: string; data: Record<string, unknown> }[] }>(
      await signet.request(`/api/v1/documents/${documentId}/audit`, { key: org.apiKey }),
    )
    expect(trail.events.filter((e) => e.data.embedded === true).map((e) => e.event)).toEqual(['document.viewed', 'document.signed'])
    await page.context().close()
  })

  it('looks right at phone width', async () => {
    const { url } = await embedUrl({ parent_origin: registered.origin })
    const page = await openIn(registered.origin, url, { width: 390, height: 844 })
    const frame = await signetFrame(page)
    await frame.waitForSelector('body[data-ready]')
    // Nothing of the signer page sticks out sideways in the frame.
    expect(await frame.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true)
    if (SCREENSHOTS) {
      // The frame paints after it reports ready (its PDF page and the element's new height): let it settle for the picture.
      await frame.locator('.field').first().waitFor()
      await page.waitForTimeout(1000)
      await page.screenshot({ path: `${SCREENSHOTS}embedded-signing-phone.png`, fullPage: true })
    }
    await page.context().close()
  })

  it('is refused by the browser on an origin that is not registered (CSP frame-ancestors)', async () => {
    const { url } = await embedUrl()
    const page = await (await browser.newContext()).newPage()
    const refusals: string[] = []
    page.on('console', (message) => {
      if (/frame-ancestors/.test(message.text())) refusals.push(message.text())
    })
    await page.goto(`${unregistered.origin}/?url=${encodeURIComponent(url)}`)
    await expect.poll(() => refusals.length, { timeout: 15_000 }).toBeGreaterThan(0)
    expect(refusals[0]).toContain(`frame-ancestors ${registered.origin}`)
    // No frame shows the signer page, and the parent heard nothing.
    for (const frame of page.frames().slice(1)) expect(await frame.locator('body[data-ready], .field').count()).toBe(0)
    expect(await events(page)).toEqual([])
    await page.context().close()
  })

  it('shows "This link does not work" for a used or an expired embed URL, inside the frame', async () => {
    const { url } = await embedUrl({ parent_origin: registered.origin })
    const first = await openIn(registered.origin, url)
    await (await signetFrame(first)).waitForSelector('body[data-ready]')
    await first.context().close()

    const again = await openIn(registered.origin, url)
    await (await signetFrame(again)).getByRole('heading', { name: 'This link does not work' }).waitFor()
    await again.context().close()

    const { url: stale } = await embedUrl({ parent_origin: registered.origin })
    advance(5 * 60_000 + 1000)
    const late = await openIn(registered.origin, stale)
    await (await signetFrame(late)).getByRole('heading', { name: 'This link does not work' }).waitFor()
    await late.context().close()
  })
})
