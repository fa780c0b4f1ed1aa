import { afterAll, describe, expect, it } from 'vitest'
import { createLogger } from '../src/lib/logger.ts'
import { codeMail } from '../src/mail/templates.ts'
import { bodyOf, postDocument, setupOrg, uniqueEmail } from './helpers/api.ts'
import { sendForSigning, valuesFor } from './helpers/signing.ts'
import { logCapture } from './helpers/log-capture.ts'
import { startTestServer, type TestServer } from './helpers/test-server.ts'

/** The names of the secrets that occur in the text; a 6-digit code only as a number of its own (not inside a timestamp or hash). */
const leaked = (text: string, secrets: Record<string, string>) =>
  Object.entries(secrets)
    .filter(([, secret]) => (/^\d{6}$/.test(secret) ? new RegExp(`(?<![0-9A-Za-z])${secret}(?![0-9A-Za-z])`).test(text) : text.includes(secret)))
    .map(([name]) => name)

const servers: TestServer[] = []
afterAll(() => Promise.all(servers.map((server) => server.close())))

/** The status, once the body is read: an unread body keeps its connection busy and the server from closing. */
async function statusOf(response: Promise<Response>): Promise<number> {
  const done = await response
  await done.arrayBuffer()
  return done.status
}

describe('the log of a full signing run at debug level', () => {
  it('holds none of the API key, signing tokens, e-mail code or session cookie it used', async () => {
    const log = logCapture()
    const server = await startTestServer({ env: { LOG_LEVEL: 'debug', JOB_POLL_MS: '100' }, logStream: log.stream })
    servers.push(server)
    const org = await setupOrg(server, { name: 'Acme Logs' })
    const { documentId, signers } = await sendForSigning(server, org, { roles: [0, 1], authRequired: [true, false] })
    const [withCode, plain] = signers as [NonNullable<(typeof signers)[0]>, NonNullable<(typeof signers)[0]>]

    expect(await statusOf(withCode.page())).toBe(200)
    expect(await statusOf(withCode.sendCode())).toBe(200)
    const code = await withCode.latestCode()
    expect(await statusOf(withCode.verify(code === '000000' ? '111111' : '000000'))).toBe(400)
    const verified = await withCode.verify(code)
    expect(await bodyOf(verified)).toEqual({ verified: true })
    const session = /^signet_signing=([^;]+)/.exec(verified.headers.get('set-cookie') ?? '')?.[1]
    expect(session).toBeDefined()
    expect(await statusOf(withCode.call('/document.pdf'))).toBe(200)
    expect(await statusOf(withCode.view())).toBe(200)
    expect(await statusOf(withCode.finish(valuesFor(0)))).toBe(200)

    expect(await statusOf(plain.page())).toBe(200)
    expect(await statusOf(plain.call('/no-such-page'))).toBe(404)
    expect(await statusOf(plain.call('/finish', { json: 'not an object' }))).toBe(400)
    expect(await statusOf(plain.finish(valuesFor(1)))).toBe(200)
    // Completion: the sealed PDF is produced in the background and mailed to both signers.
    await Promise.all([server.mail.waitFor(withCode.email, 3), server.mail.waitFor(plain.email, 2)])
    expect(await statusOf(withCode.call('/signed.pdf'))).toBe(200)
    const read = await server.request(`/api/v1/documents/${documentId}`, { headers: { 'x-api-key': org.apiKey } })
    expect((await bodyOf(read)).status).toBe('completed')

    const secrets = { apiKey: org.apiKey, tokenWithCode: withCode.token, tokenPlain: plain.token, code, session: session ?? '' }
    expect(leaked(log.text(), secrets)).toEqual([])

    // …yet the log did record those requests, by path.
    const urls = log.entries().flatMap((entry) => ((entry.req as { url?: string } | undefined)?.url ? [(entry.req as { url: string }).url] : []))
    expect(urls).toEqual(expect.arrayContaining(['/sign/[redacted]/code/verify', '/sign/[redacted]/finish', `/api/v1/documents/${documentId}`]))
  })
})

