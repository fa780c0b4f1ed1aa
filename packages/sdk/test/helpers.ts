import { createServer, type IncomingMessage } from 'node:http'
import type { AddressInfo } from 'node:net'
import {
  makeTempDir,
  runCliJson,
  startServer,
  writePdf,
  type CreatedOrg,
  type CreatedTemplate,
  type ServerProcess,
} from '../../server/test/helpers/processes.ts'
import { pngDataUrl, tokenFromMail } from '../../server/test/helpers/signing.ts'

export { cleanUpProcesses } from '../../server/test/helpers/processes.ts'

/** Process start-up dominates on a loaded 2-core machine. */
export const STARTUP_MS = 240_000

export interface Instance {
  server: ServerProcess
  dataDir: string
  org: CreatedOrg
  /** A one-page template with one signature field for role 0. */
  templateId: string
}

/**
 * The server as `npm start` runs it, with a Business org (every feature; REST sends unmetered) and a
 * template. Loopback webhook URLs are allowed, and finished documents' PDFs are made at once.
 */
export async function startInstance(label: string): Promise<Instance> {
  const dataDir = makeTempDir(label)
  const server = await startServer({ dataDir, env: { WEBHOOK_ALLOW_PRIVATE: 'true', JOB_POLL_MS: '100' } })
  const org = await runCliJson<CreatedOrg>(dataDir, ['org', 'create', '--name', `SDK ${label}`, '--plan', 'business'])
  const pdf = await writePdf(dataDir, 'nda.pdf', 1)
  const template = await runCliJson<CreatedTemplate>(dataDir, ['template', 'create', '--org', org.org_id, '--name', 'NDA', '--pdf', pdf])
  return { server, dataDir, org, templateId: template.id }
}

/** The signer opens the e-mailed link and signs the one signature field, as the signing page does. */
export async function signAs(instance: Instance, email: string): Promise<void> {
  const mails = await runCliJson<{ text: string }[]>(instance.dataDir, ['mail', 'list', '--to', email, '--limit', '1'])
  const token = tokenFromMail(mails[0]?.text)
  const page = await instance.server.request(`/sign/${token}`)
  const cookie = page.headers.get('set-cookie')?.split(';')[0] ?? ''
  await page.body?.cancel()
  const post = (path: string, json: unknown) => instance.server.request(`/sign/${token}${path}`, { method: 'POST', json, headers: { cookie } })
  for (const [path, json] of [
    ['/view', {}],
    ['/finish', { values: { '0': pngDataUrl() } }],
  ] as const) {
    const response = await post(path, json)
    if (!response.ok) throw new Error(`POST ${path} answered ${response.status}: ${await response.text()}`)
  }
}

/** What the proxy does with the n-th request (from 1): pass it on, answer 429 itself, or pass it on and drop the connection instead of answering. */
export type ProxyAction = 'forward' | 'rate-limit' | 'drop-answer'

export interface Proxy {
  url: string
  /** "POST /api/v1/documents" per request, in order, with the action taken. */
  seen: { request: string; action: ProxyAction }[]
  close(): Promise<void>
}

const HOP_BY_HOP = new Set(['host', 'connection', 'content-length', 'transfer-encoding', 'keep-alive'])

async function bodyOf(request: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = []
  for await (const chunk of request) chunks.push(chunk as Buffer)
  return Buffer.concat(chunks)
}

/** A tiny HTTP proxy in front of the server, to make the failures a real network has. */
export async function startProxy(target: string, actionFor: (n: number, request: IncomingMessage) => ProxyAction): Promise<Proxy> {
  const seen: Proxy['seen'] = []
  const server = createServer((request, response) => {
    void (async () => {
      const body = await bodyOf(request)
      const action = actionFor(seen.length + 1, request)
      seen.push({ request: `${request.method} ${request.url}`, action })
      if (action === 'rate-limit') {
        response.writeHead(429, { 'content-type': 'application/json', 'retry-after': '1' })
        response.end(JSON.stringify({ error: 'Rate limit exceeded, retry in 1 seconds.', code: 'rate_limited' }))
        return
      }
      const headers = Object.entries(request.headers).flatMap(([name, value]) =>
        HOP_BY_HOP.has(name) || value === undefined ? [] : [[name, String(value)] as [string, string]],
      )
      const answer = await fetch(target + request.url, { method: request.method, headers, ...(body.length > 0 ? { body: new Uint8Array(body) } : {}) })
      const answerBody = Buffer.from(await answer.arrayBuffer())
      // The server acted and answered; the client never hears it.
      if (action === 'drop-answer') return request.socket.destroy()
      const answerHeaders = [...answer.headers].filter(([name]) => !HOP_BY_HOP.has(name) && name !== 'content-encoding')
      response.writeHead(answer.status, Object.fromEntries(answerHeaders))
      response.end(answerBody)
    })().catch((error: unknown) => {
      response.destroy(error as Error)
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    seen,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}
