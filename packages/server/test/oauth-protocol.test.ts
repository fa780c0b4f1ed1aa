import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { and, eq, sql } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { SESSION_COOKIE } from '../src/accounts/sessions.ts'
import type { MetadataFetcher } from '../src/adapters/metadata-fetcher.ts'
import { oauthRecords, usageEvents } from '../src/db/schema.ts'
import { sha256Hex } from '../src/lib/crypto.ts'
import { bodyOf, setupOrg, uniqueEmail, type Json, type TestOrg } from './helpers/api.ts'
import { callErrorResult, callOk, TOOL_NAMES } from './helpers/mcp.ts'
import {
  answerConsent,
  authorizePath,
  CALLBACK,
  CookieJar,
  exchangeCode,
  makePkce,
  oauthHarness,
  obtainTokens,
  pathOf,
  registerClient,
  startAuthorization,
  type OAuthHarness,
} from './helpers/oauth.ts'
import { createSignedInUser, type SignedInUser } from './helpers/session.ts'
import { startTestServer, type TestServer } from './helpers/test-server.ts'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'

/*
 * Issue 20's authorization server at the protocol level, by hand over HTTP (oauth-e2e.test.ts
 * drives the official SDK client and Chromium): discovery, registration and its refusals, the
 * consent endpoints, the code and refresh grants and their refusals, tokens bound to the MCP
 * endpoint, Connected apps and revocation, and the audit trail of what an OAuth agent did.
 */

const METADATA_CLIENT_ID = 'https://agent.example/oauth/client.json'

let server: TestServer
let metadataServer: Server
let harness: OAuthHarness
let org: TestOrg
let owner: SignedInUser
let member: SignedInUser
let ownerJar: CookieJar
let memberJar: CookieJar
let resource: string

/** The "internet" for metadata documents: https://agent.example/… is served by a local HTTP server. */
const localMetadata =
  (port: () => number): MetadataFetcher =>
  (url, { headers }) => {
    const local = new URL(url)
    return fetch(`http://127.0.0.1:${port()}${local.pathname}`, { headers, redirect: 'manual' })
  }

beforeAll(async () => {
  metadataServer = createServer((request, response) => {
    if (request.url !== '/oauth/client.json') return void response.writeHead(404).end()
    response.writeHead(200, { 'content-type': 'application/json' })
    response.end(
      JSON.stringify({ client_id: METADATA_CLIENT_ID, client_name: 'Metadata Agent', redirect_uris: [CALLBACK], token_endpoint_auth_method: 'none' }),
    )
  })
  await new Promise<void>((resolve) => metadataServer.listen(0, '127.0.0.1', resolve))
  const metadataPort = () => (metadataServer.address() as AddressInfo).port
  // Invalidations from other processes arrive late; a revocation must not wait for this process's own.
  server = await startTestServer({ fetchClientMetadata: localMetadata(metadataPort), notificationDelayMs: 10_000 })
  harness = oauthHarness(server.url, server.config.publicUrl)
  resource = `${server.config.publicUrl}/api/mcp`
  org = await setupOrg(server, { name: 'Acme Agents' })
  owner = await createSignedInUser(server, { orgId: org.orgId, role: 'owner', name: 'Olive Owner' })
  member = await createSignedInUser(server, { orgId: org.orgId, role: 'member', name: 'Max Member' })
  ownerJar = new CookieJar({ [SESSION_COOKIE]: owner.cookie })
  memberJar = new CookieJar({ [SESSION_COOKIE]: member.cookie })
})
afterAll(async () => {
  await server?.close()
  // The server's fetches keep their connection alive: closing waits for none of them.
  metadataServer?.closeAllConnections()
  await new Promise((resolve) => metadataServer?.close(resolve))
})

const READ_WRITE = { allow: true, workspace_id: '', scopes: ['read', 'write'] }
const grantAll = () => ({ ...READ_WRITE, workspace_id: org.orgId })
const grantRead = () => ({ allow: true, workspace_id: org.orgId, scopes: ['read'] })

const mcp = (token: string, body: Json) =>
  server.request('/api/mcp', { method: 'POST', key: token, headers: { accept: 'application/json, text/event-stream' }, json: body })

