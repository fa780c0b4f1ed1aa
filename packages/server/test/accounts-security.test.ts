import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { bodyOf, expectError } from './helpers/api.ts'
import { movableClock } from './helpers/clock.ts'
import { createSignedInUser, linkTokenFromMail, sessionCookieOf, sessionFetch, signUpAndSignIn, TEST_PASSWORD, uniqueUserEmail } from './helpers/session.ts'
import { startTestServer, type TestServer } from './helpers/test-server.ts'

const time = movableClock()
let server: TestServer
beforeAll(async () => {
  server = await startTestServer({ clock: time.clock })
})
afterAll(() => server.close())

const anonymous = () => sessionFetch(server.url, '')
const post = (path: string, json: unknown, headers: Record<string, string> = {}) => anonymous()(path, { method: 'POST', json, headers })
const logIn = (email: string, password: string, headers: Record<string, string> = {}) => post('/api/v1/auth/login', { email, password }, headers)

/**
 * The fastest of `tries` calls (ms) for a known and for an unknown address: what the request
 * itself costs. Interleaved so that whatever else loads the machine (other suites, the mail
 * a known address is sent, which this process's SMTP catcher parses) weighs on both alike.
 */
async function fastestPairMs(tries: number, call: (address: 'known' | 'unknown') => Promise<Response>): Promise<{ known: number; unknown: number }> {
  const durations = { known: [] as number[], unknown: [] as number[] }
  for (let i = 0; i < tries; i++) {
    for (const address of i % 2 === 0 ? (['known', 'unknown'] as const) : (['unknown', 'known'] as const)) {
      const started = performance.now()
      const response = await call(address)
      await response.arrayBuffer()
      durations[address].push(performance.now() - started)
      await new Promise((resolve) => setTimeout(resolve, 200))
    }
  }
  return { known: Math.min(...durations.known), unknown: Math.min(...durations.unknown) }
}

describe('no user enumeration', () => {
  it('sign-up, log-in and forgot-password answer the same for known and unknown addresses', async () => {
    const known = await createSignedInUser(server, { name: 'Known' })
    const unknown = uniqueUserEmail('nobody')

    const signUp = (email: string) => post('/api/v1/auth/signup', { email, password: 'another long passphrase', name: 'X', workspace_name: 'W' })
    const [knownSignUp, unknownSignUp] = [await signUp(known.email), await signUp(unknown)]
    expect([knownSignUp.status, unknownSignUp.status]).toEqual([202, 202])
    expect((await bodyOf(knownSignUp)).message).toBe(`Check your inbox at ${known.email}: we sent you an e-mail to continue.`)
    expect((await bodyOf(unknownSignUp)).message).toBe(`Check your inbox at ${unknown}: we sent you an e-mail to continue.`)
    // The owner of the known address learns of the attempt; the password did not change.
    const [notice] = await server.mail.waitFor(known.email)
    expect(notice?.subject).toBe('You already have a Signet account')
    expect((await logIn(known.email, known.password)).status).toBe(200)

    // The same answer, naming neither value (no field): it must not tell which of the two was wrong.
    const refused = { status: 401, body: { error: 'Wrong e-mail or password.', code: 'unauthenticated' } }
    const wrong = await logIn(known.email, 'not the password at all')
    expect({ status: wrong.status, body: await bodyOf(wrong) }).toEqual(refused)
    const missing = await logIn(uniqueUserEmail('nobody'), 'not the password at all')
    expect({ status: missing.status, body: await bodyOf(missing) }).toEqual(refused)

    const forgot = (email: string) => post('/api/v1/auth/forgot-password', { email })
    const [knownForgot, unknownForgot] = [await forgot(known.email), await forgot(unknown.replace('nobody', 'ghost'))]
    expect([knownForgot.status, unknownForgot.status]).toEqual([202, 202])
    expect(Object.keys(await bodyOf(knownForgot))).toEqual(Object.keys(await bodyOf(unknownForgot)))
  })

  it('takes similar time for known and unknown addresses (the fastest of 9 tries each)', { timeout: 60_000 }, async () => {
    const known = await createSignedInUser(server)
    // Warm-up: the dummy hash is computed once, on first use.
    await (await logIn(uniqueUserEmail(), 'warm up the dummy hash')).arrayBuffer()
    const wrongPassword = 'wrong password number one'
    const login = await fastestPairMs(9, (address) => logIn(address === 'known' ? known.email : uniqueUserEmail('ghost'), wrongPassword))
    // The failures above must not lock the account: a success resets the count.
    expect((await logIn(known.email, known.password)).status).toBe(200)
    const signUpBody = { password: 'another long passphrase', name: 'X', workspace_name: 'W' }
    const signUp = await fastestPairMs(9, (address) =>
      post('/api/v1/auth/signup', { ...signUpBody, email: address === 'known' ? known.email : uniqueUserEmail('fresh') }),
    )
    const forgot = await fastestPairMs(9, (address) =>
      post('/api/v1/auth/forgot-password', { email: address === 'known' ? known.email : uniqueUserEmail('ghost') }),
    )
    console.info('enumeration timing, fastest of 9 (ms)', { login, signUp, forgot })
    // Log-in and sign-up are dominated by argon2 (one verify or hash either way): within a factor of 2.
    for (const ratio of [login.known / login.unknown, signUp.known / signUp.unknown]) {
      expect(ratio).toBeGreaterThan(0.5)
      expect(ratio).toBeLessThan(2)
    }
    // Forgot-password answers in a few milliseconds either way; the mail work for a known address
    // runs after the answer, but in this process, where the test's client reads it: a factor of 3.
    expect(forgot.known / forgot.unknown).toBeGreaterThan(1 / 3)
    expect(forgot.known / forgot.unknown).toBeLessThan(3)
  })
})

