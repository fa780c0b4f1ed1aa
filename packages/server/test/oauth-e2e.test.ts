import { randomUUID } from 'node:crypto'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { auth, type OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js'
import type { Browser, BrowserContext } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { launchChromium } from './helpers/browser.ts'
import { TOOL_NAMES } from './helpers/mcp.ts'
import {
  cleanUpProcesses,
  makeTempDir,
  runCli,
  runCliJson,
  startServer,
  usingPostgres,
  writePdf,
  type CreatedOrg,
  type CreatedTemplate,
  type ServerProcess,
} from './helpers/processes.ts'
import { TEST_PASSWORD, uniqueUserEmail } from './helpers/session.ts'

/*
 * Issue 20 end to end, as a person connecting an agent would: the official MCP SDK's OAuth
 * client, given only the endpoint's URL of the server as `npm start` runs it, discovers,
 * registers and opens the authorize URL; Chromium logs in and consents on the dashboard's pages;
 * the SDK exchanges the code (PKCE) and calls tools; refresh rotates; Revoke in Connected apps
 * ends it. On PostgreSQL a second server process shares every grant and token.
 */

const TIMEOUT_MS = 240_000

let server: ServerProcess
let base: string
let browser: Browser
let context: BrowserContext
let callback: Server
let callbackUrl: string
/** Codes (or errors) the browser brought back to the callback, by state. */
const landings: URLSearchParams[] = []
let org: CreatedOrg
let ownerEmail: string

/** The SDK's client-side storage, in memory: what a real agent host keeps on disk. */
class MemoryOAuthClient implements OAuthClientProvider {
  information: OAuthClientInformationMixed | undefined
  saved: OAuthTokens | undefined
  verifier = ''
  authorizationUrl: URL | undefined
  constructor(private readonly name: string) {}
  get redirectUrl() {
    return callbackUrl
  }
  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: this.name,
      redirect_uris: [callbackUrl],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    }
  }
  clientInformation() {
    return this.information
  }
  saveClientInformation(information: OAuthClientInformationMixed) {
    this.information = information
  }
  tokens() {
    return this.saved
  }
  saveTokens(tokens: OAuthTokens) {
    this.saved = tokens
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier
  }
  codeVerifier() {
    return this.verifier
  }
}

beforeAll(async () => {
  callback = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://callback.invalid')
    // The browser also asks for /favicon.ico, sometimes.
    if (url.pathname === '/callback') landings.push(url.searchParams)
    response.writeHead(200, { 'content-type': 'text/plain' }).end('You can close this window.')
  })
  await new Promise<void>((resolve) => callback.listen(0, '127.0.0.1', resolve))
  callbackUrl = `http://127.0.0.1:${(callback.address() as AddressInfo).port}/callback`

  const dataDir = makeTempDir('oauth-e2e')
  server = await startServer({ dataDir })
  // PUBLIC_URL defaults to http://localhost:<port>: the URL a person pastes into their agent.
  base = `http://localhost:${server.port}`
  org = await runCliJson<CreatedOrg>(dataDir, ['org', 'create', '--name', 'Acme Agents', '--plan', 'business'])
  ownerEmail = uniqueUserEmail('owner')
  const created = await runCli(dataDir, [
    'user',
    'create',
    '--email',
    ownerEmail,
    '--name',
    'Olive Owner',
    '--password',
    TEST_PASSWORD,
    '--org',
    org.org_id,
    '--role',
    'owner',
  ])
  expect(created.code, created.stderr).toBe(0)
  browser = await launchChromium()
  context = await browser.newContext()
}, TIMEOUT_MS)

afterAll(async () => {
  await browser?.close()
  await cleanUpProcesses()
  callback?.closeAllConnections()
  await new Promise((resolve) => callback?.close(resolve))
}, TIMEOUT_MS)

/** In Chromium: opens the authorize URL, logs in if asked, picks the access and presses a button; returns what reached the callback. */
async function consentInBrowser(url: URL, choice: { access?: 'Read only' | 'Read and write'; button?: 'Allow' | 'Deny' } = {}): Promise<URLSearchParams> {
  const page = await context.newPage()
  const before = landings.length
  await page.goto(url.href)
  // The consent page sends a browser without a session to the login page, which comes back here.
  const logIn = page.getByRole('button', { name: 'Log in' })
  await logIn
    .or(page.getByRole('button', { name: 'Allow' }))
    .first()
    .waitFor()
  if (await logIn.isVisible()) {
    await page.getByLabel('E-mail').fill(ownerEmail)
    await page.getByLabel('Password').fill(TEST_PASSWORD)
    await page.getByRole('button', { name: 'Log in' }).click()
  }
  await page.getByRole('button', { name: 'Allow' }).waitFor()
  await expect.poll(() => page.getByText('Acme Agents').count(), { timeout: 20_000 }).toBeGreaterThan(0)
  if (choice.access) await page.getByRole('radio', { name: choice.access }).check()
  await page.getByRole('button', { name: choice.button ?? 'Allow' }).click()
  await expect.poll(() => landings.length, { timeout: 20_000 }).toBe(before + 1)
  await page.close()
  return landings[before] ?? new URLSearchParams()
}

/** The SDK's whole flow: discovery and registration, the browser, the code exchange. */
async function connect(agent: MemoryOAuthClient, choice: Parameters<typeof consentInBrowser>[1] = {}): Promise<void> {
  const serverUrl = `${base}/api/mcp`
  expect(await auth(agent, { serverUrl })).toBe('REDIRECT')
  expect(agent.authorizationUrl?.href.startsWith(`${base}/oauth/authorize?`)).toBe(true)
  const landed = await consentInBrowser(agent.authorizationUrl ?? new URL(base), choice)
  expect(landed.get('iss')).toBe(base)
  const code = landed.get('code')
  expect(code, landed.toString()).toBeTruthy()
  expect(await auth(agent, { serverUrl, authorizationCode: code ?? '' })).toBe('AUTHORIZED')
}