async function agentWith(token: string): Promise<Client> {
  const client = new Client({ name: 'oauth-tests', version: '1.0.0' })
  await client.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/api/mcp`), { requestInit: { headers: { authorization: `Bearer ${token}` } } }))
  return client
}
const toolNames = async (client: Client) => (await client.listTools()).tools.map((tool) => tool.name)

const tokenRow = (accessToken: string) => and(eq(oauthRecords.model, 'AccessToken'), eq(oauthRecords.idHash, sha256Hex(accessToken)))

describe('discovery from the MCP endpoint alone', () => {
  test('POST /api/mcp without credentials: 401 whose WWW-Authenticate names the resource metadata and both scopes', async () => {
    const response = await server.request('/api/mcp', { method: 'POST', json: { jsonrpc: '2.0', id: 1, method: 'tools/list' } })
    expect(response.status).toBe(401)
    expect(response.headers.get('www-authenticate')).toBe(
      `Bearer resource_metadata="${server.config.publicUrl}/.well-known/oauth-protected-resource/api/mcp", scope="read write"`,
    )
    expect((await bodyOf(response)).code).toBe('missing_api_key')
  })

  test('protected resource metadata (RFC 9728) at both paths: the canonical resource, the issuer, the scopes', async () => {
    for (const path of ['/.well-known/oauth-protected-resource/api/mcp', '/.well-known/oauth-protected-resource']) {
      const response = await server.request(path)
      expect(response.status).toBe(200)
      const body = await bodyOf(response)
      expect(body).toMatchObject({ resource, authorization_servers: [server.config.publicUrl], scopes_supported: ['read', 'write'] })
    }
  })

  test('authorization server metadata (RFC 8414 and OpenID discovery): same issuer, S256 only, revocation, iss in responses, endpoints at PUBLIC_URL', async () => {
    const documents = await Promise.all(
      ['/.well-known/oauth-authorization-server', '/.well-known/openid-configuration'].map(async (path) => {
        const response = await server.request(path)
        expect(response.status).toBe(200)
        return bodyOf(response)
      }),
    )
    expect(documents[0]).toEqual(documents[1])
    const metadata = documents[0] ?? {}
    expect(metadata).toMatchObject({
      issuer: server.config.publicUrl,
      code_challenge_methods_supported: ['S256'],
      authorization_response_iss_parameter_supported: true,
      token_endpoint_auth_methods_supported: ['none'],
      response_types_supported: ['code'],
      client_id_metadata_document_supported: true,
      authorization_endpoint: `${server.config.publicUrl}/oauth/authorize`,
      token_endpoint: `${server.config.publicUrl}/oauth/token`,
      registration_endpoint: `${server.config.publicUrl}/oauth/register`,
      revocation_endpoint: `${server.config.publicUrl}/oauth/revoke`,
    })
    expect(metadata.scopes_supported).toEqual(expect.arrayContaining(['read', 'write']))
  })
})

describe('dynamic client registration', () => {
  test('the redirect URIs of Claude, ChatGPT, Cursor and VS Code are accepted; every client is public (a secret asked for is not issued)', async () => {
    const redirects = [
      ['https://claude.ai/api/mcp/auth_callback', 'https://claude.com/api/mcp/auth_callback'],
      ['https://chatgpt.com/connector_platform_oauth_redirect'],
      ['cursor://anysphere.cursor-retrieval/oauth/user-signet/callback'],
      ['http://127.0.0.1:33418/', 'https://vscode.dev/redirect'],
      ['http://localhost:6274/oauth/callback'],
    ]
    for (const redirect_uris of redirects) {
      const client = await registerClient(harness, { redirect_uris, token_endpoint_auth_method: 'client_secret_post' })
      expect(client).toMatchObject({ redirect_uris, token_endpoint_auth_method: 'none', grant_types: ['authorization_code', 'refresh_token'] })
      expect(client.client_secret).toBeUndefined()
    }
  })

  test.each([
    ['a javascript: URI', { redirect_uris: ['javascript:alert(1)'] }, 'invalid_redirect_uri'],
    ['a data: URI', { redirect_uris: ['data:text/html,hi'] }, 'invalid_redirect_uri'],
    ['plain http to another host', { redirect_uris: ['http://evil.example/callback'] }, 'invalid_redirect_uri'],
    ['a 10 KB redirect URI', { redirect_uris: [`https://agent.example/${'a'.repeat(10_000)}`] }, 'invalid_redirect_uri'],
    ['no redirect URI', { redirect_uris: [] }, 'invalid_redirect_uri'],
    ['a fragment', { redirect_uris: ['https://agent.example/cb#x'] }, 'invalid_redirect_uri'],
    ['redirect_uris not a list', { redirect_uris: 'https://agent.example/cb' }, 'invalid_redirect_uri'],
    ['an unknown grant type only', { redirect_uris: [CALLBACK], grant_types: ['password'] }, null],
  ])('%s is refused with a clear OAuth error and no client', async (_name, metadata, error) => {
    const response = await harness.request('/oauth/register', { method: 'POST', json: { client_name: 'Bad', ...metadata } })
    if (error === null) {
      // The policy replaces grant types (RFC 7591 lets the server): the client gets the code flow.
      expect(response.status).toBe(201)
      expect((await bodyOf(response)).grant_types).toEqual(['authorization_code', 'refresh_token'])
      return
    }
    expect(response.status).toBe(400)
    expect((await bodyOf(response)).error).toBe(error)
  })

  test('malformed bodies: 400 invalid_request or invalid_client_metadata, never a 5xx', async () => {
    const bodies: [string, string][] = [
      ['application/json', '{"redirect_uris": ['],
      ['application/json', '[]'],
      ['application/json', 'null'],
      ['text/plain', 'hello'],
      ['application/json', JSON.stringify({ redirect_uris: [CALLBACK], client_name: { nested: true } })],
    ]
    for (const [type, body] of bodies) {
      const response = await harness.request('/oauth/register', { method: 'POST', body, headers: { 'content-type': type } })
      expect(response.status, body).toBeGreaterThanOrEqual(400)
      expect(response.status, body).toBeLessThan(500)
      expect(['invalid_request', 'invalid_client_metadata']).toContain((await bodyOf(response)).error)
    }
  })
})

