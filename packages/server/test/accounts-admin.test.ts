import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { bodyOf, expectError } from './helpers/api.ts'
import { createScratchDatabase } from './helpers/postgres.ts'
import { cleanUpProcesses, makeTempDir, runCli, startServer, type ServerProcess } from './helpers/processes.ts'
import { sessionCookieOf, sessionFetch, TEST_PASSWORD, uniqueUserEmail } from './helpers/session.ts'

/**
 * `admin user …` as the operator runs it, next to a real `server.ts` process (which also
 * prints the operator setup link on its first start). PostgreSQL runs get a scratch database:
 * "no operator yet" must be true of this instance alone.
 */
const TIMEOUT_MS = 240_000
let server: ServerProcess
let dataDir: string
let env: NodeJS.ProcessEnv = {}
let dropScratch: (() => Promise<void>) | undefined

beforeAll(async () => {
  dataDir = makeTempDir('accounts-admin')
  if (process.env.DATABASE_URL) {
    const scratch = await createScratchDatabase(process.env.DATABASE_URL)
    env = { DATABASE_URL: scratch.url }
    dropScratch = scratch.drop
  }
  // At info level the log has lines to search for the setup token (it must be in none of them).
  server = await startServer({ dataDir, env: { ...env, LOG_LEVEL: 'info' } })
}, TIMEOUT_MS)
afterAll(async () => {
  await cleanUpProcesses()
  await dropScratch?.()
}, TIMEOUT_MS)

interface UserSummary {
  id: string
  email: string
  is_operator: boolean
  disabled: boolean
  email_verified: boolean
  workspaces: { id: string; name: string; role: string }[]
}

async function admin<T>(args: string[]): Promise<T> {
  const result = await runCli(dataDir, args, env)
  if (result.code !== 0) throw new Error(`admin ${args.join(' ')} exited ${result.code}: ${result.stderr}`)
  return JSON.parse(result.stdout) as T
}

const logIn = (email: string, password: string) =>
  fetch(`${server.url}/api/v1/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email, password }) })

describe('a fresh instance', () => {
  it('prints where to open the dashboard and a one-time operator setup link, never in the log', async () => {
    // Printed just after the server starts answering.
    for (let waited = 0; !server.output().includes('setup?token=') && waited < 20_000; waited += 50) await new Promise((r) => setTimeout(r, 50))
    const output = server.output()
    expect(output).toMatch(/Signet is running\. Open the dashboard: http:\/\/[^\s]+\/app\/\n/)
    expect(output).toMatch(/ {2}http:\/\/[^\s]+\/app\/setup\?token=[A-Za-z0-9_-]{43}\n/)
    const token = /setup\?token=([A-Za-z0-9_-]{43})/.exec(output)?.[1] ?? ''
    // Only the banner carries it: no JSON log line does.
    const logLines = output.split('\n').filter((line) => line.startsWith('{'))
    expect(logLines.some((line) => line.includes('"msg":"Signet is ready"'))).toBe(true)
    expect(logLines.filter((line) => line.includes(token))).toEqual([])
  })
})

describe('admin user commands', () => {
  it('creates, lists, promotes and disables users; disabling ends their sessions', { timeout: TIMEOUT_MS }, async () => {
    const org = await admin<{ org_id: string }>(['org', 'create', '--name', 'CLI Org'])
    const email = uniqueUserEmail('cli')
    const created = await admin<UserSummary>([
      'user',
      'create',
      '--email',
      email,
      '--name',
      'Cleo CLI',
      '--password',
      TEST_PASSWORD,
      '--org',
      org.org_id,
      '--role',
      'admin',
    ])
    expect(created).toMatchObject({ email, is_operator: false, disabled: false, email_verified: true, workspaces: [{ id: org.org_id, role: 'admin' }] })

    const weak = await runCli(dataDir, ['user', 'create', '--email', uniqueUserEmail(), '--name', 'W', '--password', 'short'], env)
    expect(weak.code).toBe(1)
    expect(weak.stderr).toContain('Choose a password of at least 8 characters.')
    const both = await runCli(dataDir, ['user', 'create', '--email', uniqueUserEmail(), '--name', 'W'], env)
    expect(both.stderr).toContain('exactly one of --password and --password-stdin')

    const operatorEmail = uniqueUserEmail('root')
    // The password on standard input, as `--password-stdin` reads it.
    const fromStdin = await runCli(
      dataDir,
      ['user', 'create', '--email', operatorEmail, '--name', 'Rita Root', '--password-stdin', '--operator'],
      env,
      `${TEST_PASSWORD}\n`,
    )
    expect(fromStdin.code).toBe(0)
    // Without --org, a workspace of their own (as sign-up gives), where they can work at once.
    expect(JSON.parse(fromStdin.stdout)).toMatchObject({
      email: operatorEmail,
      is_operator: true,
      workspaces: [{ name: "Rita Root's workspace", role: 'owner' }],
    })
    const operatorSession = sessionFetch(server.url, sessionCookieOf(await logIn(operatorEmail, TEST_PASSWORD)) ?? '')
    expect((await operatorSession('/api/v1/templates')).status).toBe(200)
    expect(await bodyOf(await operatorSession('/api/v1/me'))).toMatchObject({
      workspace: { name: "Rita Root's workspace", role: 'owner', plan: 'free' },
      abilities: { manage_members: true, manage_identity_check: true, operate_instance: true },
    })
    // With an operator, the instance no longer asks for setup.
    expect(await bodyOf(await fetch(`${server.url}/api/v1/instance`))).toMatchObject({ setup_required: false })

    const login = await logIn(email, TEST_PASSWORD)
    expect(login.status).toBe(200)
    const session = sessionFetch(server.url, sessionCookieOf(login) ?? '')
    expect(await bodyOf(await session('/api/v1/me'))).toMatchObject({ workspace: { id: org.org_id, role: 'admin' } })

    const listed = await admin<UserSummary[]>(['user', 'list'])
    expect(listed.map((u) => u.email)).toEqual(expect.arrayContaining([email, operatorEmail]))

    expect(await admin<UserSummary>(['user', 'promote', '--email', email])).toMatchObject({ is_operator: true })
    expect(await admin<UserSummary>(['user', 'disable', '--email', email.toUpperCase()])).toMatchObject({ disabled: true })
    await expectError(await session('/api/v1/me'), 401)
    await expectError(await logIn(email, TEST_PASSWORD), 403, 'This account is disabled. Ask the operator of this Signet instance.')
    expect(await admin<UserSummary>(['user', 'enable', '--email', email])).toMatchObject({ disabled: false })
    expect((await logIn(email, TEST_PASSWORD)).status).toBe(200)

    const missing = await runCli(dataDir, ['user', 'disable', '--email', 'nobody@example.com'], env)
    expect(missing.stderr).toContain('No user with the e-mail nobody@example.com.')
  })
})
