import { connect, createServer, type Socket } from 'node:net'
import { performance } from 'node:perf_hooks'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { cleanUpProcesses, makeTempDir, startServer, type ServerProcess } from '../../server/test/helpers/processes.ts'
import type { Browser } from 'playwright-core'
import { launchChromium } from '../../server/test/helpers/browser.ts'
import { startWebhookReceiver, verifyStandardSignature, type WebhookReceiver } from '../../server/test/helpers/webhook-receiver.ts'
import {
  buildSignet,
  createCliOrg,
  runSignet,
  signerFromOutbox,
  startSignet,
  uniqueEmail,
  waitForStdout,
  type CliOrg,
  type RunningSignet,
} from './helpers/signet-cli.ts'

/**
 * `signet listen` relays the workspace's live events (GET /api/v1/events) to a local receiver,
 * signed as a registered endpoint gets them, on the Free plan; `signet trigger` sends a test one.
 * The signing run is a real one, in Chromium.
 */

const TIMEOUT_MS = 180_000

interface Ready {
  type: 'ready'
  secret: string
  forward_to: string
  stream_id: string
}

describe('signet listen', () => {
  let server: ServerProcess
  let org: CliOrg
  let receiver: WebhookReceiver
  let listen: RunningSignet
  let ready: Ready
  let browser: Browser

  beforeAll(async () => {
    await buildSignet()
    server = await startServer({ dataDir: makeTempDir('signet-listen-data') })
    org = await createCliOrg(server, makeTempDir('signet-listen'), 'free')
    receiver = await startWebhookReceiver()
    listen = startSignet(['listen', '--forward-to', receiver.url, '--json'], org.env)
    ready = JSON.parse((await waitForStdout(listen, '\n')).split('\n')[0] ?? '') as Ready
    receiver.secret = ready.secret
    browser = await launchChromium()
  }, TIMEOUT_MS)
  afterAll(async () => {
    await browser?.close()
    await receiver.close()
    await cleanUpProcesses()
  }, TIMEOUT_MS)

  test('prints the new secret once and names the stream', () => {
    expect(ready).toEqual({
      type: 'ready',
      forward_to: receiver.url,
      secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/) as unknown,
      stream_id: expect.any(String) as unknown,
    })
  })

  test(
    "forwards a real signing run's viewed, signed and completed events in order, signed, within a second of each",
    async () => {
      const email = uniqueEmail('listen')
      const created = await server.request('/api/v1/documents', {
        method: 'POST',
        key: org.api_key,
        json: { template_id: org.template.id, signer: { email, name: 'Lee Listen' } },
      })
      expect(created.status).toBe(201)
      const { id } = (await created.json()) as { id: string }
      const signer = await signerFromOutbox(server, email)
      const before = receiver.received.length

      // The signer opens the e-mailed link: the page records the view once it has rendered.
      const page = await (await browser.newContext()).newPage()
      await page.goto(`${server.url}/sign/${signer.token}`)
      await page.waitForSelector('body[data-ready]')
      const viewedAt = performance.now()
      await receiver.waitFor(before + 1, 5_000)
      await page.locator('.field[data-type="signature"] .field-control').click()
      await page.getByRole('tab', { name: 'Type' }).click()
      await page.getByRole('button', { name: 'Apply' }).click()
      await page.getByRole('button', { name: 'Finish' }).click()
      await page.getByText('Everyone has signed').waitFor()
      const finishedAt = performance.now()
      await page.context().close()
      const deliveries = (await receiver.waitFor(before + 3, 5_000)).slice(before)

      const events = deliveries.map((d) => JSON.parse(d.body) as { event: string; document_id: string; signer?: { email: string } })
      expect(events.map((e) => [e.event, e.document_id])).toEqual([
        ['document.viewed', id],
        ['document.signed', id],
        ['document.completed', id],
      ])
      expect(events[1]?.signer).toEqual({ email, name: 'Lee Listen' })
      for (const delivery of deliveries) {
        expect(delivery.method).toBe('POST')
        expect(delivery.signatureValid).toBe(true)
        expect(verifyStandardSignature(ready.secret, delivery.body, delivery.headers)).toBe(true)
        expect(delivery.headers['user-agent']).toBe('Signet-Webhooks/1.0')
        expect(delivery.headers['content-type']).toBe('application/json')
      }
      expect(deliveries[0]!.arrivedAt - viewedAt).toBeLessThan(1000)
      expect(deliveries[1]!.arrivedAt - finishedAt).toBeLessThan(1000)
      expect(deliveries[2]!.arrivedAt - finishedAt).toBeLessThan(1000)
      // A webhook-id per event, stable and unique.
      expect(new Set(deliveries.map((d) => d.headers['webhook-id'])).size).toBe(3)

      // The line is printed once the receiver has answered.
      await waitForStdout(listen, '"event":"document.completed"')
      const lines = listen
        .stdout()
        .trim()
        .split('\n')
        .slice(1)
        .map((line) => JSON.parse(line) as { type: string; event: string; status: number })
      expect(lines.slice(-3).map((l) => [l.type, l.event, l.status])).toEqual([
        ['forwarded', 'document.viewed', 200],
        ['forwarded', 'document.signed', 200],
        ['forwarded', 'document.completed', 200],
      ])
    },
    TIMEOUT_MS,
  )

  test('trigger sends a realistic test event through the running listen', async () => {
    const before = receiver.received.length
    const triggered = await runSignet(['trigger', 'document.completed', '--json'], org.env)
    expect(triggered).toMatchObject({ code: 0, stderr: '' })
    expect(JSON.parse(triggered.stdout)).toEqual({ id: expect.any(String) as unknown, event: 'document.completed' })
    const [delivery] = (await receiver.waitFor(before + 1, 5_000)).slice(before)
    expect(JSON.parse(delivery?.body ?? '{}')).toMatchObject({ event: 'document.completed', test: true })
    expect(delivery?.signatureValid).toBe(true)

    const human = await runSignet(['trigger', 'document.signed'], org.env)
    expect(human.stdout).toMatch(/^Triggered document\.signed \(.+\): running `signet listen` sessions of this workspace forward it/)
  })

  test('a --forward-to that is not an http(s) URL: exit 2 and what to write instead', async () => {
    for (const [value, message] of [
      ['ftp://localhost/hooks', '--forward-to must be an http:// or https:// URL (got "ftp://localhost/hooks").\n'],
      ['localhost:4000', '--forward-to must be an http:// or https:// URL (got "localhost:4000").\n'],
      ['not a url', '--forward-to must be a URL such as http://localhost:4000/webhooks (got "not a url").\n'],
    ]) {
      expect(await runSignet(['listen', '--forward-to', value!], org.env)).toMatchObject({ code: 2, stdout: '', stderr: message })
    }
  })

  test(
    'a dropped stream is reopened with Last-Event-ID: an event sent while it was down arrives, once',
    async () => {
      // A TCP relay between the CLI and the server that can cut every connection and refuse new ones.
      const sockets = new Set<Socket>()
      let refusing = false
      const relay = createServer((client) => {
        if (refusing) return void client.destroy()
        const upstream = connect(server.port, '127.0.0.1')
        for (const socket of [client, upstream]) {
          sockets.add(socket)
          socket.on('close', () => sockets.delete(socket))
          socket.on('error', () => undefined)
        }
        client.pipe(upstream).pipe(client)
      })
      await new Promise<void>((resolve) => relay.listen(0, '127.0.0.1', resolve))
      const port = (relay.address() as { port: number }).port
      const relayed = startSignet(['listen', '--forward-to', receiver.url, '--secret', ready.secret], { ...org.env, SIGNET_URL: `http://127.0.0.1:${port}` })
      try {
        await waitForStdout(relayed, 'Ready')
        refusing = true
        for (const socket of sockets) socket.destroy()
        await expect.poll(() => relayed.stderr(), { timeout: 10_000 }).toContain('The event stream closed; reconnecting from event ')

        const before = receiver.received.length
        const triggered = await server.request('/api/v1/events/trigger', { method: 'POST', key: org.api_key, json: { event: 'document.declined' } })
        expect(triggered.status).toBe(202)
        const { id } = (await triggered.json()) as { id: string }
        // The first listen (still connected) forwards it at once; the relayed one only once it is back.
        await receiver.waitFor(before + 1, 5_000)
        refusing = false
        const deliveries = (await receiver.waitFor(before + 2, 20_000)).slice(before)
        expect(deliveries.map((d) => d.headers['webhook-id'])).toEqual([id, id])
        expect(await receiver.countAfter(1_000)).toBe(0)
        expect(relayed.stderr()).toContain('Reconnected.')
        expect(relayed.stdout()).toMatch(/→ document\.declined +200 /)
      } finally {
        relayed.child.kill('SIGINT')
        await relayed.exited
        for (const socket of sockets) socket.destroy()
        await new Promise<void>((resolve) => relay.close(() => resolve()))
      }
    },
    TIMEOUT_MS,
  )

  test('Ctrl-C stops listen cleanly (exit 0)', async () => {
    listen.child.kill('SIGINT')
    expect(await listen.exited).toMatchObject({ code: 0, signal: null })
  })
})