describe('authorization with consent', () => {
  test('the consent details name the client (self-asserted), the redirect host, the workspace and both scopes asked', async () => {
    const { client_id } = await registerClient(harness, { client_name: 'Claude' })
    const uid = await startAuthorization(harness, ownerJar, { clientId: client_id, pkce: makePkce() })
    const response = await harness.request(`/app/oauth/consent/${uid}/details`, { jar: ownerJar })
    expect(response.status).toBe(200)
    expect(await bodyOf(response)).toEqual({
      client: { name: 'Claude', name_verified: false, uri: null, redirect_host: '127.0.0.1:9', metadata_document: false },
      requested: ['read', 'write'],
      workspaces: [{ id: org.orgId, name: 'Acme Agents', role: 'owner', can_grant_write: true, selected: true }],
      user: { name: 'Olive Owner', email: owner.email },
    })
  })

  test('without a dashboard session the details are 401 (the page sends the person to log in); another browser gets 404', async () => {
    const { client_id } = await registerClient(harness)
    const jar = new CookieJar()
    const uid = await startAuthorization(harness, jar, { clientId: client_id, pkce: makePkce() })
    expect((await harness.request(`/app/oauth/consent/${uid}/details`, { jar })).status).toBe(401)
    // The owner's browser never started this request: it lacks the interaction cookie.
    const elsewhere = await harness.request(`/app/oauth/consent/${uid}/details`, { jar: new CookieJar({ [SESSION_COOKIE]: owner.cookie }) })
    expect(elsewhere.status).toBe(404)
  })

  test('read and write: the agent sees the ten tools and sends a document, audited as OAuth, the client and the person', async () => {
    const tokens = await obtainTokens(harness, ownerJar, grantAll(), { clientId: (await registerClient(harness, { client_name: 'Claude' })).client_id })
    expect(tokens).toMatchObject({ token_type: 'Bearer', scope: 'read write', expires_in: 3600 })
    expect(tokens.refresh_token).toBeTruthy()
    const agent = await agentWith(tokens.access_token)
    expect(await toolNames(agent)).toEqual(TOOL_NAMES)
    const { structured } = await callOk<Json>(agent, 'create_and_send_document', { template_id: org.templateId, signer_email: uniqueEmail() })
    // Metered as every agent send is, on the MCP channel.
    const [metered] = await server.services.db
      .select({ channel: usageEvents.channel, kind: usageEvents.kind })
      .from(usageEvents)
      .where(eq(usageEvents.documentId, String(structured.document_id)))
    expect(metered).toEqual({ channel: 'mcp', kind: 'send' })
    const audit = await bodyOf<{ events: Json[] }>(await server.request(`/api/v1/documents/${String(structured.document_id)}/audit`, { key: org.apiKey }))
    expect(audit.events[0]).toMatchObject({
      event: 'document.sent',
      auth_method: 'oauth',
      agent_triggered: true,
      actor: `Claude for Olive Owner <${owner.email}> (Acme Agents)`,
    })
    await agent.close()
  })

  test('read-only (the person narrowed both scopes to read): seven tools, and a write tool is refused naming the scope', async () => {
    const tokens = await obtainTokens(harness, ownerJar, grantRead())
    expect(tokens.scope).toBe('read')
    const agent = await agentWith(tokens.access_token)
    expect(await toolNames(agent)).toEqual(TOOL_NAMES.filter((name) => !['create_and_send_document', 'void_document', 'seal_document'].includes(name)))
    const refused = await callErrorResult(agent, 'create_and_send_document', { template_id: org.templateId, signer_email: uniqueEmail() })
    expect(refused.body.code).toBe('insufficient_scope')
    expect(refused.text).toContain('write scope')
    await callOk(agent, 'get_usage')
    await agent.close()
  })

  test.each([
    ['no scope at all', null],
    ['only openid', 'openid'],
  ])('a request naming neither scope (%s) asks for both, and the token carries what the person allowed', async (_name, scope) => {
    const { client_id } = await registerClient(harness)
    const pkce = makePkce()
    const path = authorizePath(harness, { clientId: client_id, pkce }).replace(/&scope=[^&]+/, scope ? `&scope=${scope}` : '')
    const response = await harness.request(path, { jar: ownerJar })
    expect(response.status).toBe(303)
    const uid = /\/app\/oauth\/consent\/([^/?]+)$/.exec(pathOf(response.headers.get('location') ?? ''))?.[1] ?? ''
    const details = await bodyOf<{ requested: string[] }>(await harness.request(`/app/oauth/consent/${uid}/details`, { jar: ownerJar }))
    expect(details.requested).toEqual(['read', 'write'])
    const landed = await answerConsent(harness, ownerJar, uid, grantAll())
    const tokens = await bodyOf<{ scope: string; access_token: string }>(await exchangeCode(harness, client_id, landed.searchParams.get('code') ?? '', pkce))
    expect(tokens.scope).toBe('read write')
  })

  test('a member may grant read only: write is refused at /scopes; their read grant works', async () => {
    const { client_id } = await registerClient(harness)
    const uid = await startAuthorization(harness, memberJar, { clientId: client_id, pkce: makePkce() })
    const details = await bodyOf<{ workspaces: Json[] }>(await harness.request(`/app/oauth/consent/${uid}/details`, { jar: memberJar }))
    expect(details.workspaces[0]).toMatchObject({ role: 'member', can_grant_write: false })
    const refused = await harness.request(`/app/oauth/consent/${uid}/decision`, {
      method: 'POST',
      jar: memberJar,
      json: grantAll(),
      headers: { origin: new URL(harness.publicUrl).origin },
    })
    expect(refused.status).toBe(403)
    expect(await bodyOf(refused)).toMatchObject({ code: 'forbidden', field: '/scopes' })
    const tokens = await obtainTokens(harness, memberJar, grantRead(), { clientId: client_id })
    expect(tokens.scope).toBe('read')
  })

  test('Deny sends access_denied (with iss and state) to the client; nothing is granted', async () => {
    const { client_id } = await registerClient(harness)
    const uid = await startAuthorization(harness, ownerJar, { clientId: client_id, pkce: makePkce(), state: 'deny-me' })
    const landed = await answerConsent(harness, ownerJar, uid, { allow: false })
    expect(`${landed.origin}${landed.pathname}`).toBe(CALLBACK)
    expect(Object.fromEntries(landed.searchParams)).toMatchObject({ error: 'access_denied', state: 'deny-me', iss: server.config.publicUrl })
  })

  test('a decision posted cross-origin, or replayed after the client got its code, is refused', async () => {
    const { client_id } = await registerClient(harness)
    const uid = await startAuthorization(harness, ownerJar, { clientId: client_id, pkce: makePkce() })
    const decide = (origin: string) =>
      harness.request(`/app/oauth/consent/${uid}/decision`, { method: 'POST', jar: ownerJar, json: grantAll(), headers: { origin } })
    expect((await decide('https://evil.example')).status).toBe(403)
    await answerConsent(harness, ownerJar, uid, grantAll())
    expect((await decide(new URL(harness.publicUrl).origin)).status).toBe(404)
  })

  test('a metadata-document client (a URL as client_id) is fetched and completes the flow', async () => {
    const pkce = makePkce()
    const uid = await startAuthorization(harness, ownerJar, { clientId: METADATA_CLIENT_ID, pkce })
    const details = await bodyOf<{ client: Json }>(await harness.request(`/app/oauth/consent/${uid}/details`, { jar: ownerJar }))
    expect(details.client).toMatchObject({ name: 'Metadata Agent', metadata_document: true })
    const landed = await answerConsent(harness, ownerJar, uid, grantRead())
    const response = await exchangeCode(harness, METADATA_CLIENT_ID, landed.searchParams.get('code') ?? '', pkce)
    expect(response.status).toBe(200)
  })
})

