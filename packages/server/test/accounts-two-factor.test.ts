import { eq } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { recoveryCodes, users } from '../src/db/schema.ts'
import { bodyOf, expectError } from './helpers/api.ts'
import { movableClock } from './helpers/clock.ts'
import { executeAdminCommand } from '../src/admin/commands.ts'
import { createSignedInUser, linkTokenFromMail, sessionCookieOf, type SignedInUser } from './helpers/session.ts'
import { SoftAuthenticator } from './helpers/soft-authenticator.ts'
import { startTestServer, type TestServer } from './helpers/test-server.ts'
import { addSoftPasskey, anonymousBrowser, enableTotp, sessionFrom, stepCookieOf, TOTP_PERIOD_MS, totpCode } from './helpers/two-factor.ts'

const time = movableClock()
let server: TestServer
beforeAll(async () => {
  server = await startTestServer({ clock: time.clock })
})
afterAll(() => server.close())

/** Each sign-in below uses a fresh 30-second step: a step's code works once. */
const nextStep = () => time.advance(TOTP_PERIOD_MS)

const subjectsTo = (email: string) => server.mail.messages.filter((m) => m.to?.some((t) => t.address === email)).map((m) => m.subject)

async function userWithTotp(options: Parameters<typeof createSignedInUser>[1] = {}) {
  const user = await createSignedInUser(server, options)
  const totp = await enableTotp(user.fetch, user.password, time.clock)
  nextStep()
  return { ...user, ...totp }
}

