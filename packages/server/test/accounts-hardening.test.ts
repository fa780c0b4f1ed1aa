import { spawn } from 'node:child_process'
import { hash } from '@node-rs/argon2'
import { eq } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { accountEvents, userSessions, users } from '../src/db/schema.ts'
import { bodyOf, expectError } from './helpers/api.ts'
import { movableClock } from './helpers/clock.ts'
import { createSignedInUser, linkTokenFromMail, sessionCookieOf, sessionFetch, signUpAndSignIn, TEST_PASSWORD, uniqueUserEmail } from './helpers/session.ts'
import { startTestServer, type TestServer } from './helpers/test-server.ts'

/*
 * Sign-in and sign-up under attack (issue 18: findings 3, 4, 7, 10, 11, 13, 16). Two servers:
 * `server` with the test suites' unreachable rate limits, and `exposed` with the real per-address
 * limits behind a trusted proxy, so that each attacking request can come from its own address.
 */

const time = movableClock()
let server: TestServer
let exposed: TestServer
beforeAll(async () => {
  server = await startTestServer({ clock: time.clock })
  exposed = await startTestServer({ clock: time.clock, env: { TRUST_PROXY: 'true', RATE_LIMITS: '' } })
})
afterAll(async () => {
  await server?.close()
  await exposed?.close()
})

type Headers = Record<string, string>
const post = (target: TestServer, path: string, json: unknown, headers: Headers = {}) => sessionFetch(target.url, '')(path, { method: 'POST', json, headers })
const logIn = (target: TestServer, email: string, password: string, headers: Headers = {}) => post(target, '/api/v1/auth/login', { email, password }, headers)
const from = (address: string): Headers => ({ 'x-forwarded-for': address })

const BUSY = /^The server is busy with other sign-ins\. Try again in \d+ seconds?\.$/
const LOCKED = /^Too many failed sign-ins for this account\. Try again in \d+ minutes?\.$/

describe('finding 3: the lockout holds against concurrent guesses', () => {
  it(
    'checks at most 10 of 100 guesses sent at once from 20 addresses; the right one among the later ones is refused until the lock ends',
    { timeout: 120_000 },
    async () => {
      const victim = await createSignedInUser(exposed)
      const guesses = Array.from({ length: 100 }, (_, i) => (i === 59 ? victim.password : `wrong guess number ${i}`))
      const answers = await Promise.all(guesses.map((password, i) => logIn(exposed, victim.email, password, from(`198.51.100.${i % 20}`))))
      const statuses = answers.map((answer) => answer.status)
      const checked = statuses.filter((status) => status === 401 || status === 200)
      console.info('100 concurrent guesses: statuses', countOf(statuses))
      expect(checked.length).toBeLessThanOrEqual(10)
      expect(statuses[59]).not.toBe(200)
      // Every guess that was not checked was refused with a reason and a time to wait.
      for (const answer of answers.filter((a) => a.status !== 401)) {
        expect([429, 503]).toContain(answer.status)
        await expectError(answer, answer.status, answer.status === 429 ? LOCKED : BUSY)
        expect(Number(answer.headers.get('retry-after'))).toBeGreaterThan(0)
      }
      // The right password is refused while the lock lasts, and works once it has ended.
      await expectError(await logIn(exposed, victim.email, victim.password, from('198.51.100.77')), 429, LOCKED)
      time.advance(15 * 60_000 + 1000)
      expect((await logIn(exposed, victim.email, victim.password, from('198.51.100.78'))).status).toBe(200)
    },
  )
})