describe('refusals of the authorization and token endpoints', () => {
  test('an unregistered redirect URI gets an error page, never a redirect', async () => {
    const { client_id } = await registerClient(harness)
    const response = await harness.request(authorizePath(harness, { clientId: client_id, pkce: makePkce(), redirectUri: 'https://evil.example/cb' }))
    expect(response.status).toBe(400)
    expect(response.headers.get('location')).toBeNull()
    expect(await response.text()).toContain('redirect_uri')
  })

  test('missing PKCE, an unknown scope and another resource are sent back to the client as OAuth errors', async () => {
    const { client_id } = await registerClient(harness)
    const cases: [string, string][] = [
      [authorizePath(harness, { clientId: client_id, pkce: makePkce() }).replace(/&code_challenge=[^&]+&code_challenge_method=S256/, ''), 'invalid_request'],
      [
        authorizePath(harness, { clientId: client_id, pkce: makePkce() }).replace('code_challenge_method=S256', 'code_challenge_method=plain'),
        'invalid_request',
      ],
      [authorizePath(harness, { clientId: client_id, pkce: makePkce(), scope: 'read admin' }), 'invalid_scope'],
      [authorizePath(harness, { clientId: client_id, pkce: makePkce(), resource: 'https://other.example/mcp' }), 'invalid_target'],
    ]
    for (const [path, error] of cases) {
      const response = await harness.request(path, { jar: new CookieJar() })
      expect(response.status, path).toBe(303)
      const landed = new URL(response.headers.get('location') ?? '', 'http://relative.invalid')
      expect(`${landed.origin}${landed.pathname}`).toBe(CALLBACK)
      expect(landed.searchParams.get('error'), path).toBe(error)
    }
  })

  test('a reused code, a wrong verifier and a mismatched redirect_uri get invalid_grant', async () => {
    const { client_id } = await registerClient(harness, { redirect_uris: [CALLBACK, 'http://127.0.0.1:9/other'] })
    const codeFor = async () => {
      const pkce = makePkce()
      const uid = await startAuthorization(harness, ownerJar, { clientId: client_id, pkce })
      return { pkce, code: (await answerConsent(harness, ownerJar, uid, grantRead())).searchParams.get('code') ?? '' }
    }
    const first = await codeFor()
    expect((await exchangeCode(harness, client_id, first.code, first.pkce)).status).toBe(200)
    const reused = await exchangeCode(harness, client_id, first.code, first.pkce)
    expect(reused.status).toBe(400)
    expect((await bodyOf(reused)).error).toBe('invalid_grant')

    const second = await codeFor()
    const wrongVerifier = await exchangeCode(harness, client_id, second.code, makePkce())
    expect((await bodyOf(wrongVerifier)).error).toBe('invalid_grant')

    const third = await codeFor()
    const otherRedirect = await exchangeCode(harness, client_id, third.code, third.pkce, { redirect_uri: 'http://127.0.0.1:9/other' })
    expect((await bodyOf(otherRedirect)).error).toBe('invalid_grant')
  })

  test('a client deleted from the server gets invalid_client, so it registers again', async () => {
    const { client_id } = await registerClient(harness)
    await server.services.db.delete(oauthRecords).where(and(eq(oauthRecords.model, 'Client'), eq(oauthRecords.idHash, sha256Hex(client_id))))
    const response = await harness.request(authorizePath(harness, { clientId: client_id, pkce: makePkce() }))
    expect(response.status).toBe(400)
    expect(await response.text()).toContain('invalid_client')
  })
})