describe('authenticator app (TOTP)', () => {
  it('is set up with a QR code and the first code and the password, gives ten recovery codes and mails the user', async () => {
    const user = await createSignedInUser(server)
    const setup = await user.fetch('/api/v1/me/two-factor/totp', { method: 'POST' })
    expect(setup.status).toBe(200)
    const body = await bodyOf<{ secret: string; otpauth_uri: string; qr_svg: string }>(setup)
    expect(body.secret).toMatch(/^[A-Z2-7]{4}( [A-Z2-7]{4}){7}$/)
    expect(body.otpauth_uri).toMatch(/^otpauth:\/\/totp\/.+\?.*secret=/)
    expect(body.otpauth_uri).toContain(encodeURIComponent(user.email))
    expect(body.qr_svg).toMatch(/^<svg[\s\S]*<\/svg>\s*$/)

    const confirm = (code: string, password: string) => user.fetch('/api/v1/me/two-factor/totp/confirm', { method: 'POST', json: { code, password } })
    const wrongPassword = await confirm(totpCode(body.secret, time.clock), 'not my password')
    expect({ status: wrongPassword.status, body: await bodyOf(wrongPassword) }).toEqual({
      status: 400,
      body: { error: 'Your password is not right.', code: 'invalid_request', field: '/password' },
    })
    const wrongCode = await confirm('000000', user.password)
    expect({ status: wrongCode.status, body: await bodyOf(wrongCode) }).toEqual({
      status: 400,
      body: { error: 'That code is not right. Enter the 6-digit code your authenticator app shows now.', code: 'invalid_request', field: '/code' },
    })
    const confirmed = await confirm(totpCode(body.secret, time.clock), user.password)
    expect(confirmed.status).toBe(200)
    const { recovery_codes } = await bodyOf<{ recovery_codes: string[] }>(confirmed)
    expect(recovery_codes).toHaveLength(10)
    expect(new Set(recovery_codes).size).toBe(10)
    for (const code of recovery_codes) expect(code).toMatch(/^[a-z2-9]{5}-[a-z2-9]{5}$/)

    const status = await bodyOf(await user.fetch('/api/v1/me/two-factor'))
    expect(status).toMatchObject({
      enabled: true,
      totp: { enabled: true },
      passkeys: [],
      recovery_codes_left: 10,
      required_by: [],
      this_session: { second_factor: true },
    })
    const [notice] = await server.mail.waitFor(user.email)
    expect(notice?.subject).toBe('Security notice for your Signet account')
    expect(notice?.text).toContain('An authenticator app was set up')

    // Stored encrypted and hashed: neither the secret nor a recovery code is in the database in clear.
    const [row] = await server.services.db.select().from(users).where(eq(users.id, user.userId))
    const secretBytes = Buffer.from(body.secret.replace(/\s/g, ''))
    expect(row?.totpSecretCiphertext).toBeTruthy()
    expect(Buffer.from(row?.totpSecretCiphertext ?? []).includes(secretBytes)).toBe(false)
    const stored = await server.services.db.select().from(recoveryCodes).where(eq(recoveryCodes.userId, user.userId))
    expect(stored).toHaveLength(10)
    for (const code of recovery_codes) expect(stored.some((s) => s.codeHash.includes(code.replace('-', '')))).toBe(false)
  })

  it('makes the password only the first step: a session comes after the code, and each code works once', async () => {
    const user = await userWithTotp()
    const browser = anonymousBrowser(server.url)
    const step = await browser.logIn(user.email, user.password)
    expect(step.status).toBe(202)
    expect(sessionCookieOf(step)).toBeUndefined()
    expect(stepCookieOf(step)).toMatch(/^[A-Za-z0-9_-]{43}$/)
    expect(await bodyOf(step)).toEqual({ second_factor_required: true, methods: ['totp', 'recovery_code'], expires_at: expect.any(String) as unknown })
    const stepCookieHeader = step.headers.getSetCookie().find((h) => h.startsWith('signet_sign_in_step='))
    expect(stepCookieHeader).toMatch(/HttpOnly/i)
    expect(stepCookieHeader).toMatch(/SameSite=Strict/i)
    expect(stepCookieHeader).toMatch(/Path=\/api\/v1\/auth/)

    await expectError(await browser.post('/api/v1/auth/second-factor/totp', { code: '123456' }), 401, /That code is not right/)
    const code = totpCode(user.secret, time.clock)
    const signedIn = await browser.post('/api/v1/auth/second-factor/totp', { code: code.slice(0, 3) + ' ' + code.slice(3) })
    expect(signedIn.status).toBe(200)
    expect((await bodyOf<{ user: { email: string } }>(signedIn)).user.email).toBe(user.email)
    const session = sessionFrom(server.url, signedIn)
    expect((await session('/api/v1/me/two-factor').then((r) => bodyOf(r))).this_session).toEqual({ second_factor: true })

    // The step is used up, and the same code is refused in a new step (replay).
    await expectError(await browser.post('/api/v1/auth/second-factor/totp', { code }), 410)
    const again = anonymousBrowser(server.url)
    expect((await again.logIn(user.email, user.password)).status).toBe(202)
    await expectError(await again.post('/api/v1/auth/second-factor/totp', { code }), 401)
    // Without a step cookie there is nothing to answer.
    await expectError(
      await anonymousBrowser(server.url).post('/api/v1/auth/second-factor/totp', { code }),
      410,
      'This sign-in step has expired or had too many wrong codes. Sign in again.',
    )
  })

  it('accepts each recovery code once, and mails the user when one is used', async () => {
    const user = await userWithTotp()
    const [first, second] = user.recoveryCodes ?? []
    const browser = anonymousBrowser(server.url)
    expect((await browser.logIn(user.email, user.password)).status).toBe(202)
    const signedIn = await browser.post('/api/v1/auth/second-factor/recovery-code', { code: (first ?? '').toUpperCase() })
    expect(signedIn.status).toBe(200)
    await server.mail.waitFor(user.email, 2)
    expect(subjectsTo(user.email).filter((s) => s === 'Security notice for your Signet account')).toHaveLength(2)

    const later = anonymousBrowser(server.url)
    expect((await later.logIn(user.email, user.password)).status).toBe(202)
    await expectError(
      await later.post('/api/v1/auth/second-factor/recovery-code', { code: first }),
      401,
      'That recovery code is not right, or it was used already.',
    )
    expect((await later.post('/api/v1/auth/second-factor/recovery-code', { code: second })).status).toBe(200)
    const status = await bodyOf(await user.fetch('/api/v1/me/two-factor'))
    expect(status.recovery_codes_left).toBe(8)
  })

  it('allows five answers per step, however many arrive at once', async () => {
    const user = await userWithTotp()
    const browser = anonymousBrowser(server.url)
    expect((await browser.logIn(user.email, user.password)).status).toBe(202)
    const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => browser.post('/api/v1/auth/second-factor/totp', { code: String(100000 + i) })))
    const statuses = answers.map((r) => r.status)
    expect(statuses.filter((s) => s === 401)).toHaveLength(5)
    expect(statuses.filter((s) => s === 410)).toHaveLength(15)
    // The step is spent: even the right code needs a new sign-in now.
    await expectError(await browser.post('/api/v1/auth/second-factor/totp', { code: totpCode(user.secret, time.clock) }), 410)
  })

  it('counts wrong codes against the account lockout together with wrong passwords', async () => {
    const user = await userWithTotp()
    const wrongCodes = async () => {
      const browser = anonymousBrowser(server.url)
      expect((await browser.logIn(user.email, user.password)).status).toBe(202)
      for (let i = 0; i < 5; i++) await browser.post('/api/v1/auth/second-factor/totp', { code: String(200000 + i) })
    }
    await wrongCodes()
    await wrongCodes()
    // Ten failures: the account is locked, for the right password and the right code alike.
    const locked = await anonymousBrowser(server.url).logIn(user.email, user.password)
    await expectError(locked, 429, /Too many failed sign-ins for this account/)
    expect(locked.headers.get('retry-after')).toMatch(/^[0-9]+$/)
  })
})