describe('finding 4: no pre-registration takeover', () => {
  it("a victim who signs up after an attacker used their address ends up in their own account; the attacker's password and link are dead", async () => {
    const email = uniqueUserEmail('victim')
    const signUp = (password: string, name: string, workspace: string) =>
      post(server, '/api/v1/auth/signup', { email, password, name, workspace_name: workspace })
    expect((await signUp('attacker secret passphrase', 'Mallory', "Attacker's workspace")).status).toBe(202)
    const attackersLink = await linkTokenFromMail(server.mail, email, 'verify-email', 1)
    expect((await signUp('victim secret passphrase', 'Victor', "Victim's workspace")).status).toBe(202)

    // The victim's mail asks them to choose their password: whoever confirms sets the password.
    const [, finish] = await server.mail.waitFor(email, 2)
    expect(finish?.subject).toBe('Finish creating your Signet account')
    const token = await linkTokenFromMail(server.mail, email, 'reset-password', 2)
    // The link the attacker's sign-up sent is dead: it would confirm the attacker's password.
    await expectError(await post(server, '/api/v1/auth/verify-email', { token: attackersLink }), 410)
    // Until then, neither password opens the account.
    await expectError(await logIn(server, email, 'attacker secret passphrase'), 401)

    const finished = await post(server, '/api/v1/auth/reset-password', { token, password: 'victim secret passphrase' })
    expect(finished.status).toBe(200)
    const me = await bodyOf<{ user: { name: string; email_verified: boolean }; workspaces: { name: string }[] }>(finished)
    expect(me.user).toMatchObject({ name: 'Victor', email_verified: true })
    expect(me.workspaces.map((w) => w.name)).toEqual(["Victim's workspace"])
    await expectError(await logIn(server, email, 'attacker secret passphrase'), 401)
    expect((await logIn(server, email, 'victim secret passphrase')).status).toBe(200)
    // Completing a sign-up is not a password reset: no security notice.
    await new Promise((resolve) => setTimeout(resolve, 500))
    expect(server.mail.messages.filter((m) => m.to?.some((t) => t.address === email)).map((m) => m.subject)).not.toContain(
      'Security notice for your Signet account',
    )
  })

  it("an attacker who signs up after the victim cannot have the victim confirm the attacker's password", async () => {
    const email = uniqueUserEmail('victim')
    const signUp = (password: string, name: string) => post(server, '/api/v1/auth/signup', { email, password, name, workspace_name: `${name}'s workspace` })
    expect((await signUp('victim secret passphrase', 'Victor')).status).toBe(202)
    const victimsLink = await linkTokenFromMail(server.mail, email, 'verify-email', 1)
    expect((await signUp('attacker secret passphrase', 'Mallory')).status).toBe(202)
    await server.mail.waitFor(email, 2)
    // The attacker signs in with their password: the new link they cause is again one to choose a password.
    await expectError(await logIn(server, email, 'attacker secret passphrase'), 403, `Verify your e-mail first: we sent a new confirmation link to ${email}.`)
    const mails = await server.mail.waitFor(email, 3)
    expect(mails.map((m) => m.subject)).toEqual([
      'Confirm your e-mail address for Signet',
      'Finish creating your Signet account',
      'Finish creating your Signet account',
    ])
    // No link the victim holds confirms the attacker's password.
    await expectError(await post(server, '/api/v1/auth/verify-email', { token: victimsLink }), 410)
    const token = await linkTokenFromMail(server.mail, email, 'reset-password', 3)
    expect((await post(server, '/api/v1/auth/reset-password', { token, password: 'victim secret passphrase' })).status).toBe(200)
    await expectError(await logIn(server, email, 'attacker secret passphrase'), 401)
  })

  it('an uncontested sign-up still confirms with one click; its session is marked as made by a link, a log-in as made by a password', async () => {
    const user = await signUpAndSignIn(server.url, server.mail)
    const login = await logIn(server, user.email, user.password)
    expect(login.status).toBe(200)
    const methods = await server.services.db
      .select({ method: userSessions.authMethod })
      .from(userSessions)
      .where(eq(userSessions.userId, user.userId))
      .orderBy(userSessions.createdAt)
    expect(methods.map((row) => row.method)).toEqual(['link', 'password'])
  })

  it('a verified account is never touched by a sign-up with its address', async () => {
    const owner = await createSignedInUser(server)
    expect(
      (await post(server, '/api/v1/auth/signup', { email: owner.email, password: 'attacker secret passphrase', name: 'Mallory', workspace_name: 'Evil' }))
        .status,
    ).toBe(202)
    const [notice] = await server.mail.waitFor(owner.email)
    expect(notice?.subject).toBe('You already have a Signet account')
    expect((await logIn(server, owner.email, owner.password)).status).toBe(200)
    await expectError(await logIn(server, owner.email, 'attacker secret passphrase'), 401)
  })
})