describe('tokens', () => {
  test('stored only as hashes: neither the access nor the refresh token appears in the database', async () => {
    const tokens = await obtainTokens(harness, ownerJar, grantRead())
    const dump = await server.services.db.execute(sql`select payload::text as payload, id_hash from oauth_records`)
    const text = JSON.stringify(dump)
    expect(text).not.toContain(tokens.access_token)
    expect(text).not.toContain(tokens.refresh_token)
  })

  test('an expired access token, and one issued for another audience, are 401 invalid_token', async () => {
    const expired = await obtainTokens(harness, ownerJar, grantRead())
    await server.services.db
      .update(oauthRecords)
      .set({ expiresAt: new Date(Date.now() - 1000) })
      .where(tokenRow(expired.access_token))
    const afterExpiry = await mcp(expired.access_token, { jsonrpc: '2.0', id: 1, method: 'tools/list' })
    expect(afterExpiry.status).toBe(401)
    expect(afterExpiry.headers.get('www-authenticate')).toContain('error="invalid_token"')
    expect((await bodyOf(afterExpiry)).code).toBe('invalid_token')

    const elsewhere = await obtainTokens(harness, ownerJar, grantRead())
    await server.services.db
      .update(oauthRecords)
      .set({ payload: sql`jsonb_set(${oauthRecords.payload}, '{aud}', '"https://other.example/mcp"')` })
      .where(tokenRow(elsewhere.access_token))
    expect((await mcp(elsewhere.access_token, { jsonrpc: '2.0', id: 1, method: 'tools/list' })).status).toBe(401)
  })

  test('a token the server never issued is 401, and an OAuth token is no API key for REST', async () => {
    expect((await mcp('A'.repeat(43), { jsonrpc: '2.0', id: 1, method: 'tools/list' })).status).toBe(401)
    const tokens = await obtainTokens(harness, ownerJar, grantAll())
    expect((await server.request('/api/v1/documents', { key: tokens.access_token })).status).toBe(401)
  })

  test('refresh rotates: the new pair works; the old refresh token is then invalid_grant', async () => {
    const tokens = await obtainTokens(harness, ownerJar, grantAll())
    const refresh = (refreshToken: string) =>
      harness.request('/oauth/token', { method: 'POST', form: { grant_type: 'refresh_token', refresh_token: refreshToken, client_id: tokens.clientId } })
    const refreshed = await refresh(tokens.refresh_token ?? '')
    expect(refreshed.status).toBe(200)
    const next = await bodyOf<{ access_token: string; refresh_token: string; scope: string }>(refreshed)
    expect(next.refresh_token).not.toBe(tokens.refresh_token)
    expect(next.scope).toBe('read write')
    expect((await mcp(next.access_token, { jsonrpc: '2.0', id: 1, method: 'tools/list' })).status).toBe(200)
    const reused = await refresh(tokens.refresh_token ?? '')
    expect(reused.status).toBe(400)
    expect((await bodyOf(reused)).error).toBe('invalid_grant')
  })

  test('the revocation endpoint (RFC 7009) ends an access token at once', async () => {
    const tokens = await obtainTokens(harness, ownerJar, grantRead())
    expect((await mcp(tokens.access_token, { jsonrpc: '2.0', id: 1, method: 'tools/list' })).status).toBe(200)
    const revoked = await harness.request('/oauth/revoke', { method: 'POST', form: { token: tokens.access_token, client_id: tokens.clientId } })
    expect(revoked.status).toBe(200)
    expect((await mcp(tokens.access_token, { jsonrpc: '2.0', id: 1, method: 'tools/list' })).status).toBe(401)
  })
})