describe('a password reset', () => {
  it('changes the password but still asks for the second factor: a mailbox alone does not sign in', async () => {
    const user = await userWithTotp()
    const browser = anonymousBrowser(server.url)
    expect((await browser.post('/api/v1/auth/forgot-password', { email: user.email })).status).toBe(202)
    const token = await linkTokenFromMail(server.mail, user.email, 'reset-password', 2)
    const reset = await browser.post('/api/v1/auth/reset-password', { token, password: 'a brand new passphrase' })
    expect(reset.status).toBe(202)
    expect(sessionCookieOf(reset)).toBeUndefined()
    expect(await bodyOf(reset)).toMatchObject({ second_factor_required: true, methods: ['totp', 'recovery_code'] })
    const signedIn = await browser.post('/api/v1/auth/second-factor/totp', { code: totpCode(user.secret, time.clock) })
    expect(signedIn.status).toBe(200)
    // Every earlier session ended with the reset.
    expect((await user.fetch('/api/v1/me')).status).toBe(401)
  })
})

describe('passkeys', () => {
  it('are added with the password, and answer the second step', async () => {
    const user = await createSignedInUser(server)
    const authenticator = new SoftAuthenticator(server.config.publicUrl)
    // The password comes first, before the browser makes anything.
    const wrongPassword = await user.fetch('/api/v1/me/passkeys/options', { method: 'POST', json: { password: 'wrong password' } })
    expect({ status: wrongPassword.status, body: await bodyOf(wrongPassword) }).toEqual({
      status: 400,
      body: { error: 'Your password is not right.', code: 'invalid_request', field: '/password' },
    })
    const options = await bodyOf<{ options: Record<string, unknown> }>(
      await user.fetch('/api/v1/me/passkeys/options', { method: 'POST', json: { password: user.password } }),
    )
    expect(options.options).toMatchObject({ rp: { id: new URL(server.config.publicUrl).hostname, name: 'Signet' }, user: { name: user.email } })
    // A blank name, and a passkey made for another challenge, are refused at their field (the options stay usable).
    const add = (name: string, response: unknown) => user.fetch('/api/v1/me/passkeys', { method: 'POST', json: { name, response } })
    const unnamed = await add('  ', authenticator.register(options.options))
    expect({ status: unnamed.status, body: await bodyOf(unnamed) }).toEqual({
      status: 400,
      body: { error: 'Name the passkey, e.g. the device it is on.', code: 'invalid_request', field: '/name' },
    })
    const otherChallenge = await add('Laptop', authenticator.register({ ...options.options, challenge: 'bm90LXRoZS1jaGFsbGVuZ2U' }))
    expect({ status: otherChallenge.status, body: await bodyOf(otherChallenge) }).toEqual({
      status: 400,
      body: { error: expect.stringMatching(/^The passkey could not be checked: .+\. Try again\.$/) as unknown, code: 'invalid_request', field: '/response' },
    })
    // A passkey made for other options (another session's, or none) is refused.
    const stranger = await createSignedInUser(server)
    await expectError(
      await stranger.fetch('/api/v1/me/passkeys', { method: 'POST', json: { name: 'Laptop', response: authenticator.register(options.options) } }),
      410,
    )

    const added = await addSoftPasskey(user.fetch, user.password, authenticator, 'Laptop')
    expect(added.status).toBe(201)
    const body = await bodyOf<{ passkey: { name: string }; recovery_codes: string[] }>(added)
    expect(body.passkey.name).toBe('Laptop')
    expect(body.recovery_codes).toHaveLength(10)

    const browser = anonymousBrowser(server.url)
    const step = await browser.logIn(user.email, user.password)
    expect(await bodyOf(step)).toMatchObject({ methods: ['passkey', 'recovery_code'] })
    const request = await bodyOf<{ options: Record<string, unknown> }>(await browser.post('/api/v1/auth/second-factor/passkey/options'))
    // An answer to another challenge is refused (and counted).
    await expectError(
      await browser.post('/api/v1/auth/second-factor/passkey', {
        response: authenticator.authenticate(request.options, { challenge: 'bm90LXRoZS1jaGFsbGVuZ2U' }),
      }),
      401,
    )
    const signedIn = await browser.post('/api/v1/auth/second-factor/passkey', { response: authenticator.authenticate(request.options) })
    expect(signedIn.status).toBe(200)
    expect(sessionCookieOf(signedIn)).toBeTruthy()
  })

  it('sign in on their own, without the password, when the device verifies its user', async () => {
    const user = await createSignedInUser(server)
    const authenticator = new SoftAuthenticator(server.config.publicUrl)
    expect((await addSoftPasskey(user.fetch, user.password, authenticator)).status).toBe(201)

    const start = async () => {
      const browser = anonymousBrowser(server.url)
      const { options } = await bodyOf<{ options: Record<string, unknown> }>(await browser.post('/api/v1/auth/passkey/options'))
      expect(options.userVerification).toBe('required')
      expect(options.allowCredentials ?? []).toEqual([])
      return { browser, options }
    }
    const withoutVerification = await start()
    authenticator.userVerification = false
    await expectError(
      await withoutVerification.browser.post('/api/v1/auth/passkey', { response: authenticator.authenticate(withoutVerification.options) }),
      401,
    )

    authenticator.userVerification = true
    const verified = await start()
    const signedIn = await verified.browser.post('/api/v1/auth/passkey', { response: authenticator.authenticate(verified.options) })
    expect(signedIn.status).toBe(200)
    expect((await bodyOf<{ user: { id: string } }>(signedIn)).user.id).toBe(user.userId)
    const session = sessionFrom(server.url, signedIn)
    expect((await bodyOf(await session('/api/v1/me/two-factor'))).this_session).toEqual({ second_factor: true })
    // The challenge was used up.
    await expectError(await verified.browser.post('/api/v1/auth/passkey', { response: authenticator.authenticate(verified.options) }), 410)
    // A disabled account's passkey opens nothing.
    await executeAdminCommand(server.services, { name: 'user.disable', email: user.email })
    const afterDisabling = await start()
    await expectError(
      await afterDisabling.browser.post('/api/v1/auth/passkey', { response: authenticator.authenticate(afterDisabling.options) }),
      403,
      /disabled/,
    )
  })

  it('are removed with the password; the last factor also takes the recovery codes', async () => {
    const user = await createSignedInUser(server)
    const authenticator = new SoftAuthenticator(server.config.publicUrl)
    const { passkey } = await bodyOf<{ passkey: { id: string } }>(await addSoftPasskey(user.fetch, user.password, authenticator))
    const remove = (password: string) => user.fetch(`/api/v1/me/passkeys/${passkey.id}/remove`, { method: 'POST', json: { password } })
    const wrongPassword = await remove('wrong password')
    expect({ status: wrongPassword.status, body: await bodyOf(wrongPassword) }).toEqual({
      status: 400,
      body: { error: 'Your password is not right.', code: 'invalid_request', field: '/password' },
    })
    expect((await remove(user.password)).status).toBe(204)
    expect(await bodyOf(await user.fetch('/api/v1/me/two-factor'))).toMatchObject({ enabled: false, passkeys: [], recovery_codes_left: 0 })
    expect((await anonymousBrowser(server.url).logIn(user.email, user.password)).status).toBe(200)
  })
})