describe('a server without SMTP_URL', () => {
  it('refuses auth_required at once (no one could receive the code), and logs no code e-mail', async () => {
    const log = logCapture()
    const server = await startTestServer({ env: { LOG_LEVEL: 'info', SMTP_URL: '' }, logStream: log.stream })
    servers.push(server)
    const org = await setupOrg(server)
    const email = uniqueEmail()
    const refused = await postDocument(server, org.apiKey, { template_id: org.templateId, signer: { email, auth_required: true } })
    expect(refused.status).toBe(400)
    expect(await bodyOf(refused)).toEqual({
      error:
        'This Signet instance sends no e-mail (SMTP_URL is not set), so a signer could not receive the one-time code auth_required needs. Set SMTP_URL, or send without auth_required.',
      code: 'invalid_request',
      field: '/signer/auth_required',
    })
    // Without a code the invitation is kept and logged as before, by subject.
    expect(await statusOf(postDocument(server, org.apiKey, { template_id: org.templateId, signer: { email } }))).toBe(201)
    await server.services.mail.drain()
    expect(
      log
        .entries()
        .filter((entry) => entry.to === email)
        .map((entry) => entry.subject),
    ).toEqual([expect.stringContaining('sent you')])
  })

  it('code e-mails carry the code in their body only, never in the subject', () => {
    const mail = codeMail({ title: 'Lease 2026', signerName: 'Ann', code: '734505', validMinutes: 10, language: 'en' })
    expect(mail.subject).toBe('Here is your code to open "Lease 2026"')
    expect(mail.text).toContain('734505')
  })
})

describe('the logger', () => {
  it('redacts signing tokens and API keys wherever a line carries them: messages, error stacks, any field', () => {
    const log = logCapture()
    const logger = createLogger({ logLevel: 'debug' }, log.stream)
    const token = 'AbCdEfGhIjKlMnOpQrStUvWxYz0123456789_-abcde'
    const apiKey = `sgn_live_${'0123456789abcdef'.repeat(4)}`
    const error = new Error(`Reply was already sent, did you forget to "return reply" in the "/sign/${token}/finish" route?`)
    logger.warn(
      { err: error, reqUrl: `http://signet.test/sign/${token}?key=${apiKey}`, nested: { links: [`/sign/${token}`] } },
      `GET /sign/${token}/view failed`,
    )
    logger.child({ reqId: 'req-1' }).info(`Route GET:/sign/${token}/nope not found`)

    expect(leaked(log.text(), { token, apiKey })).toEqual([])
    const [first, second] = log.entries()
    expect(first).toMatchObject({
      msg: 'GET /sign/[redacted]/view failed',
      reqUrl: 'http://signet.test/sign/[redacted]?key=sgn_live_[redacted]',
      nested: { links: ['/sign/[redacted]'] },
    })
    expect((first?.err as { message: string }).message).toContain('"/sign/[redacted]/finish"')
    expect(second?.msg).toBe('Route GET:/sign/[redacted]/nope not found')
  })

  it('redacts credential fields by name at any depth, whatever their shape, and keeps everything else', () => {
    const log = logCapture()
    const logger = createLogger({ logLevel: 'debug' }, log.stream)
    const bearer = 'opaque-oauth-access-token-7f3a9c'
    logger.info(
      {
        req: { headers: { Authorization: `Bearer ${bearer}`, 'x-api-key': 'custom-key-1', cookie: 'theme=dark; other=1', host: 'signet.test' } },
        res: { headers: { 'set-cookie': ['a=secret-cookie-1; Path=/', 'b=secret-cookie-2'] } },
        deep: { deeper: { refresh_token: 'refresh "quoted" secret', code_token: 123456, token_prefix: 'sgn_abc' } },
      },
      'a "password": in a message is text, not a field',
    )
    const text = log.text()
    expect(leaked(text, { bearer, key: 'custom-key-1', cookie: 'theme=dark', setCookie: 'secret-cookie', refresh: 'quoted', code: '123456' })).toEqual([])
    expect(log.entries()[0]).toMatchObject({
      msg: 'a "password": in a message is text, not a field',
      req: { headers: { Authorization: '[redacted]', 'x-api-key': '[redacted]', cookie: '[redacted]', host: 'signet.test' } },
      res: { headers: { 'set-cookie': '[redacted]' } },
      deep: { deeper: { refresh_token: '[redacted]', code_token: '[redacted]', token_prefix: 'sgn_abc' } },
    })
  })
})