describe('Connected apps', () => {
  test('lists the grant (name, scopes, who granted it); a member cannot revoke it; Revoke makes the next call 401, refresh included', async () => {
    const { client_id } = await registerClient(harness, { client_name: 'Cursor' })
    const tokens = await obtainTokens(harness, ownerJar, grantAll(), { clientId: client_id })
    expect((await mcp(tokens.access_token, { jsonrpc: '2.0', id: 1, method: 'tools/list' })).status).toBe(200)

    const listed = await bodyOf<{ data: Json[] }>(await owner.fetch('/api/v1/connected-apps'))
    const app = listed.data.find((entry) => entry.client_name === 'Cursor')
    expect(app).toMatchObject({
      client_name_verified: false,
      scopes: ['read', 'write'],
      granted_by: { id: owner.userId, name: 'Olive Owner', email: owner.email },
    })
    expect(app?.last_used_at).not.toBeNull()
    const memberSees = await bodyOf<{ data: Json[] }>(await member.fetch('/api/v1/connected-apps'))
    expect(memberSees.data.map((entry) => entry.id)).toContain(app?.id)
    expect((await member.fetch(`/api/v1/connected-apps/${String(app?.id)}`, { method: 'DELETE' })).status).toBe(403)
    expect((await server.request('/api/v1/connected-apps', { key: org.apiKey })).status).toBe(401)

    expect((await owner.fetch(`/api/v1/connected-apps/${String(app?.id)}`, { method: 'DELETE' })).status).toBe(204)
    expect((await mcp(tokens.access_token, { jsonrpc: '2.0', id: 1, method: 'tools/list' })).status).toBe(401)
    const refreshed = await harness.request('/oauth/token', {
      method: 'POST',
      form: { grant_type: 'refresh_token', refresh_token: tokens.refresh_token ?? '', client_id },
    })
    expect((await bodyOf(refreshed)).error).toBe('invalid_grant')
    const after = await bodyOf<{ data: Json[] }>(await owner.fetch('/api/v1/connected-apps'))
    expect(after.data.map((entry) => entry.id)).not.toContain(app?.id)
    expect((await owner.fetch(`/api/v1/connected-apps/${String(app?.id)}`, { method: 'DELETE' })).status).toBe(404)
  })
})

