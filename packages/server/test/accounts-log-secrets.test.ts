import { afterAll, describe, expect, it } from 'vitest'
import { createLogger } from '../src/lib/logger.ts'
import { logCapture } from './helpers/log-capture.ts'
import { linkTokenFromMail, sessionCookieOf, sessionFetch, signUpAndSignIn, uniqueUserEmail } from './helpers/session.ts'
import { startTestServer, type TestServer } from './helpers/test-server.ts'

const servers: TestServer[] = []
afterAll(() => Promise.all(servers.map((server) => server.close())))

const leaked = (text: string, secrets: Record<string, string>) =>
  Object.entries(secrets)
    .filter(([, secret]) => text.includes(secret))
    .map(([name]) => name)

describe('the log of the account flows at debug level', () => {
  it('holds none of the passwords, session cookies or single-use links they used', async () => {
    const log = logCapture()
    const server = await startTestServer({ env: { LOG_LEVEL: 'debug' }, logStream: log.stream })
    servers.push(server)
    const password = 'my very secret passphrase'
    const owner = await signUpAndSignIn(server.url, server.mail, { password })
    const verifyToken = await linkTokenFromMail(server.mail, owner.email, 'verify-email')
    const anonymous = sessionFetch(server.url, '')

    const login = await anonymous('/api/v1/auth/login', { method: 'POST', json: { email: owner.email, password } })
    const loginCookie = sessionCookieOf(login) ?? ''
    expect(login.status).toBe(200)
    expect((await anonymous('/api/v1/auth/login', { method: 'POST', json: { email: owner.email, password: `${password}!` } })).status).toBe(401)

    expect((await anonymous('/api/v1/auth/forgot-password', { method: 'POST', json: { email: owner.email } })).status).toBe(202)
    const resetToken = await linkTokenFromMail(server.mail, owner.email, 'reset-password', 2)
    const newPassword = 'another secret passphrase'
    const reset = await anonymous('/api/v1/auth/reset-password', { method: 'POST', json: { token: resetToken, password: newPassword } })
    expect(reset.status).toBe(200)
    const session = sessionFetch(server.url, sessionCookieOf(reset) ?? '')

    const invitee = uniqueUserEmail('invitee')
    expect((await session('/api/v1/members/invitations', { method: 'POST', json: { email: invitee, role: 'member' } })).status).toBe(201)
    const invitation = await linkTokenFromMail(server.mail, invitee, 'invite')
    expect((await anonymous(`/api/v1/invitations/${invitation}`)).status).toBe(200)
    expect((await session(`/api/v1/invitations/${invitation}/accept`, { method: 'POST' })).status).toBe(403)
    expect(
      (await session('/api/v1/me/password', { method: 'POST', json: { current_password: newPassword, new_password: 'third secret passphrase' } })).status,
    ).toBe(204)

    const secrets = {
      password,
      newPassword,
      thirdPassword: 'third secret passphrase',
      verifyToken,
      resetToken,
      invitation,
      firstCookie: owner.cookie,
      loginCookie,
    }
    expect(leaked(log.text(), secrets)).toEqual([])
    // …yet the requests were logged, by path.
    const urls = log.entries().flatMap((entry) => ((entry.req as { url?: string } | undefined)?.url ? [(entry.req as { url: string }).url] : []))
    expect(urls).toEqual(expect.arrayContaining(['/api/v1/auth/login', '/api/v1/invitations/[redacted]', '/api/v1/invitations/[redacted]/accept']))
  })

  it('redacts password fields, link tokens and session cookies wherever a line carries them', () => {
    const log = logCapture()
    const logger = createLogger({ logLevel: 'debug' }, log.stream)
    const token = 'AbCdEfGhIjKlMnOpQrStUvWxYz0123456789_-abcde'
    logger.info({ body: { password: 'hunter2 hunter2', new_password: 'x y z w v', invitation_token: token } }, 'body')
    logger.warn(`opening http://signet.test/app/reset-password?token=${token} and /app/invite/${token}`)
    logger.warn(`cookie: signet_session=${token}`)
    expect(leaked(log.text(), { token, password: 'hunter2 hunter2', newPassword: 'x y z w v' })).toEqual([])
  })
})
