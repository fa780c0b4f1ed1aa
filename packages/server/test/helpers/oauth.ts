import { createHash, randomBytes } from 'node:crypto'

/*
 * An OAuth client driven by hand over HTTP (the official SDK's client is used in
 * oauth-e2e.test.ts): dynamic registration, the authorization request with PKCE, the consent
 * page's JSON endpoints with a dashboard session, the code exchange and refresh. Free of
 * vitest, so the benchmarks obtain their access token with it too.
 */

/** Throws with the server's answer when a step did not answer as the flow needs. */
async function expectStatus(response: Response, status: number, step: string): Promise<void> {
  if (response.status !== status) throw new Error(`${step}: expected ${status}, got ${response.status} ${await response.clone().text()}`)
}

export const CALLBACK = 'http://127.0.0.1:9/callback'

export interface Pkce {
  verifier: string
  challenge: string
}

export function makePkce(): Pkce {
  const verifier = randomBytes(32).toString('base64url')
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') }
}

/** A cookie jar for one browser: every cookie set is sent back on every request (paths ignored: the names differ). */
export class CookieJar {
  private readonly cookies = new Map<string, string>()
  constructor(initial: Record<string, string> = {}) {
    for (const [name, value] of Object.entries(initial)) this.cookies.set(name, value)
  }
  take(response: Response): void {
    for (const line of response.headers.getSetCookie()) {
      const [pair = ''] = line.split(';')
      const index = pair.indexOf('=')
      const name = pair.slice(0, index).trim()
      const value = pair.slice(index + 1).trim()
      if (/expires=Thu, 01 Jan 1970/i.test(line) || value === '') this.cookies.delete(name)
      else this.cookies.set(name, value)
    }
  }
  header(): string {
    return [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ')
  }
}

/** Path and query of an absolute URL the server gave (its PUBLIC_URL may not be where the test reaches it). */
export const pathOf = (location: string): string => {
  const url = new URL(location, 'http://placeholder.invalid')
  return `${url.pathname}${url.search}`
}

export interface OAuthHarness {
  /** fetch relative to the server, no redirects followed. */
  request(path: string, init?: RequestInit & { jar?: CookieJar; form?: Record<string, string>; json?: unknown }): Promise<Response>
  publicUrl: string
}

export function oauthHarness(baseUrl: string, publicUrl: string): OAuthHarness {
  return {
    publicUrl,
    async request(path, init = {}) {
      const { jar, form, json, ...rest } = init
      const headers = new Headers(rest.headers)
      if (jar) headers.set('cookie', jar.header())
      let body = rest.body
      if (form) {
        headers.set('content-type', 'application/x-www-form-urlencoded')
        body = new URLSearchParams(form).toString()
      }
      if (json !== undefined) {
        headers.set('content-type', 'application/json')
        body = JSON.stringify(json)
      }
      const response = await fetch(baseUrl + path, { ...rest, headers, body, redirect: 'manual' })
      jar?.take(response)
      return response
    },
  }
}

export async function registerClient(harness: OAuthHarness, metadata: Record<string, unknown> = {}): Promise<{ client_id: string } & Record<string, unknown>> {
  const response = await harness.request('/oauth/register', {
    method: 'POST',
    json: { redirect_uris: [CALLBACK], client_name: 'Test Agent', token_endpoint_auth_method: 'none', ...metadata },
  })
  await expectStatus(response, 201, 'registration')
  return (await response.json()) as { client_id: string }
}

export interface AuthorizationRequest {
  clientId: string
  pkce: Pkce
  redirectUri?: string
  scope?: string
  resource?: string | null
  state?: string
}

export function authorizePath(harness: OAuthHarness, request: AuthorizationRequest): string {
  const query = new URLSearchParams({
    response_type: 'code',
    client_id: request.clientId,
    redirect_uri: request.redirectUri ?? CALLBACK,
    scope: request.scope ?? 'read write',
    code_challenge: request.pkce.challenge,
    code_challenge_method: 'S256',
    state: request.state ?? 'state-1',
  })
  if (request.resource !== null) query.set('resource', request.resource ?? `${harness.publicUrl}/api/mcp`)
  return `/oauth/authorize?${query}`
}

/** Starts an authorization in the jar's browser: the uid of the consent page it is sent to. */
export async function startAuthorization(harness: OAuthHarness, jar: CookieJar, request: AuthorizationRequest): Promise<string> {
  const response = await harness.request(authorizePath(harness, request), { jar })
  await expectStatus(response, 303, 'authorization request')
  const location = pathOf(response.headers.get('location') ?? '')
  const uid = /^\/app\/oauth\/consent\/([^/?]+)$/.exec(location)?.[1]
  if (!uid) throw new Error(`the authorization request led to ${location}, not the consent page`)
  return uid
}

/** Answers the consent page; returns where the browser lands (the client's redirect URI with code or error). */
export async function answerConsent(harness: OAuthHarness, jar: CookieJar, uid: string, answer: Record<string, unknown>): Promise<URL> {
  const decided = await harness.request(`/app/oauth/consent/${uid}/decision`, {
    method: 'POST',
    jar,
    json: answer,
    headers: { origin: new URL(harness.publicUrl).origin },
  })
  await expectStatus(decided, 200, 'consent decision')
  const { redirect_to } = (await decided.json()) as { redirect_to: string }
  const resumed = await harness.request(pathOf(redirect_to), { jar })
  await expectStatus(resumed, 303, 'resumed authorization')
  return new URL(resumed.headers.get('location') ?? '')
}

export interface Tokens {
  access_token: string
  refresh_token?: string
  scope?: string
  expires_in: number
  token_type: string
}

export async function exchangeCode(harness: OAuthHarness, clientId: string, code: string, pkce: Pkce, extra: Record<string, string> = {}): Promise<Response> {
  return harness.request('/oauth/token', {
    method: 'POST',
    form: {
      grant_type: 'authorization_code',
      code,
      redirect_uri: CALLBACK,
      client_id: clientId,
      code_verifier: pkce.verifier,
      resource: `${harness.publicUrl}/api/mcp`,
      ...extra,
    },
  })
}

/** The whole flow for a signed-in person's jar: register (unless given a client), authorize, consent as `answer`, exchange. */
export async function obtainTokens(
  harness: OAuthHarness,
  jar: CookieJar,
  answer: Record<string, unknown>,
  options: { clientId?: string; scope?: string } = {},
): Promise<Tokens & { clientId: string }> {
  const clientId = options.clientId ?? (await registerClient(harness)).client_id
  const pkce = makePkce()
  const uid = await startAuthorization(harness, jar, { clientId, pkce, ...(options.scope ? { scope: options.scope } : {}) })
  const landed = await answerConsent(harness, jar, uid, answer)
  const code = landed.searchParams.get('code')
  if (!code) throw new Error(`the client got no code: ${landed.href}`)
  const response = await exchangeCode(harness, clientId, code, pkce)
  await expectStatus(response, 200, 'code exchange')
  return { ...((await response.json()) as Tokens), clientId }
}