describe('a workspace that requires two-factor sign-in', () => {
  it('needs an owner who has a second factor, mails every member, and keeps members without one to their account pages', async () => {
    const owner = await createSignedInUser(server)
    const member = await createSignedInUser(server, { orgId: owner.orgId, role: 'member' })
    const require = (who: SignedInUser, on: boolean) => who.fetch('/api/v1/workspace/security', { method: 'PUT', json: { require_two_factor: on } })

    await expectError(await require(owner, true), 409, /Set up a second sign-in step for yourself first/)
    await expectError(await require(member, true), 403)
    await enableTotp(owner.fetch, owner.password, time.clock)
    const required = await require(owner, true)
    expect(required.status).toBe(200)
    expect(await bodyOf(required)).toEqual({
      require_two_factor: true,
      members_without_two_factor: [{ user_id: member.userId, name: member.name, email: member.email }],
    })
    const [notice] = await server.mail.waitFor(member.email)
    expect(notice?.text).toContain('now requires a second sign-in step')

    // The member's session (no second factor) is kept to their own account pages.
    await expectError(await member.fetch('/api/v1/documents'), 403, /requires a second sign-in step/)
    expect((await member.fetch('/api/v1/me')).status).toBe(200)
    expect((await bodyOf(await member.fetch('/api/v1/me/two-factor'))).required_by).toEqual([{ id: owner.orgId, name: expect.any(String) as unknown }])
    // Setting one up in this session proves it: the workspace opens.
    await enableTotp(member.fetch, member.password, time.clock)
    expect((await member.fetch('/api/v1/documents')).status).toBe(200)
    // And the last factor cannot be removed while the rule stands.
    await expectError(
      await member.fetch('/api/v1/me/two-factor/totp/disable', { method: 'POST', json: { password: member.password } }),
      409,
      /requires a second sign-in step/,
    )
  })
})

