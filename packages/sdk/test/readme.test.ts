import { spawn, type ChildProcess } from 'node:child_process'
import { readFileSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { freePort } from '../../server/test/helpers/processes.ts'
import { Signet } from '../src/index.ts'
import { cleanUpProcesses, signAs, startInstance, STARTUP_MS, type Instance } from './helpers.ts'

/**
 * The README is a tutorial that runs: its ```ts snippets, in order, make one Node program (imports
 * first), run against a real server with the environment the README tells the reader to set. The
 * test plays Ann (she signs when the program sent her the NDA) and Signet's webhook sender.
 */

const README = fileURLToPath(new URL('../README.md', import.meta.url))
const SDK_ENTRY = pathToFileURL(fileURLToPath(new URL('../src/index.ts', import.meta.url))).href
const TSX = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href

/** The README's ```ts blocks, in order. */
function snippetsOf(markdown: string): string[] {
  return [...markdown.matchAll(/^```ts\n([\s\S]*?)^```$/gm)].map((match) => match[1] ?? '')
}

/** One ES module: every snippet's import lines first (the SDK's name pointed at its source), then the snippets' code. */
function programOf(snippets: string[]): string {
  const lines = snippets.flatMap((snippet) => snippet.split('\n'))
  const imports = lines.filter((line) => line.startsWith('import '))
  const code = lines.filter((line) => !line.startsWith('import '))
  return [...imports.map((line) => line.replace("'@signet/sdk'", `'${SDK_ENTRY}'`)), ...code].join('\n')
}

let instance: Instance
let program: ChildProcess | undefined
let output = ''

beforeAll(async () => {
  instance = await startInstance('readme')
}, STARTUP_MS)
afterAll(async () => {
  program?.kill()
  await cleanUpProcesses()
}, STARTUP_MS)

/** Resolves with the first match of `pattern` in the program's output. */
async function printed(pattern: RegExp, timeoutMs = 30_000): Promise<RegExpExecArray> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const match = pattern.exec(output)
    if (match) return match
    if (program?.exitCode !== null || Date.now() > deadline) throw new Error(`the README program did not print ${pattern}:\n${output}`)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

test('every snippet of the README runs, in order, against a real server', async () => {
  const snippets = snippetsOf(readFileSync(README, 'utf8'))
  expect(snippets.length).toBeGreaterThanOrEqual(7)
  const dir = instance.dataDir
  writeFileSync(join(dir, 'readme.mts'), programOf(snippets))

  // The webhook endpoint the README's handler serves, registered as the dashboard would.
  const port = await freePort()
  const signet = new Signet({ apiKey: instance.org.api_key, baseUrl: instance.server.url })
  const endpoint = await signet.webhooks.create({ url: `http://127.0.0.1:${port}/webhooks/signet` })

  program = spawn(process.execPath, ['--import', TSX, 'readme.mts'], {
    cwd: dir,
    env: { ...process.env, SIGNET_API_KEY: instance.org.api_key, SIGNET_URL: instance.server.url, SIGNET_WEBHOOK_SECRET: endpoint.secret, PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  program.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()))
  program.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()))

  const [, documentId] = await printed(/^Sent (\S+)$/m)
  await printed(/^Embed URL valid until \d{4}-\d\d-\d\dT[\d:.]+Z$/m)
  await printed(/^1 NDA\(s\) waiting for a signature$/m)
  await signAs(instance, 'ann.lee@example.com')
  await printed(/^Signed by ann\.lee@example\.com$/m)
  expect(readFileSync(join(dir, 'nda-signed.pdf')).subarray(0, 5).toString()).toBe('%PDF-')
  expect((await signet.documents.get(documentId!)).status).toBe('completed')
  await printed(/^400 validation_failed \/signer\/email$/m)
  await printed(/^one document$/m)

  // The handler is listening once the program reached it: Signet's signed test event is accepted…
  const deadline = Date.now() + 20_000
  let result = await signet.webhooks.test(endpoint.id)
  while (!result.delivered && Date.now() < deadline) result = await signet.webhooks.test(endpoint.id)
  expect(result).toMatchObject({ delivered: true, status_code: 204 })
  await printed(/^webhook test$/m)
  // …and a forged one is not.
  const forged = await fetch(`http://127.0.0.1:${port}/webhooks/signet`, {
    method: 'POST',
    headers: {
      'webhook-id': 'msg_1',
      'webhook-timestamp': String(Math.floor(Date.now() / 1000)),
      'webhook-signature': 'v1,AAAA',
      'x-service-signature': 'sha256=00',
    },
    body: '{"event":"document.completed"}',
  })
  expect(forged.status).toBe(400)
  expect(await forged.text()).toBe('invalid_signature')
}, 120_000)
