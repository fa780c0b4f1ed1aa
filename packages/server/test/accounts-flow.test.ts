import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { bodyOf, expectError } from './helpers/api.ts'
import { linkTokenFromMail, sessionCookieOf, sessionFetch, signUpAndSignIn, TEST_PASSWORD, uniqueUserEmail } from './helpers/session.ts'
import { startTestServer, type TestServer } from './helpers/test-server.ts'

let server: TestServer
beforeAll(async () => {
  server = await startTestServer()
})
afterAll(() => server.close())

const anonymous = () => sessionFetch(server.url, '')

describe('sign-up → real mail → verify → log in', () => {
  it('creates a verified owner of a Free workspace who then signs in and out', async () => {
    const email = uniqueUserEmail('ada')
    const signUp = await anonymous()('/api/v1/auth/signup', {
      method: 'POST',
      json: { email: email.toUpperCase(), password: TEST_PASSWORD, name: 'Ada Lovelace', workspace_name: 'Analytical Engines' },
    })
    expect(signUp.status).toBe(202)
    expect(await bodyOf(signUp)).toEqual({ message: `Check your inbox at ${email}: we sent you an e-mail to continue.` })

    // Before verifying (the account exists once its mail is sent): the right password gets 403 and a fresh link.
    await server.mail.waitFor(email)
    const early = await anonymous()('/api/v1/auth/login', { method: 'POST', json: { email, password: TEST_PASSWORD } })
    await expectError(early, 403, `Verify your e-mail first: we sent a new confirmation link to ${email}.`)

    const [first] = await server.mail.waitFor(email, 2)
    expect(first?.subject).toBe('Confirm your e-mail address for Signet')
    expect(first?.text).toContain('http://signet.test/app/verify-email?token=')
    const token = await linkTokenFromMail(server.mail, email, 'verify-email', 2)
    const verified = await anonymous()('/api/v1/auth/verify-email', { method: 'POST', json: { token } })
    expect(verified.status).toBe(200)
    const me = await bodyOf<{ user: { id: string; email: string; email_verified: boolean }; workspace: { name: string; plan: string; role: string } }>(verified)
    expect(me.user).toMatchObject({ email, email_verified: true, is_operator: false })
    expect(me.workspace).toMatchObject({ name: 'Analytical Engines', plan: 'free', role: 'owner' })
    const setCookie = verified.headers.getSetCookie().join('\n')
    expect(setCookie).toMatch(/signet_session=[A-Za-z0-9_-]{43}; Path=\/; Expires=[^;]+; HttpOnly; SameSite=Lax/)
    expect(setCookie).not.toMatch(/Secure/) // PUBLIC_URL is http://

    // The link works once.
    await expectError(await anonymous()('/api/v1/auth/verify-email', { method: 'POST', json: { token } }), 410, /expired or was already used/)

    const login = await anonymous()('/api/v1/auth/login', { method: 'POST', json: { email, password: TEST_PASSWORD } })
    expect(login.status).toBe(200)
    const cookie = sessionCookieOf(login)
    expect(cookie).toBeDefined()
    const session = sessionFetch(server.url, cookie ?? '')
    expect((await bodyOf(await session('/api/v1/me'))).user).toMatchObject({ email, name: 'Ada Lovelace' })

    // The session acts as the workspace on the public API (documents list).
    expect((await session('/api/v1/documents')).status).toBe(200)

    const logout = await session('/api/v1/auth/logout', { method: 'POST' })
    expect(logout.status).toBe(204)
    expect(logout.headers.getSetCookie().join()).toMatch(/signet_session=;/)
    await expectError(await session('/api/v1/me'), 401, 'Your session has ended. Sign in again.')
  })

  it('refuses short, long and common passwords, a blank name and a missing workspace name with a readable message at that field', async () => {
    const post = (json: unknown) => anonymous()('/api/v1/auth/signup', { method: 'POST', json })
    const base = { email: uniqueUserEmail(), name: 'A', workspace_name: 'W' }
    const common = 'This password is one of the most common ones, which attackers try first. Choose another.'
    const refusals: [Record<string, string>, string, string][] = [
      [{ ...base, password: 'short' }, 'Choose a password of at least 8 characters.', '/password'],
      [{ ...base, password: 'x'.repeat(129) }, 'Choose a password of at most 128 characters.', '/password'],
      [{ ...base, password: 'Password123' }, common, '/password'],
      [{ ...base, password: 'Qwerty2024' }, common, '/password'],
      [{ ...base, password: base.email.toUpperCase() }, 'Choose a password other than your e-mail address.', '/password'],
      [{ ...base, name: '   ', password: TEST_PASSWORD }, 'Your name cannot be blank.', '/name'],
      [
        { email: uniqueUserEmail(), name: 'A', password: TEST_PASSWORD },
        'Name your workspace (workspace_name): your team sees it on documents and in mails.',
        '/workspace_name',
      ],
    ]
    for (const [json, error, field] of refusals) {
      const refused = await post(json)
      expect({ status: refused.status, body: await bodyOf(refused) }).toEqual({ status: 400, body: { error, code: 'invalid_request', field } })
    }
    // No composition rules: a long passphrase of lower-case words is fine.
    expect((await post({ ...base, password: 'purple monkey dishwasher' })).status).toBe(202)
  })

  it('updates the name, lists and ends sessions, switches and creates workspaces', async () => {
    const ada = await signUpAndSignIn(server.url, server.mail, { name: 'Ada' })
    const renamed = await ada.fetch('/api/v1/me', { method: 'PATCH', json: { name: 'Ada King' } })
    expect((await bodyOf(renamed)).user).toMatchObject({ name: 'Ada King' })
    const blank = await ada.fetch('/api/v1/me', { method: 'PATCH', json: { name: '  ' } })
    expect({ status: blank.status, body: await bodyOf(blank) }).toEqual({
      status: 400,
      body: { error: 'Your name cannot be blank.', code: 'invalid_request', field: '/name' },
    })

    const second = await anonymous()('/api/v1/auth/login', {
      method: 'POST',
      json: { email: ada.email, password: ada.password },
      headers: { 'user-agent': 'Phone' },
    })
    const secondCookie = sessionCookieOf(second) ?? ''
    const listed = await bodyOf<{ sessions: { id: string; current: boolean; user_agent: string | null }[] }>(await ada.fetch('/api/v1/me/sessions'))
    expect(listed.sessions).toHaveLength(2)
    expect(listed.sessions.filter((s) => s.current)).toHaveLength(1)
    const phone = listed.sessions.find((s) => s.user_agent === 'Phone')
    expect(phone?.current).toBe(false)
    expect((await ada.fetch(`/api/v1/me/sessions/${phone?.id}`, { method: 'DELETE' })).status).toBe(204)
    await expectError(await sessionFetch(server.url, secondCookie)('/api/v1/me'), 401)
    await expectError(await ada.fetch(`/api/v1/me/sessions/${phone?.id}`, { method: 'DELETE' }), 404, 'No such session of yours.')

    const unnamed = await ada.fetch('/api/v1/workspaces', { method: 'POST', json: { name: ' ' } })
    expect({ status: unnamed.status, body: await bodyOf(unnamed) }).toEqual({
      status: 400,
      body: { error: 'The workspace name cannot be blank.', code: 'invalid_request', field: '/name' },
    })
    const created = await ada.fetch('/api/v1/workspaces', { method: 'POST', json: { name: 'Second' } })
    expect(created.status).toBe(201)
    const me = await bodyOf<{ workspace: { id: string; name: string; role: string }; workspaces: { id: string }[] }>(created)
    expect(me.workspace).toMatchObject({ name: 'Second', role: 'owner' })
    expect(me.workspaces).toHaveLength(2)
    const switched = await ada.fetch('/api/v1/me/workspace', { method: 'POST', json: { workspace_id: ada.orgId } })
    expect((await bodyOf<{ workspace: { id: string } }>(switched)).workspace.id).toBe(ada.orgId)
    await expectError(await ada.fetch('/api/v1/me/workspace', { method: 'POST', json: { workspace_id: '00000000-0000-4000-8000-000000000000' } }), 404)
  })

  it('session-only routes refuse API keys; public instance facts need nothing', async () => {
    const org = await server.createOrg()
    await expectError(await server.request('/api/v1/me', { key: org.apiKey }), 401, /Sign in to the dashboard/)
    await expectError(await server.request('/api/v1/members', { key: org.apiKey }), 401, /Sign in to the dashboard/)
    const instance = await server.request('/api/v1/instance')
    expect(await bodyOf(instance)).toEqual({ setup_required: true, signup_open: true, version: '1.0.0' })
    await expectError(await server.request('/api/v1/me'), 401, /Missing API key/)
  })
})