describe('finding 7: a flood of sign-ups or log-ins does not freeze the server', () => {
  /** Every answer beyond the queue is a 503 that says to wait, and for how long. */
  function expectBusyAnswers(answers: FloodAnswer[]): void {
    const busy = answers.filter((answer) => answer.status === 503)
    expect(busy.length).toBeGreaterThan(0)
    for (const answer of busy) {
      expect(answer.body).toEqual({ error: expect.stringMatching(BUSY) as unknown, code: 'service_unavailable' })
      expect(Number(answer.retryAfter)).toBeGreaterThan(0)
    }
  }

  it('answers /healthz within 1 s while 200 sign-ups arrive at once; those beyond the queue get 503 with Retry-After', { timeout: 240_000 }, async () => {
    const emails = Array.from({ length: 200 }, () => uniqueUserEmail('flood'))
    const signUps = emails.map((email, i) => ({
      path: '/api/v1/auth/signup',
      json: { email, password: 'flood passphrase here', name: 'Flood', workspace_name: 'Flood' },
      headers: from(`203.0.113.${i}`),
    }))
    const { result: answers, probe } = await whileProbingHealth(exposed.url, async () => {
      const sent = await floodFromAnotherProcess(exposed.url, signUps)
      // The accounts are made after the answers: the probe keeps running until they are.
      const accepted = emails.filter((_, i) => sent[i]?.status === 202)
      await Promise.all(accepted.map((email) => exposed.mail.waitFor(email, 1, 120_000)))
      return sent
    })
    const statuses = answers.map((answer) => answer.status)
    console.info('200 sign-ups at once:', countOf(statuses), '/healthz', probe)
    expect(statuses.every((status) => status === 202 || status === 503)).toBe(true)
    expect(statuses.filter((status) => status === 202).length).toBeGreaterThan(0)
    expectBusyAnswers(answers)
    expect(probe.statuses).toEqual([200])
    expect(probe.count).toBeGreaterThanOrEqual(5)
    expect(probe.maxMs).toBeLessThan(1000)
  })

  it('answers /healthz within 1 s while 200 log-ins arrive at once; a real user signs in afterwards', { timeout: 240_000 }, async () => {
    const real = await createSignedInUser(exposed)
    const logIns = Array.from({ length: 200 }, (_, i) => ({
      path: '/api/v1/auth/login',
      // Addresses without an account cost what accounts do (the same argon2 work), and lock nobody out.
      json: { email: uniqueUserEmail('nobody'), password: 'some guessed password' },
      headers: from(`192.0.2.${i}`),
    }))
    const { result: answers, probe } = await whileProbingHealth(exposed.url, () => floodFromAnotherProcess(exposed.url, logIns))
    const statuses = answers.map((answer) => answer.status)
    console.info('200 log-ins at once:', countOf(statuses), '/healthz', probe)
    expect(statuses.every((status) => status === 401 || status === 503)).toBe(true)
    expectBusyAnswers(answers)
    expect(probe.statuses).toEqual([200])
    expect(probe.count).toBeGreaterThanOrEqual(5)
    expect(probe.maxMs).toBeLessThan(1000)
    const started = performance.now()
    expect((await logIn(exposed, real.email, real.password, from('192.0.2.250'))).status).toBe(200)
    console.info('a real log-in after the flood (ms)', Math.round(performance.now() - started))
  })
})

describe('finding 10: a password change ends outstanding reset links', () => {
  it('refuses a reset link issued before the password was changed in Settings', async () => {
    const user = await signUpAndSignIn(server.url, server.mail)
    expect((await post(server, '/api/v1/auth/forgot-password', { email: user.email })).status).toBe(202)
    const token = await linkTokenFromMail(server.mail, user.email, 'reset-password', 2)
    const changed = await user.fetch('/api/v1/me/password', { method: 'POST', json: { current_password: user.password, new_password: 'changed in settings' } })
    expect(changed.status).toBe(204)
    await expectError(await post(server, '/api/v1/auth/reset-password', { token, password: 'set by the old link' }), 410, /expired or was already used/)
    expect((await logIn(server, user.email, 'changed in settings')).status).toBe(200)
  })
})

describe('finding 11: current-password guesses count like log-ins', () => {
  it('locks after 10 wrong current passwords, for the change route and for log-in alike', async () => {
    const user = await createSignedInUser(server)
    const change = (current: string) =>
      user.fetch('/api/v1/me/password', { method: 'POST', json: { current_password: current, new_password: 'a whole new passphrase' } })
    const answers = await Promise.all(Array.from({ length: 30 }, (_, i) => change(`wrong current password ${i}`)))
    const statuses = answers.map((answer) => answer.status)
    expect(statuses.filter((status) => status === 400).length).toBeLessThanOrEqual(10)
    expect(statuses.every((status) => [400, 429, 503].includes(status))).toBe(true)
    await expectError(await change(user.password), 429, LOCKED)
    await expectError(await logIn(server, user.email, user.password), 429, LOCKED)
    time.advance(15 * 60_000 + 1000)
    expect((await change(user.password)).status).toBe(204)
  })

  it('a right current password clears the count, as a sign-in does', async () => {
    const user = await createSignedInUser(server)
    const change = (current: string, next: string) =>
      user.fetch('/api/v1/me/password', { method: 'POST', json: { current_password: current, new_password: next } })
    for (let i = 0; i < 9; i++)
      await expectError(await change(`wrong current password ${i}`, 'unused new passphrase'), 400, 'Your current password is not right.')
    expect((await change(user.password, 'second passphrase here')).status).toBe(204)
    for (let i = 0; i < 9; i++) await expectError(await logIn(server, user.email, `wrong password ${i}`), 401)
    expect((await logIn(server, user.email, 'second passphrase here')).status).toBe(200)
  })
})

