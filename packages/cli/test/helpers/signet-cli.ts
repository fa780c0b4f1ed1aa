import { spawn, type ChildProcess } from 'node:child_process'
import { randomUUID } from 'node:crypto'
import { fileURLToPath } from 'node:url'
import { buildCli } from '../../bin/build-cli.mjs'
import { REPO_ROOT, runCliJson, writePdf, type CreatedOrg, type CreatedTemplate, type ServerProcess } from '../../../server/test/helpers/processes.ts'
import { SignerClient, tokenFromMail } from '../../../server/test/helpers/signing.ts'
import type { TestServer } from '../../../server/test/helpers/test-server.ts'

/** `node packages/cli/bin/signet.mjs`, as `npx signet` runs it from the repository. */
const BIN = fileURLToPath(new URL('../../bin/signet.mjs', import.meta.url))

export interface SignetRun {
  code: number | null
  signal: NodeJS.Signals | null
  stdout: string
  stderr: string
}

export interface RunningSignet {
  child: ChildProcess
  stdout(): string
  stderr(): string
  exited: Promise<SignetRun>
}

/** Builds the bundle once up front, so no test pays (or times) the first build. */
export const buildSignet = (): Promise<boolean> => buildCli()

/**
 * Starts the CLI as a child process. Its environment holds only what a user's shell would set for
 * it (and PATH/HOME), so no setting of the test process leaks in; `env` adds SIGNET_URL, keys….
 */
export function startSignet(args: string[], env: Record<string, string> = {}, input?: string): RunningSignet {
  const child = spawn(process.execPath, [BIN, ...args], {
    cwd: REPO_ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', ...env },
    stdio: [input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
  })
  if (input !== undefined) child.stdin?.end(input)
  let stdout = ''
  let stderr = ''
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk))
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk))
  const exited = new Promise<SignetRun>((resolve) => child.once('close', (code, signal) => resolve({ code, signal, stdout, stderr })))
  return { child, stdout: () => stdout, stderr: () => stderr, exited }
}

export const runSignet = (args: string[], env: Record<string, string> = {}, input?: string): Promise<SignetRun> => startSignet(args, env, input).exited

export interface CliOrg extends CreatedOrg {
  template: CreatedTemplate
  env: Record<string, string>
}

/** An org on `plan` with a one-signer template, and the environment that points the CLI at it. */
export async function createCliOrg(server: ServerProcess, configHome: string, plan = 'business'): Promise<CliOrg> {
  const org = await runCliJson<CreatedOrg>(server.dataDir, ['org', 'create', '--name', `CLI ${randomUUID().slice(0, 8)}`, '--plan', plan])
  const pdf = await writePdf(server.dataDir, `template-${randomUUID()}.pdf`, 1)
  const template = await runCliJson<CreatedTemplate>(server.dataDir, ['template', 'create', '--org', org.org_id, '--name', 'NDA', '--pdf', pdf])
  return { ...org, template, env: { SIGNET_URL: server.url, SIGNET_API_KEY: org.api_key, XDG_CONFIG_HOME: configHome } }
}

/** The signer's client, from the invitation in the server's outbox (`admin mail list`). */
export async function signerFromOutbox(server: ServerProcess, email: string): Promise<SignerClient> {
  const deadline = Date.now() + 30_000
  for (;;) {
    const mails = await runCliJson<{ text: string }[]>(server.dataDir, ['mail', 'list', '--to', email, '--limit', '1'])
    if (mails[0]) return new SignerClient(server as unknown as TestServer, tokenFromMail(mails[0].text), email)
    if (Date.now() > deadline) throw new Error(`no invitation to ${email}`)
    await new Promise((resolve) => setTimeout(resolve, 200))
  }
}

export const uniqueEmail = (label = 'signer'): string => `${label}-${randomUUID().slice(0, 12)}@example.com`

/** Resolves with the child's stdout once it holds `text` (rejects if the child exits or time runs out first). */
export async function waitForStdout(running: RunningSignet, text: string, timeoutMs = 30_000): Promise<string> {
  let exited = false
  void running.exited.then(() => (exited = true))
  const deadline = Date.now() + timeoutMs
  while (!running.stdout().includes(text)) {
    if (exited || Date.now() > deadline) throw new Error(`signet never printed ${JSON.stringify(text)}:\n${running.stdout()}\n${running.stderr()}`)
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
  return running.stdout()
}