describe('sessions', () => {
  it('gives a new id at every sign-in: a cookie planted before log-in is never promoted (session fixation)', async () => {
    const user = await createSignedInUser(server)
    const planted = 'A'.repeat(43)
    const login = await logIn(user.email, user.password, { cookie: `signet_session=${planted}` })
    expect(login.status).toBe(200)
    const issued = sessionCookieOf(login)
    expect(issued).toMatch(/^[A-Za-z0-9_-]{43}$/)
    expect(issued).not.toBe(planted)
    await expectError(await sessionFetch(server.url, planted)('/api/v1/me'), 401)
    // Signing in again with a live session still gives a new id; the old one is a separate session.
    const again = await logIn(user.email, user.password, { cookie: `signet_session=${issued}` })
    expect(sessionCookieOf(again)).not.toBe(issued)
  })

  it('ends a session after the idle timeout and after the absolute timeout', async () => {
    const user = await createSignedInUser(server)
    expect((await user.fetch('/api/v1/me')).status).toBe(200)
    time.advance(13 * 3600_000) // SESSION_IDLE_HOURS is 12
    await expectError(await user.fetch('/api/v1/me'), 401, 'Your session has ended. Sign in again.')

    const active = await createSignedInUser(server)
    for (let day = 0; day < 14; day++) {
      time.advance(11 * 3600_000)
      expect((await active.fetch('/api/v1/me')).status).toBe(200)
      time.advance(11 * 3600_000)
      expect((await active.fetch('/api/v1/me')).status).toBe(200)
    }
    // 14 × 22 h of steady use: past SESSION_MAX_DAYS (14 days) since sign-in.
    time.advance(3 * 24 * 3600_000 - 14 * 22 * 3600_000 + 14 * 24 * 3600_000 - 3 * 24 * 3600_000 + 3600_000)
    await expectError(await active.fetch('/api/v1/me'), 401)
  })

  it('refuses a state-changing session request from another origin or without one (CSRF), and changes nothing', async () => {
    const user = await createSignedInUser(server, { name: 'Victim' })
    const evil = sessionFetch(server.url, user.cookie, 'http://evil.example')
    await expectError(
      await evil('/api/v1/me', { method: 'PATCH', json: { name: 'Hacked' } }),
      403,
      'This request must come from the dashboard: requests from other sites are refused.',
    )
    await expectError(await evil('/api/v1/workspaces', { method: 'POST', json: { name: 'Hacked' } }), 403)
    // A form post has no JSON, but the cookie alone must not be enough either.
    const formPost = await fetch(`${server.url}/api/v1/workspaces`, {
      method: 'POST',
      headers: { cookie: `signet_session=${user.cookie}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Hacked' }),
    })
    await expectError(formPost, 403, 'This request must come from the dashboard (its Origin header is missing).')
    const me = await bodyOf<{ user: { name: string }; workspaces: unknown[] }>(await user.fetch('/api/v1/me'))
    expect(me.user.name).toBe('Victim')
    expect(me.workspaces).toHaveLength(1)
    // Reads are not state-changing; the PUBLIC_URL origin is the dashboard's too.
    expect((await evil('/api/v1/me')).status).toBe(200)
    expect((await sessionFetch(server.url, user.cookie, 'http://signet.test')('/api/v1/me', { method: 'PATCH', json: { name: 'Renamed' } })).status).toBe(200)
    // Sign-in from another site is refused; API keys are not affected by Origin.
    await expectError(await logIn(user.email, user.password, { origin: 'http://evil.example' }), 403)
    const org = await server.createOrg()
    const keyed = await server.request('/api/v1/documents', { method: 'POST', key: org.apiKey, json: {}, headers: { origin: 'http://evil.example' } })
    expect(keyed.status).toBe(400)
  })

  it('locks an account for 15 minutes after 10 failed sign-ins in a row', async () => {
    const user = await createSignedInUser(server)
    for (let i = 0; i < 10; i++) await expectError(await logIn(user.email, `wrong password ${i}`), 401, 'Wrong e-mail or password.')
    const locked = await logIn(user.email, user.password)
    await expectError(locked, 429, 'Too many failed sign-ins for this account. Try again in 15 minutes.')
    const retryAfter = Number(locked.headers.get('retry-after'))
    expect(retryAfter).toBeGreaterThan(890)
    expect(retryAfter).toBeLessThanOrEqual(900)
    time.advance(15 * 60_000 + 1000)
    expect((await logIn(user.email, user.password)).status).toBe(200)
  })

  it('resets a password with a single-use link that expires after an hour; the reset ends every session', async () => {
    const user = await signUpAndSignIn(server.url, server.mail)
    const other = await logIn(user.email, user.password)
    const otherCookie = sessionCookieOf(other) ?? ''
    expect((await post('/api/v1/auth/forgot-password', { email: user.email })).status).toBe(202)
    const token = await linkTokenFromMail(server.mail, user.email, 'reset-password', 2)
    const common = await post('/api/v1/auth/reset-password', { token, password: 'password1' })
    expect({ status: common.status, body: await bodyOf(common) }).toEqual({
      status: 400,
      body: { error: 'This password is one of the most common ones, which attackers try first. Choose another.', code: 'invalid_request', field: '/password' },
    })
    const reset = await post('/api/v1/auth/reset-password', { token, password: 'a brand new passphrase' })
    expect(reset.status).toBe(200)
    const fresh = sessionCookieOf(reset) ?? ''
    expect((await sessionFetch(server.url, fresh)('/api/v1/me')).status).toBe(200)
    await expectError(await user.fetch('/api/v1/me'), 401)
    await expectError(await sessionFetch(server.url, otherCookie)('/api/v1/me'), 401)
    await expectError(await post('/api/v1/auth/reset-password', { token, password: 'yet another passphrase' }), 410, /expired or was already used/)
    await expectError(await logIn(user.email, user.password), 401)
    expect((await logIn(user.email, 'a brand new passphrase')).status).toBe(200)

    expect((await post('/api/v1/auth/forgot-password', { email: user.email })).status).toBe(202)
    const late = await linkTokenFromMail(server.mail, user.email, 'reset-password', 3)
    time.advance(61 * 60_000)
    await expectError(await post('/api/v1/auth/reset-password', { token: late, password: 'too late passphrase' }), 410)
    await expectError(await post('/api/v1/auth/reset-password', { token: 'x'.repeat(43), password: 'whatever passphrase' }), 404)
  })

  it('changing the password ends the other sessions and needs the current one', async () => {
    const user = await createSignedInUser(server)
    const other = sessionFetch(server.url, sessionCookieOf(await logIn(user.email, user.password)) ?? '')
    expect((await other('/api/v1/me')).status).toBe(200)
    const change = (json: { current_password: string; new_password: string }) => user.fetch('/api/v1/me/password', { method: 'POST', json })
    const wrongCurrent = await change({ current_password: 'nope nope nope', new_password: 'fresh passphrase 1' })
    expect({ status: wrongCurrent.status, body: await bodyOf(wrongCurrent) }).toEqual({
      status: 400,
      body: { error: 'Your current password is not right.', code: 'invalid_request', field: '/current_password' },
    })
    const tooShort = await change({ current_password: user.password, new_password: 'short' })
    expect({ status: tooShort.status, body: await bodyOf(tooShort) }).toEqual({
      status: 400,
      body: { error: 'Choose a password of at least 8 characters.', code: 'invalid_request', field: '/new_password' },
    })
    const changed = await change({ current_password: user.password, new_password: 'fresh passphrase 1' })
    expect(changed.status).toBe(204)
    expect((await user.fetch('/api/v1/me')).status).toBe(200)
    await expectError(await other('/api/v1/me'), 401)
    await expectError(await logIn(user.email, user.password), 401)
    expect((await logIn(user.email, 'fresh passphrase 1')).status).toBe(200)
  })
})

describe('per-address sign-in limit', () => {
  it('answers 429 with Retry-After once an address has made its sign-in attempts for the hour', async () => {
    const limited = await startTestServer({ env: { RATE_LIMITS: 'sign-in=3' } })
    try {
      const login = () =>
        fetch(`${limited.url}/api/v1/auth/login`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ email: 'a@example.com', password: TEST_PASSWORD }),
        })
      for (let i = 0; i < 3; i++) expect((await login()).status).toBe(401)
      const refused = await login()
      await expectError(refused, 429, /^Too many sign-in attempts from your network\. Try again in \d+ (minutes?|seconds?)\.$/)
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0)
    } finally {
      await limited.close()
    }
  })
})