describe('finding 13: passwords are compared after Unicode normalisation', () => {
  const composed = 'Crème brûlée für Ångström'.normalize('NFC')
  const decomposed = composed.normalize('NFD')

  it('signs in with the decomposed form of a password chosen in the composed form, and the other way round', async () => {
    expect(composed).not.toBe(decomposed)
    const user = await signUpAndSignIn(server.url, server.mail, { password: composed })
    expect((await logIn(server, user.email, decomposed)).status).toBe(200)
    const other = await signUpAndSignIn(server.url, server.mail, { password: decomposed })
    expect((await logIn(server, other.email, composed)).status).toBe(200)
    // Compatibility forms too (NFKC): full-width letters are the letters.
    const wide = await signUpAndSignIn(server.url, server.mail, { password: 'ｗｉｄｅ ｐａｓｓｐｈｒａｓｅ' })
    expect((await logIn(server, wide.email, 'wide passphrase')).status).toBe(200)
  })

  it('keeps accounts whose hash was made from the unnormalised text working, and upgrades them', async () => {
    const legacy = await createSignedInUser(server)
    const legacyHash = await hash(decomposed, { algorithm: 2, memoryCost: 19_456, timeCost: 2, parallelism: 1 })
    await server.services.db.update(users).set({ passwordHash: legacyHash }).where(eq(users.id, legacy.userId))
    expect((await logIn(server, legacy.email, decomposed)).status).toBe(200)
    // Signing in stored the normalised form: now every form works.
    expect((await logIn(server, legacy.email, composed)).status).toBe(200)
    await expectError(await logIn(server, legacy.email, 'Creme brulee fur Angstrom'), 401)
  })
})

describe('finding 16: security notices and no-store', () => {
  it('mails and records a password change and a password reset', async () => {
    const user = await signUpAndSignIn(server.url, server.mail, { name: 'Nora Notice' })
    const changed = await user.fetch('/api/v1/me/password', {
      method: 'POST',
      json: { current_password: user.password, new_password: 'changed passphrase one' },
      headers: { 'user-agent': 'Settings browser' },
    })
    expect(changed.status).toBe(204)
    const [, notice] = await server.mail.waitFor(user.email, 2)
    expect(notice?.subject).toBe('Security notice for your Signet account')
    expect(notice?.text).toContain('The password of your Signet account was changed.')

    expect((await post(server, '/api/v1/auth/forgot-password', { email: user.email })).status).toBe(202)
    const token = await linkTokenFromMail(server.mail, user.email, 'reset-password', 3)
    expect((await post(server, '/api/v1/auth/reset-password', { token, password: 'reset passphrase two' })).status).toBe(200)
    const mails = await server.mail.waitFor(user.email, 4)
    expect(mails[3]?.subject).toBe('Security notice for your Signet account')
    expect(mails[3]?.text).toContain('The password of your Signet account was reset with a link mailed to this address.')

    const events = await server.services.db
      .select({ kind: accountEvents.kind, userAgent: accountEvents.userAgent })
      .from(accountEvents)
      .where(eq(accountEvents.userId, user.userId))
      .orderBy(accountEvents.id)
    expect(events.map((event) => event.kind)).toEqual(['password.changed', 'password.reset'])
    expect(events[0]?.userAgent).toBe('Settings browser')
  })

  it('answers every account route and every session request with Cache-Control: no-store', async () => {
    const user = await createSignedInUser(server)
    const login = await logIn(server, user.email, user.password)
    const cookie = sessionCookieOf(login) ?? ''
    const session = sessionFetch(server.url, cookie)
    const answers = [
      login,
      await logIn(server, user.email, 'a wrong password'),
      await post(server, '/api/v1/auth/signup', { email: uniqueUserEmail(), password: TEST_PASSWORD, name: 'N', workspace_name: 'W' }),
      await post(server, '/api/v1/auth/forgot-password', { email: user.email }),
      await session('/api/v1/me'),
      await session('/api/v1/me/sessions'),
      await session('/api/v1/documents'),
      await session('/api/v1/me', { method: 'PATCH', json: { name: 'Renamed' } }),
    ]
    expect(answers.map((answer) => [answer.url.replace(server.url, ''), answer.status, answer.headers.get('cache-control')])).toEqual(
      answers.map((answer) => [answer.url.replace(server.url, ''), answer.status, 'no-store']),
    )
  })
})