describe('the operator', () => {
  it('resets a user who lost their second factors: sessions end, the user is mailed and sees who did it', async () => {
    const operator = await createSignedInUser(server, { isOperator: true })
    const user = await userWithTotp()
    await expectError(await user.fetch(`/api/v1/operator/users/${user.userId}/reset-two-factor`, { method: 'POST' }), 403)
    expect((await operator.fetch(`/api/v1/operator/users/${user.userId}/reset-two-factor`, { method: 'POST' })).status).toBe(204)
    // Sessions ended; the password alone signs in again.
    expect((await user.fetch('/api/v1/me')).status).toBe(401)
    const signedIn = await anonymousBrowser(server.url).logIn(user.email, user.password)
    expect(signedIn.status).toBe(200)
    const events = await bodyOf<{ events: { kind: string; by_someone_else: boolean }[] }>(await sessionFrom(server.url, signedIn)('/api/v1/me/security-events'))
    expect(events.events[0]).toMatchObject({ kind: 'two_factor.reset_by_operator', by_someone_else: true })
    expect(events.events.map((e) => e.kind)).toContain('totp.enabled')
    await server.mail.waitFor(user.email, 2)
    expect(server.mail.messages.some((m) => m.to?.some((t) => t.address === user.email) && m.text?.includes('operator of this Signet instance removed'))).toBe(
      true,
    )
  })

  it('resets a user from the command line too (the operator may be the one locked out)', async () => {
    const user = await userWithTotp()
    expect(await executeAdminCommand(server.services, { name: 'user.reset-two-factor', email: user.email.toUpperCase() })).toEqual({
      email: user.email,
      two_factor: false,
    })
    const signedIn = await anonymousBrowser(server.url).logIn(user.email, user.password)
    expect(signedIn.status).toBe(200)
    const events = await bodyOf<{ events: { kind: string; by_someone_else: boolean }[] }>(await sessionFrom(server.url, signedIn)('/api/v1/me/security-events'))
    expect(events.events[0]).toMatchObject({ kind: 'two_factor.reset_by_operator', by_someone_else: true })
    const listed = (await executeAdminCommand(server.services, { name: 'user.list' })) as { email: string; two_factor: boolean }[]
    expect(listed.find((u) => u.email === user.email)?.two_factor).toBe(false)
    await expect(executeAdminCommand(server.services, { name: 'user.reset-two-factor', email: 'nobody@example.com' })).rejects.toThrow('No such user.')
  })
})
