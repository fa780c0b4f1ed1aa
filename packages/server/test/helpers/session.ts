import { hashPassword } from '../../src/accounts/passwords.ts'
import { createSession, SESSION_COOKIE } from '../../src/accounts/sessions.ts'
import { memberships, orgs, users, type WorkspaceRole } from '../../src/db/schema.ts'
import type { Services } from '../../src/services.ts'
import type { MailCatcher } from './mail-catcher.ts'
import type { TestServer } from './test-server.ts'

/**
 * Dashboard sessions for tests: `signUpAndSignIn` walks the real sign-up (real mail, the
 * verification link, Set-Cookie); `createSignedInUser` writes the user, workspace and session
 * straight to the database for tests about something else. Both give a `fetch` that sends
 * the session cookie and the dashboard's Origin, as the browser does.
 */

export type SessionFetch = (path: string, init?: RequestInit & { json?: unknown }) => Promise<Response>

/** fetch relative to `baseUrl` with the session cookie and the dashboard's Origin; `json` is encoded with its Content-Type. */
export function sessionFetch(baseUrl: string, cookie: string, origin = new URL(baseUrl).origin): SessionFetch {
  return (path, init = {}) => {
    const { json, ...rest } = init
    const headers = new Headers(rest.headers)
    if (!headers.has('cookie')) headers.set('cookie', `${SESSION_COOKIE}=${cookie}`)
    if (!headers.has('origin')) headers.set('origin', origin)
    if (json !== undefined) headers.set('content-type', 'application/json')
    return fetch(baseUrl + path, { ...rest, headers, ...(json !== undefined ? { body: JSON.stringify(json) } : {}) })
  }
}

/** The session cookie's value in a response's Set-Cookie, if it sets one. */
export function sessionCookieOf(response: Response): string | undefined {
  for (const header of response.headers.getSetCookie()) {
    const match = new RegExp(`^${SESSION_COOKIE}=([^;]*)`).exec(header)
    if (match) return match[1] || undefined
  }
  return undefined
}

/** The token of the newest dashboard link of this kind in mail to `to` (verify-email, reset-password, setup, invite). */
export async function linkTokenFromMail(mail: MailCatcher, to: string, kind: 'verify-email' | 'reset-password' | 'invite', count = 1): Promise<string> {
  const messages = await mail.waitFor(to, count)
  const pattern = kind === 'invite' ? /\/app\/invite\/([A-Za-z0-9_-]+)/ : new RegExp(`/app/${kind}\\?token=([A-Za-z0-9_-]+)`)
  for (const message of [...messages].reverse()) {
    const match = pattern.exec(message.text ?? '')
    if (match?.[1]) return match[1]
  }
  throw new Error(`no ${kind} link in the mail to ${to}`)
}

let counter = 0
/** A fresh address per call, unique across test files running at once. */
export const uniqueUserEmail = (label = 'user'): string => `${label}-${process.pid}-${Date.now().toString(36)}-${++counter}@example.com`

export const TEST_PASSWORD = 'correct horse battery staple'

export interface SignedInUser {
  email: string
  password: string
  name: string
  userId: string
  /** The selected workspace (their own, or the invitation's). */
  orgId: string
  /** The session cookie's value. */
  cookie: string
  fetch: SessionFetch
}

interface MeBody {
  user: { id: string }
  workspace: { id: string } | null
}

/**
 * The whole public path: POST /auth/signup, the verification mail through the real SMTP
 * catcher, POST /auth/verify-email (which signs in). Throws with the server's answer when a step fails.
 */
export async function signUpAndSignIn(
  baseUrl: string,
  mail: MailCatcher,
  options: { email?: string; password?: string; name?: string; workspaceName?: string } = {},
): Promise<SignedInUser> {
  const email = options.email ?? uniqueUserEmail()
  const password = options.password ?? TEST_PASSWORD
  const name = options.name ?? 'Ada Lovelace'
  const anonymous = sessionFetch(baseUrl, '')
  const before = mail.messages.filter((m) => m.to?.some((t) => t.address === email)).length
  const signUp = await anonymous('/api/v1/auth/signup', {
    method: 'POST',
    json: { email, password, name, workspace_name: options.workspaceName ?? `${name}'s workspace` },
  })
  if (signUp.status !== 202) throw new Error(`sign-up answered ${signUp.status}: ${await signUp.text()}`)
  const token = await linkTokenFromMail(mail, email, 'verify-email', before + 1)
  const verified = await anonymous('/api/v1/auth/verify-email', { method: 'POST', json: { token } })
  if (verified.status !== 200) throw new Error(`verify-email answered ${verified.status}: ${await verified.text()}`)
  const cookie = sessionCookieOf(verified)
  if (!cookie) throw new Error('verify-email set no session cookie')
  const me = (await verified.json()) as MeBody
  return { email, password, name, userId: me.user.id, orgId: me.workspace?.id ?? '', cookie, fetch: sessionFetch(baseUrl, cookie) }
}

/**
 * A verified user with a session, written straight to the database (no mail, no HTTP): in
 * `orgId` with `role` (default owner), or in a new Free workspace of their own. Given the
 * test server (or `baseUrl`), `fetch` calls it with the session.
 */
export async function createSignedInUser(
  target: Pick<TestServer, 'services' | 'url'> | Pick<Services, 'db' | 'config' | 'clock'>,
  options: { role?: WorkspaceRole; orgId?: string; email?: string; name?: string; password?: string; isOperator?: boolean; baseUrl?: string } = {},
): Promise<SignedInUser> {
  const services = 'services' in target ? target.services : target
  const baseUrl = options.baseUrl ?? ('url' in target ? target.url : undefined)
  const email = options.email ?? uniqueUserEmail()
  const password = options.password ?? TEST_PASSWORD
  const name = options.name ?? 'Grace Hopper'
  const now = services.clock.now()
  const passwordHash = await hashPassword(password)
  const { userId, orgId, token } = await services.db.transaction(async (tx) => {
    const [user] = await tx
      .insert(users)
      .values({ email, name, passwordHash, emailVerifiedAt: now, isOperator: options.isOperator ?? false })
      .returning({ id: users.id })
    if (!user) throw new Error('no user inserted')
    let orgId = options.orgId
    if (!orgId) {
      const [org] = await tx
        .insert(orgs)
        .values({ name: `${name}'s workspace`, plan: 'free' })
        .returning({ id: orgs.id })
      if (!org) throw new Error('no org inserted')
      orgId = org.id
    }
    await tx.insert(memberships).values({ orgId, userId: user.id, role: options.role ?? 'owner' })
    const session = await createSession(tx, services.config, { userId: user.id, orgId, ip: '127.0.0.1', userAgent: 'test', authMethod: 'password' }, now)
    return { userId: user.id, orgId, token: session.token }
  })
  const fetchWithSession: SessionFetch = baseUrl
    ? sessionFetch(baseUrl, token)
    : () => Promise.reject(new Error('createSignedInUser: pass the test server (or baseUrl) to use fetch'))
  return { email, password, name, userId, orgId, cookie: token, fetch: fetchWithSession }
}