function countOf(statuses: number[]): Record<number, number> {
  const counts: Record<number, number> = {}
  for (const status of statuses) counts[status] = (counts[status] ?? 0) + 1
  return counts
}

/** Polls GET url until told to stop on stdin, then prints every latency (ms) and status as JSON. */
const PROBE_SCRIPT = `
const url = process.argv[1]
let stopping = false
process.stdin.on('data', () => { stopping = true })
const samples = []
while (!stopping) {
  const started = performance.now()
  let status = 0
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(60000) })
    await response.arrayBuffer()
    status = response.status
  } catch {}
  samples.push([performance.now() - started, status])
  if (samples.length === 1) process.stdout.write('ready\\n')
  await new Promise((resolve) => setTimeout(resolve, 25))
}
process.stdout.write(JSON.stringify(samples) + '\\n')
`

interface FloodAnswer {
  status: number
  retryAfter: string | null
  body: unknown
}

/** Sends every request at once and prints each answer (status, Retry-After, JSON body) as JSON. */
const FLOOD_SCRIPT = `
const chunks = []
for await (const chunk of process.stdin) chunks.push(chunk)
const { url, requests } = JSON.parse(Buffer.concat(chunks).toString())
const answers = await Promise.all(requests.map(async ({ path, json, headers }) => {
  const response = await fetch(url + path, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify(json) })
  return { status: response.status, retryAfter: response.headers.get('retry-after'), body: await response.json() }
}))
process.stdout.write(JSON.stringify(answers))
`

/** The attack comes from another process, so that sending it does not weigh on the server's event loop (which runs in this one). */
async function floodFromAnotherProcess(baseUrl: string, requests: { path: string; json: unknown; headers: Headers }[]): Promise<FloodAnswer[]> {
  const child = spawn(process.execPath, ['--input-type=module', '-e', FLOOD_SCRIPT], { stdio: ['pipe', 'pipe', 'inherit'] })
  let output = ''
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk))
  const exited = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)))
  child.stdin.end(JSON.stringify({ url: baseUrl, requests }))
  const code = await exited
  if (code !== 0) throw new Error(`the flood process exited with ${code}`)
  return JSON.parse(output) as FloodAnswer[]
}

interface Probe {
  count: number
  maxMs: number
  medianMs: number
  statuses: number[]
}

/**
 * Runs `work` while a separate process polls /healthz (the server runs in this process, so
 * only another process measures how long its event loop keeps a request waiting).
 */
async function whileProbingHealth<T>(baseUrl: string, work: () => Promise<T>): Promise<{ result: T; probe: Probe }> {
  const child = spawn(process.execPath, ['--input-type=module', '-e', PROBE_SCRIPT, `${baseUrl}/healthz`], { stdio: ['pipe', 'pipe', 'inherit'] })
  let output = ''
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk))
  const exited = new Promise<void>((resolve) => child.once('close', () => resolve()))
  try {
    while (!output.includes('ready\n')) {
      if (child.exitCode !== null) throw new Error('the /healthz probe exited before its first answer')
      await new Promise((resolve) => setTimeout(resolve, 20))
    }
    const result = await work()
    child.stdin.end('stop\n')
    await exited
    const samples = JSON.parse(output.slice(output.indexOf('ready\n') + 6)) as [number, number][]
    const latencies = samples.map(([ms]) => ms).sort((a, b) => a - b)
    const probe: Probe = {
      count: samples.length,
      maxMs: Math.round(latencies.at(-1) ?? 0),
      medianMs: Math.round(latencies[Math.floor(latencies.length / 2)] ?? 0),
      statuses: [...new Set(samples.map(([, status]) => status))],
    }
    return { result, probe }
  } finally {
    if (child.exitCode === null) child.kill('SIGKILL')
  }
}
