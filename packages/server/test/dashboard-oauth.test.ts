import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { Browser, BrowserContext, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { SESSION_COOKIE } from '../src/accounts/sessions.ts'
import { memberships } from '../src/db/schema.ts'
import { launchChromium } from './helpers/browser.ts'
import { dashboardContext, openDashboardPage, screenshotDashboardPage, seriousAccessibilityViolations } from './helpers/dashboard.ts'
import { openLocalhostOrigin, type LocalhostOrigin } from './helpers/localhost-origin.ts'
import { authorizePath, exchangeCode as exchangeOAuthCode, makePkce, oauthHarness, registerClient as registerOAuthClient, type Pkce } from './helpers/oauth.ts'
import { createSignedInUser, type SignedInUser } from './helpers/session.ts'
import { startTestServer, type TestServer } from './helpers/test-server.ts'
import { haveTools } from '../../../test-support/tools.ts'

/*
 * An AI app connecting with OAuth, as a person sees it: the real build under its real CSP in
 * Debian's Chromium, the real server and its authorization server. An app registers, sends the
 * browser to /oauth/authorize, the server sends it to the dashboard's consent page (through the
 * login without a session), and Allow or Deny sends it back to the app's redirect URI (a loopback
 * listener of the test, as a desktop app's would be). Settings → Connected apps lists the grants and revokes them.
 * The dashboard is opened at http://localhost:<port>, the server's PUBLIC_URL, so that every
 * URL the authorization server builds leads back to it (helpers/localhost-origin.ts).
 */

/** The app's redirect URI: a loopback listener standing in for the app (Playwright's routes do not see a redirect's next request). */
let callbackServer: Server
let callbackUrl = ''

let origin: LocalhostOrigin
let server: TestServer
/** The server as the browser reaches it (openDashboardPage reads its url). */
let site: TestServer
let browser: Browser
let owner: SignedInUser
let member: SignedInUser
let ownerContext: BrowserContext
let ownerProblems: string[]
let ownerPage: Page
/** The member's browser: signs in on the way to the consent page. */
let memberContext: BrowserContext
let memberProblems: string[]
/** The owner's access token from the consent of the read-and-write test, refused once revoked. */
let ownerAccessToken = ''
/** The consent page the owner answered with Allow. */
let answeredConsentPath = ''

/** Claude's redirect URI (claude.ai connectors): the consent page names its host. */
const CLAUDE_CALLBACK = 'https://claude.ai/api/mcp/auth_callback'
const WORKSPACE = 'Analytical Engines'
const OTHER_WORKSPACE = 'Difference Engine Ltd'

/** A walk through several pages with axe on each, on a busy 2-core machine. */
const BROWSER_WALK = { timeout: 180_000 }

/** The server at the browser's origin, as an OAuth client reaches it (helpers/oauth.ts). */
const oauth = () => oauthHarness(origin.url, origin.url)

/** Dynamic registration, as an MCP client does it: a public client with a loopback redirect URI. */
async function registerClient(clientName: string, redirectUris = [callbackUrl]): Promise<string> {
  return (await registerOAuthClient(oauth(), { redirect_uris: redirectUris, client_name: clientName })).client_id
}

const authorizeUrl = (clientId: string, pkce: Pkce, state: string, redirectUri = callbackUrl): string =>
  origin.url + authorizePath(oauth(), { clientId, pkce, state, redirectUri })

/** The app's side of the redirect: the page lands on the callback; its query is the OAuth answer. */
async function landedOnCallback(page: Page): Promise<URL> {
  await page.waitForURL((url) => url.href.startsWith(callbackUrl), { timeout: 20_000 })
  return new URL(page.url())
}

async function exchangeCode(clientId: string, code: string, pkce: Pkce): Promise<{ access_token: string; scope?: string }> {
  const response = await exchangeOAuthCode(oauth(), clientId, code, pkce, { redirect_uri: callbackUrl })
  const body = (await response.json()) as { access_token: string; scope?: string }
  expect(response.status, JSON.stringify(body)).toBe(200)
  return body
}

const listTools = (accessToken: string) =>
  server.request('/api/mcp', {
    method: 'POST',
    key: accessToken,
    headers: { accept: 'application/json, text/event-stream' },
    json: { jsonrpc: '2.0', id: 1, method: 'tools/list' },
  })

/** A browser for the dashboard at the localhost origin, signed in with the session cookie when given. */
async function appBrowserContext(sessionCookie?: string): Promise<{ context: BrowserContext; problems: string[] }> {
  const { context, problems } = await dashboardContext(browser)
  context.setDefaultTimeout(15_000)
  if (sessionCookie) await context.addCookies([{ name: SESSION_COOKIE, value: sessionCookie, url: origin.url, httpOnly: true, sameSite: 'Lax' }])
  return { context, problems }
}

async function expectAccessible(page: Page, what: string) {
  expect(await seriousAccessibilityViolations(page), what).toEqual([])
}

describe.runIf(haveTools('chromium'))('connecting an AI app with OAuth in the dashboard', () => {
  beforeAll(async () => {
    callbackServer = createServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end('<!doctype html><title>Back in the app</title><h1>Connected</h1>')
    })
    await new Promise<void>((resolve) => callbackServer.listen(0, '127.0.0.1', resolve))
    callbackUrl = `http://127.0.0.1:${(callbackServer.address() as AddressInfo).port}/callback`
    origin = await openLocalhostOrigin()
    server = await startTestServer({ env: { PUBLIC_URL: origin.url } })
    origin.forwardTo(server.url)
    site = { ...server, url: origin.url }
    browser = await launchChromium()
    const { orgId } = await server.createOrg('free', WORKSPACE)
    const { orgId: otherOrgId } = await server.createOrg('free', OTHER_WORKSPACE)
    owner = await createSignedInUser(server, { orgId, role: 'owner', name: 'Ada Lovelace', email: 'ada.lovelace@example.com' })
    // The owner is a plain member of a second workspace: the picker, and what a member may grant there.
    await server.services.db.insert(memberships).values({ orgId: otherOrgId, userId: owner.userId, role: 'member' })
    member = await createSignedInUser(server, { orgId, role: 'member', name: 'Mia Member', email: 'mia.member@example.com' })
    ;({ context: ownerContext, problems: ownerProblems } = await appBrowserContext(owner.cookie))
    ownerPage = await ownerContext.newPage()
    ;({ context: memberContext, problems: memberProblems } = await appBrowserContext())
  }, 60_000)

  afterAll(async () => {
    await browser?.close()
    await server?.close()
    await origin?.close()
    callbackServer?.closeAllConnections()
    await new Promise((resolve) => callbackServer?.close(resolve))
  })

  it(
    'leads a person without a session through the login back to consent; a member may grant read-only access, and Allow returns a code',
    BROWSER_WALK,
    async () => {
      const clientId = await registerClient('Cursor')
      const pkce = makePkce()
      const page = await memberContext.newPage()
      await page.goto(authorizeUrl(clientId, pkce, 'member-state'))
      await page.waitForURL(/\/app\/login\?next=/)
      await page.getByText('An app asks to use your Signet workspace. Log in to decide.').waitFor()
      await page.getByLabel('E-mail').fill(member.email)
      await page.getByLabel('Password').fill(member.password)
      await page.getByRole('button', { name: 'Log in' }).click()

      await page.getByRole('heading', { level: 1, name: 'Cursor wants to use your Signet workspace' }).waitFor()
      expect(new URL(page.url()).pathname).toMatch(/^\/app\/oauth\/consent\/[^/]+$/)
      const card = page.locator('main')
      await card.getByText(`It will return you to ${new URL(callbackUrl).host}.`).waitFor()
      await card.getByText('This name was given by the app itself and is not verified by Signet.').waitFor()
      await card.getByText(`Signed in as ${member.email}`).waitFor()
      await card.getByText(WORKSPACE).waitFor()
      // Both scopes were asked; a member may grant only reading, and is told why.
      await card.getByText('Read-only access to documents and usage').waitFor()
      await card.getByText('Only owners and admins can let an app send or change documents.').waitFor()
      expect(await card.getByRole('radio').count()).toBe(0)
      expect(await card.getByText('Send, seal and manage documents', { exact: true }).count()).toBe(0)
      await expectAccessible(page, 'consent (member)')

      await page.getByRole('button', { name: 'Allow' }).click()
      const landed = await landedOnCallback(page)
      expect(landed.searchParams.get('state')).toBe('member-state')
      expect(landed.searchParams.get('iss')).toBe(origin.url)
      const code = landed.searchParams.get('code') ?? ''
      expect(code).not.toBe('')
      const tokens = await exchangeCode(clientId, code, pkce)
      expect(tokens.scope?.split(' ')).toEqual(['read'])
      expect(memberProblems).toEqual([])
      await page.close()
    },
  )

  it(
    'shows a signed-in owner the consent page at once: the workspace picker, the choice of read and write, and Allow returns a code',
    BROWSER_WALK,
    async () => {
      const clientId = await registerClient('Claude', [CLAUDE_CALLBACK, callbackUrl])
      // As Claude's connector asks (the page is only looked at: its answer would go to claude.ai).
      const asClaude = await ownerContext.newPage()
      await asClaude.goto(authorizeUrl(clientId, makePkce(), 'claude-state', CLAUDE_CALLBACK))
      await asClaude.getByRole('heading', { level: 1, name: 'Claude wants to use your Signet workspace' }).waitFor()
      await asClaude.getByText('It will return you to claude.ai.').waitFor()
      await screenshotDashboardPage(browser, ownerContext, site, new URL(asClaude.url()).pathname.replace(/^\/app/, ''), 'consent')
      await asClaude.close()

      const pkce = makePkce()
      await ownerPage.goto(authorizeUrl(clientId, pkce, 'owner-state'))
      await ownerPage.getByRole('heading', { level: 1, name: 'Claude wants to use your Signet workspace' }).waitFor()
      const consentPath = new URL(ownerPage.url()).pathname
      answeredConsentPath = consentPath
      expect(consentPath).toMatch(/^\/app\/oauth\/consent\/[^/]+$/)
      await ownerPage.getByText(`It will return you to ${new URL(callbackUrl).host}.`).waitFor()
      await ownerPage.getByText(`Signed in as ${owner.email}`).waitFor()

      const picker = ownerPage.getByRole('combobox', { name: 'Workspace' })
      await expect.poll(() => picker.textContent()).toBe(`${WORKSPACE} (Owner)`)
      const readWrite = ownerPage.getByRole('radio', { name: 'Read and write' })
      const readOnly = ownerPage.getByRole('radio', { name: 'Read only' })
      expect(await readWrite.isChecked()).toBe(true)
      expect(await readOnly.isChecked()).toBe(false)
      await ownerPage.getByText('Send, seal and manage documents').waitFor()
      await expectAccessible(ownerPage, 'consent (owner)')

      // In the workspace where the owner is a member, only reading can be granted.
      await picker.click()
      await ownerPage.getByRole('option', { name: `${OTHER_WORKSPACE} (Member)` }).click()
      await ownerPage.getByText('Only owners and admins can let an app send or change documents.').waitFor()
      expect(await ownerPage.getByRole('radio').count()).toBe(0)
      await picker.click()
      await ownerPage.getByRole('option', { name: `${WORKSPACE} (Owner)` }).click()
      await readWrite.waitFor()

      await ownerPage.getByRole('button', { name: 'Allow' }).click()
      const landed = await landedOnCallback(ownerPage)
      expect(landed.searchParams.get('state')).toBe('owner-state')
      expect(landed.searchParams.get('iss')).toBe(origin.url)
      const tokens = await exchangeCode(clientId, landed.searchParams.get('code') ?? '', pkce)
      expect(tokens.scope?.split(' ').sort()).toEqual(['read', 'write'])
      ownerAccessToken = tokens.access_token
      const tools = await listTools(ownerAccessToken)
      expect(tools.status).toBe(200)
      await tools.arrayBuffer()
    },
  )

  it('returns access_denied to the app on Deny, and grants nothing', BROWSER_WALK, async () => {
    const clientId = await registerClient('ChatGPT')
    await ownerPage.goto(authorizeUrl(clientId, makePkce(), 'deny-state'))
    await ownerPage.getByRole('heading', { level: 1, name: 'ChatGPT wants to use your Signet workspace' }).waitFor()
    await ownerPage.getByRole('button', { name: 'Deny' }).click()
    const landed = await landedOnCallback(ownerPage)
    expect(landed.searchParams.get('error')).toBe('access_denied')
    expect(landed.searchParams.get('state')).toBe('deny-state')
    expect(landed.searchParams.get('iss')).toBe(origin.url)
    expect(landed.searchParams.get('code')).toBeNull()
    expect(ownerProblems).toEqual([])
  })

  it('says a request is over when its page is opened again, or in a browser that did not start it', BROWSER_WALK, async () => {
    await openDashboardPage(ownerPage, site, answeredConsentPath.replace(/^\/app/, ''), 'This request has expired')
    await ownerPage.getByText('Go back to your app and connect again.').waitFor()
    await expectAccessible(ownerPage, 'consent (expired)')
    await openDashboardPage(ownerPage, site, '/oauth/consent/no-such-request', 'This request has expired')

    // Started in the owner's browser, opened in the member's: the member cannot answer it.
    await ownerPage.goto(authorizeUrl(await registerClient('VS Code'), makePkce(), 'elsewhere'))
    await ownerPage.getByRole('heading', { level: 1, name: 'VS Code wants to use your Signet workspace' }).waitFor()
    const memberPage = await memberContext.newPage()
    await openDashboardPage(memberPage, site, new URL(ownerPage.url()).pathname.replace(/^\/app/, ''), 'This request has expired')
    await memberPage.close()
  })

  it('lets the person use another account: signed out, logged in as someone else, back on the same request', BROWSER_WALK, async () => {
    const { context, problems } = await appBrowserContext(member.cookie)
    const page = await context.newPage()
    await page.goto(authorizeUrl(await registerClient('Claude Code'), makePkce(), 'switch-state'))
    await page.getByText(`Signed in as ${member.email}`).waitFor()
    await page.getByRole('button', { name: 'Use another account' }).click()
    await page.waitForURL(/\/app\/login\?next=/)
    await page.getByLabel('E-mail').fill(owner.email)
    await page.getByLabel('Password').fill(owner.password)
    await page.getByRole('button', { name: 'Log in' }).click()
    await page.getByText(`Signed in as ${owner.email}`).waitFor()
    await page.getByRole('radio', { name: 'Read and write' }).waitFor()
    await page.getByRole('button', { name: 'Deny' }).click()
    expect((await landedOnCallback(page)).searchParams.get('error')).toBe('access_denied')
    expect(problems).toEqual([])
    await context.close()
  })

  it('lists the grants under Settings → Connected apps; a member may revoke only their own; Revoke ends the access at once', BROWSER_WALK, async () => {
    // The member sees both apps, and Revoke only on the one they allowed.
    const memberPage = await memberContext.newPage()
    await openDashboardPage(memberPage, site, '/settings/connected-apps', 'Connected apps')
    await memberPage.getByRole('row', { name: /Claude/ }).waitFor()
    expect(await memberPage.getByRole('button', { name: 'Revoke Claude' }).count()).toBe(0)
    await memberPage.getByRole('button', { name: 'Revoke Cursor' }).waitFor()
    await memberPage.close()

    await openDashboardPage(ownerPage, site, '/', 'Overview')
    await ownerPage.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Connected apps' }).click()
    await ownerPage.getByRole('heading', { level: 1, name: 'Connected apps' }).waitFor()
    const claude = ownerPage.getByRole('row', { name: /Claude/ })
    const cursor = ownerPage.getByRole('row', { name: /Cursor/ })
    await expect.poll(() => claude.textContent()).toContain('Read and write')
    expect(await claude.textContent()).toContain(owner.name)
    expect(await claude.textContent()).toContain('Unverified name')
    expect(await cursor.textContent()).toContain('Read only')
    expect(await cursor.textContent()).toContain(member.name)
    expect(await ownerPage.getByRole('row', { name: /ChatGPT/ }).count()).toBe(0)
    await expectAccessible(ownerPage, '/settings/connected-apps')
    await screenshotDashboardPage(browser, ownerContext, site, '/settings/connected-apps', 'connected-apps')

    await claude.getByRole('button', { name: 'Revoke Claude' }).click()
    const confirm = ownerPage.getByRole('alertdialog', { name: 'Revoke access for “Claude”?' })
    await confirm.getByText('It stops working at once; it can connect again only after someone allows it again.').waitFor()
    await expectAccessible(ownerPage, '/settings/connected-apps (confirm revoke)')
    await confirm.getByRole('button', { name: 'Revoke access' }).click()
    await confirm.waitFor({ state: 'detached' })
    await claude.waitFor({ state: 'detached' })
    const refused = await listTools(ownerAccessToken)
    expect(refused.status).toBe(401)
    await refused.arrayBuffer()

    await cursor.getByRole('button', { name: 'Revoke Cursor' }).click()
    await ownerPage.getByRole('alertdialog', { name: 'Revoke access for “Cursor”?' }).getByRole('button', { name: 'Revoke access' }).click()
    await ownerPage.getByText('No connected apps yet').waitFor()
    await ownerPage.getByText(`${origin.url}/api/mcp`).waitFor()
    await ownerPage.getByRole('button', { name: 'Copy address' }).waitFor()
    await expectAccessible(ownerPage, '/settings/connected-apps (empty)')
    expect(ownerProblems).toEqual([])
  })
})
