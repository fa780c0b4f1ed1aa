import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { build } from 'esbuild'
import type { Browser } from 'playwright-core'
import { afterAll, beforeAll, expect, test } from 'vitest'
import type * as Sdk from '../src/index.ts'
import { launchChromium } from '../../server/test/helpers/browser.ts'
import { deliveryHeaders, newWebhookSecret } from '../../server/src/webhooks/signature.ts'

/**
 * The SDK in a browser: bundled for the browser platform (a Node built-in anywhere in it fails the
 * build), loaded in Chromium from a loopback origin (a secure context, as WebCrypto needs), it
 * verifies a delivery the server's own signing code made, and calls the API through its client.
 */

let browser: Browser
let server: Server
let origin: string

beforeAll(async () => {
  const bundle = await build({
    entryPoints: [new URL('../src/index.ts', import.meta.url).pathname],
    bundle: true,
    format: 'esm',
    platform: 'browser',
    write: false,
  })
  const script = bundle.outputFiles[0]!.text
  server = createServer((request, response) => {
    if (request.url === '/sdk.js') return response.writeHead(200, { 'content-type': 'text/javascript' }).end(script)
    if (request.url === '/api/v1/usage') return response.writeHead(200, { 'content-type': 'application/json' }).end('{"plan":"pro"}')
    const page = `<!doctype html><title>sdk</title><script type="module">import * as sdk from '/sdk.js'; window.sdk = sdk</script>`
    response.writeHead(200, { 'content-type': 'text/html' }).end(page)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  browser = await launchChromium()
}, 60_000)
afterAll(async () => {
  await browser?.close()
  server?.closeAllConnections()
  await new Promise((resolve) => server?.close(resolve))
})

test('verifyWebhook and the client work in Chromium', async () => {
  const secret = newWebhookSecret()
  const body = JSON.stringify({ event: 'document.completed', occurred_at: new Date().toISOString(), document_id: 'd1', title: 'NDA', status: 'completed' })
  const headers = deliveryHeaders(secret, { id: 'msg_1', timestamp: Math.floor(Date.now() / 1000), body })

  const page = await browser.newPage()
  await page.goto(origin)
  await page.waitForFunction(() => 'sdk' in window)
  const result = await page.evaluate(
    async ({ secret, body, headers }) => {
      const sdk = (window as unknown as { sdk: typeof Sdk }).sdk
      const event = await sdk.verifyWebhook(body, new Headers(headers), secret)
      const forged = await sdk.verifyWebhook(body.replace('NDA', 'Lease'), headers, secret).then(
        () => 'accepted',
        (error: InstanceType<typeof sdk.WebhookVerificationError>) => error.code,
      )
      const signed = await sdk.signWebhook(secret, { id: headers['webhook-id']!, timestamp: Number(headers['webhook-timestamp']), body })
      const usage = await new sdk.Signet({ apiKey: 'sgn_live_x', baseUrl: location.origin }).usage.get()
      return { event, forged, signed, usage }
    },
    { secret, body, headers },
  )
  expect(result.event).toEqual(JSON.parse(body))
  expect(result.forged).toBe('invalid_signature')
  expect(result.signed).toEqual(headers)
  expect(result.usage).toEqual({ plan: 'pro' })
}, 60_000)
