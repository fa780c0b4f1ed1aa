import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createInterface } from 'node:readline'

/**
 * Floods measured from outside: /healthz is polled by one child process while another sends the
 * attack. The test servers live in the test's own process, so a poller there would stall with
 * the event loop it measures, and building and sending tens of megabytes from there would be
 * counted against the server.
 */

/** Asks one /healthz at a time (the next 20 ms after each answer), times each on its own clock, reports the slowest when stdin closes. */
const POLLER = `
const url = process.argv[1] + '/healthz'
let stopped = false
let slowest = 0
let answered = 0
const durations = []
process.stdin.on('end', () => (stopped = true)).resume()
;(async () => {
  while (!stopped) {
    const started = performance.now()
    const response = await fetch(url, { signal: AbortSignal.timeout(120000) })
    await response.text()
    if (response.status !== 200) throw new Error('/healthz answered ' + response.status)
    const took = performance.now() - started
    slowest = Math.max(slowest, took)
    durations.push(Math.round(took * 10) / 10)
    if (answered++ === 0) console.log('ready')
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
  console.log(JSON.stringify({ slowestMs: Math.round(slowest), answered, durationsMs: durations }))
})().catch((error) => {
  console.error(String(error))
  process.exit(1)
})
`

/** Reads a JSON plan (a line), loads its bodies, says ready; on "go" sends every request at once and prints their answers as JSON. */
const ATTACKER = `
const { readFileSync } = require('node:fs')
const lines = require('node:readline').createInterface({ input: process.stdin })[Symbol.asyncIterator]()
;(async () => {
  const plan = JSON.parse((await lines.next()).value)
  const bodies = plan.map((request) => readFileSync(request.bodyFile))
  console.log('ready')
  await lines.next()
  const answers = await Promise.all(plan.map(async (request, i) => {
    const response = await fetch(request.url, { method: 'POST', headers: request.headers, body: bodies[i] })
    const text = await response.text()
    let body
    try { body = JSON.parse(text) } catch { body = text }
    return { status: response.status, body }
  }))
  console.log(JSON.stringify(answers))
})().catch((error) => {
  console.error(String(error))
  process.exit(1)
})
`

function start(script: string, args: string[]): { child: ChildProcessWithoutNullStreams; nextLine(): Promise<string> } {
  const child = spawn(process.execPath, ['-e', script, ...args], { stdio: ['pipe', 'pipe', 'pipe'] })
  let stderr = ''
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk))
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]()
  return {
    child,
    async nextLine() {
      const line = await lines.next()
      if (line.done) throw new Error(`a helper process ended early: ${stderr}`)
      return line.value
    },
  }
}

export interface HealthDuring<T> {
  /** What `work` returned. */
  result: T
  /** The slowest /healthz answer while it ran (ms, on the poller's clock). */
  slowestMs: number
  /** How many answers the poller got. */
  answered: number
  /** Every answer's time (ms), in order. */
  durationsMs: number[]
}

/** Runs `work` while a child process polls `${baseUrl}/healthz`; resolves with the work's result and the slowest answer. */
export async function healthDuring<T>(baseUrl: string, work: () => Promise<T>): Promise<HealthDuring<T>> {
  const poller = start(POLLER, [baseUrl])
  try {
    if ((await poller.nextLine()) !== 'ready') throw new Error('the /healthz poller did not start')
    const result = await work()
    // A poll that started during the work ends in the report; one more interval makes sure one did.
    await new Promise((resolve) => setTimeout(resolve, 100))
    poller.child.stdin.end()
    const report = JSON.parse(await poller.nextLine()) as { slowestMs: number; answered: number; durationsMs: number[] }
    return { result, ...report }
  } finally {
    poller.child.kill()
  }
}

export interface AttackRequest {
  url: string
  headers: Record<string, string>
  body: Uint8Array
}

export interface AttackAnswer {
  status: number
  /** The answer's JSON (or its text, when it is not JSON). */
  body: unknown
}

/**
 * Sends all the requests at once from a child process, while another polls /healthz: the
 * answers (in order) and the slowest /healthz answer meanwhile (and for `settleMs` after).
 */
export async function attackFromOutside(
  baseUrl: string,
  requests: AttackRequest[],
  options: { settleMs?: number } = {},
): Promise<HealthDuring<AttackAnswer[]>> {
  const dir = mkdtempSync(join(tmpdir(), 'signet-attack-'))
  try {
    const plan = requests.map((request, i) => {
      const bodyFile = join(dir, `body-${i}`)
      writeFileSync(bodyFile, request.body)
      return { url: request.url, headers: request.headers, bodyFile }
    })
    const attacker = start(ATTACKER, [])
    try {
      attacker.child.stdin.write(`${JSON.stringify(plan)}\n`)
      // The attacker has read its bodies: only sending them is measured.
      if ((await attacker.nextLine()) !== 'ready') throw new Error('the attacking process did not start')
      return await healthDuring(baseUrl, async () => {
        attacker.child.stdin.end('go\n')
        const answers = JSON.parse(await attacker.nextLine()) as AttackAnswer[]
        // Work the server does after answering (accounts made after the answer) is still measured.
        if (options.settleMs) await new Promise((resolve) => setTimeout(resolve, options.settleMs))
        return answers
      })
    } finally {
      attacker.child.kill()
    }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}