describe("a person's role decides what their grants still hold", () => {
  const toolCount = async (token: string) => {
    const response = await mcp(token, { jsonrpc: '2.0', id: 1, method: 'tools/list' })
    if (response.status !== 200) return response.status
    return ((await response.json()) as { result: { tools: unknown[] } }).result.tools.length
  }

  test('an admin demoted to member: their app keeps reading but no longer writes; removed from the workspace: 401', async () => {
    const admin = await createSignedInUser(server, { orgId: org.orgId, role: 'admin', name: 'Ada Admin' })
    const tokens = await obtainTokens(harness, new CookieJar({ [SESSION_COOKIE]: admin.cookie }), grantAll())
    expect(await toolCount(tokens.access_token)).toBe(10)
    expect((await owner.fetch(`/api/v1/members/${admin.userId}`, { method: 'PATCH', json: { role: 'member' } })).status).toBe(200)
    expect(await toolCount(tokens.access_token)).toBe(7)
    expect((await owner.fetch(`/api/v1/members/${admin.userId}`, { method: 'DELETE' })).status).toBe(204)
    expect(await toolCount(tokens.access_token)).toBe(401)
  })
})

describe('bad values are refused at their field, never a 5xx', () => {
  test.each([
    [{ allow: true, workspace_id: 'a\u0000b', scopes: ['read'] }, 400, '/workspace_id'],
    [{ allow: true, workspace_id: 'x'.repeat(101), scopes: ['read'] }, 400, '/workspace_id'],
    [{ allow: true, workspace_id: 5, scopes: ['read'] }, 400, '/workspace_id'],
    [{ allow: true, scopes: ['read'] }, 400, '/workspace_id'],
    [{ allow: true, workspace_id: 'WORKSPACE', scopes: ['admin'] }, 400, '/scopes/0'],
    [{ allow: true, workspace_id: 'WORKSPACE', scopes: [] }, 400, '/scopes'],
    [{ allow: true, workspace_id: 'WORKSPACE' }, 400, '/scopes'],
    [{ allow: 'yes' }, 400, '/allow'],
    [{ allow: true, workspace_id: 'OTHER ORG', scopes: ['read'] }, 404, '/workspace_id'],
  ])('consent decision %j: %i at %s', async (body, status, field) => {
    const other = await server.createOrg('free', 'Someone Else')
    const { client_id } = await registerClient(harness)
    const uid = await startAuthorization(harness, ownerJar, { clientId: client_id, pkce: makePkce() })
    const json = JSON.parse(JSON.stringify(body).replace('"WORKSPACE"', JSON.stringify(org.orgId)).replace('"OTHER ORG"', JSON.stringify(other.orgId))) as Json
    const response = await harness.request(`/app/oauth/consent/${uid}/decision`, {
      method: 'POST',
      jar: ownerJar,
      json,
      headers: { origin: new URL(harness.publicUrl).origin },
    })
    expect(response.status).toBe(status)
    expect((await bodyOf(response)).field).toBe(field)
  })

  test('a NUL character in a client name or a state is an OAuth invalid_request (jsonb cannot store it)', async () => {
    const registered = await harness.request('/oauth/register', { method: 'POST', json: { redirect_uris: [CALLBACK], client_name: 'a\u0000b' } })
    expect(registered.status).toBe(400)
    expect(await bodyOf(registered)).toMatchObject({ error: 'invalid_request', error_description: 'values must not contain NUL characters (U+0000)' })
    const { client_id } = await registerClient(harness)
    const response = await harness.request(authorizePath(harness, { clientId: client_id, pkce: makePkce(), state: 'a\u0000b' }), { jar: ownerJar })
    expect(response.status).toBeLessThan(500)
    const landed = new URL(response.headers.get('location') ?? '', 'http://relative.invalid')
    expect(landed.searchParams.get('error')).toBe('invalid_request')
  })

  test("a connected app id with a NUL, or another workspace's, is refused", async () => {
    expect((await owner.fetch('/api/v1/connected-apps/a%00b', { method: 'DELETE' })).status).toBe(400)
    const stranger = await createSignedInUser(server, { name: 'Stella Stranger' })
    const tokens = await obtainTokens(harness, new CookieJar({ [SESSION_COOKIE]: stranger.cookie }), {
      allow: true,
      workspace_id: stranger.orgId,
      scopes: ['read'],
    })
    const [theirs] = (await bodyOf<{ data: Json[] }>(await stranger.fetch('/api/v1/connected-apps'))).data
    expect((await owner.fetch(`/api/v1/connected-apps/${String(theirs?.id)}`, { method: 'DELETE' })).status).toBe(404)
    expect((await mcp(tokens.access_token, { jsonrpc: '2.0', id: 1, method: 'tools/list' })).status).toBe(200)
  })
})

test('the consent endpoint answers an unknown uid with 404, never a 5xx', async () => {
  expect((await harness.request('/app/oauth/consent/nope/details', { jar: ownerJar })).status).toBe(404)
  const posted = await harness.request('/app/oauth/consent/nope/decision', {
    method: 'POST',
    jar: ownerJar,
    json: grantAll(),
    headers: { origin: new URL(harness.publicUrl).origin },
  })
  expect(posted.status).toBe(404)
})