async function mcpClient(agent: OAuthClientProvider, at = base): Promise<Client> {
  const client = new Client({ name: 'oauth-e2e', version: '1.0.0' })
  await client.connect(new StreamableHTTPClientTransport(new URL(`${at}/api/mcp`), { authProvider: agent }))
  return client
}

const callMcp = (at: string, accessToken: string) =>
  fetch(`${at}/api/mcp`, {
    method: 'POST',
    headers: { authorization: `Bearer ${accessToken}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
  })

describe('an agent given only the MCP URL', () => {
  const full = new MemoryOAuthClient('Claude')

  test(
    'discovers, registers, sends the person through login and consent, and calls the tools with read and write',
    async () => {
      await connect(full)
      expect(full.saved?.token_type.toLowerCase()).toBe('bearer')
      expect(full.saved?.scope).toBe('read write')
      const client = await mcpClient(full)
      expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(TOOL_NAMES)
      const usage = await client.callTool({ name: 'get_usage', arguments: {} })
      expect(usage.isError).toBeFalsy()
      const pdf = await writePdf(server.dataDir, `nda-${randomUUID()}.pdf`, 1)
      const template = await runCliJson<CreatedTemplate>(server.dataDir, ['template', 'create', '--org', org.org_id, '--name', 'NDA', '--pdf', pdf])
      const sent = await client.callTool({ name: 'create_and_send_document', arguments: { template_id: template.id, signer_email: uniqueUserEmail('signer') } })
      expect(sent.isError, JSON.stringify(sent.content)).toBeFalsy()
      await client.close()
    },
    TIMEOUT_MS,
  )

  test(
    'a read-only grant (the person chose it though both were asked) sees seven tools and cannot create',
    async () => {
      const readOnly = new MemoryOAuthClient('Cursor')
      await connect(readOnly, { access: 'Read only' })
      expect(readOnly.saved?.scope).toBe('read')
      const client = await mcpClient(readOnly)
      expect((await client.listTools()).tools).toHaveLength(7)
      const refused = await client.callTool({ name: 'create_and_send_document', arguments: { template_id: randomUUID(), signer_email: 'a@example.com' } })
      expect(refused.isError).toBe(true)
      expect(refused.content).toEqual([{ type: 'text', text: 'This OAuth grant is read-only: the tool create_and_send_document needs the write scope.' }])
      await client.close()
    },
    TIMEOUT_MS,
  )

  test(
    'Deny returns access_denied to the client',
    async () => {
      const denied = new MemoryOAuthClient('Denied Agent')
      expect(await auth(denied, { serverUrl: `${base}/api/mcp` })).toBe('REDIRECT')
      const landed = await consentInBrowser(denied.authorizationUrl ?? new URL(base), { button: 'Deny' })
      expect(landed.get('error')).toBe('access_denied')
      expect(landed.get('code')).toBeNull()
    },
    TIMEOUT_MS,
  )

  test(
    'refresh rotates: the SDK gets a new pair that works, and the old refresh token is refused',
    async () => {
      const before = full.saved
      const old = before?.refresh_token ?? ''
      expect(old).not.toBe('')
      // Expired as far as the client knows: auth() refreshes.
      expect(await auth(full, { serverUrl: `${base}/api/mcp` })).toBe('AUTHORIZED')
      expect(full.saved?.refresh_token).not.toBe(old)
      expect((await callMcp(base, full.saved?.access_token ?? '')).status).toBe(200)
      const reused = await fetch(`${base}/oauth/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: old, client_id: full.information?.client_id ?? '' }),
      })
      expect(reused.status).toBe(400)
      expect(((await reused.json()) as { error: string }).error).toBe('invalid_grant')
    },
    TIMEOUT_MS,
  )

  test(
    'Revoke in Settings → Connected apps makes the next call 401' + (usingPostgres ? ', on a second server process too' : ''),
    async () => {
      const agent = new MemoryOAuthClient('VS Code')
      await connect(agent)
      const token = agent.saved?.access_token ?? ''
      expect((await callMcp(base, token)).status).toBe(200)
      // Several processes on one PostgreSQL share grants and tokens (and hear of revocations).
      const second = usingPostgres ? await startServer({ dataDir: makeTempDir('oauth-e2e-second'), env: { PUBLIC_URL: base } }) : null
      if (second) expect((await callMcp(second.url, token)).status).toBe(200)

      const page = await context.newPage()
      await page.goto(`${base}/app/settings/connected-apps`)
      await page.getByRole('button', { name: 'Revoke VS Code' }).click()
      // The confirmation is modal: while it is open the row's button is hidden from the page's roles,
      // so its absence alone does not mean the revocation has been answered. Wait for the answer.
      const revoked = page.waitForResponse((response) => response.request().method() === 'DELETE' && response.url().includes('/api/v1/connected-apps/'))
      await page.getByRole('button', { name: 'Revoke access' }).click()
      expect((await revoked).status()).toBe(204)
      await expect.poll(() => page.getByRole('button', { name: 'Revoke VS Code' }).count(), { timeout: 20_000 }).toBe(0)
      await page.close()

      expect((await callMcp(base, token)).status).toBe(401)
      if (second) {
        await expect.poll(async () => (await callMcp(second.url, token)).status, { timeout: 5_000 }).toBe(401)
        await second.stop()
      }
    },
    TIMEOUT_MS,
  )
})
