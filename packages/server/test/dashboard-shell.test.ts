import type { Browser, BrowserContext, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { eq } from 'drizzle-orm'
import { issueOperatorSetupLink } from '../src/accounts/operator-setup.ts'
import { executeAdminCommand } from '../src/admin/commands.ts'
import { orgs } from '../src/db/schema.ts'
import { createSentDocument, uniqueEmail } from './helpers/api.ts'
import { makePdf } from './helpers/pdf.ts'
import { rgbaPng } from './helpers/png.ts'
import { launchChromium } from './helpers/browser.ts'
import {
  dashboardContext,
  linkFromMail,
  openDashboardPage,
  PHONE,
  screenshotDashboardPage,
  sendTestEvent,
  seriousAccessibilityViolations,
  signedInDashboardContext,
  takeShownSigningSecret,
} from './helpers/dashboard.ts'
import { createSignedInUser } from './helpers/session.ts'
import { startTestServer, type TestServer } from './helpers/test-server.ts'
import { startWebhookReceiver, verifyServiceSignature } from './helpers/webhook-receiver.ts'

/*
 * The dashboard as a person uses it: the real build, served by the real server under its
 * real CSP, in Debian's Chromium. One person signs up on a fresh instance and works through
 * the pages in order; the tests share that session.
 */
let server: TestServer
let browser: Browser
let context: BrowserContext
let page: Page
let problems: string[]
/** The instance operator's tab, from the operator test on. */
let operatorPage: Page
const person = { name: 'Ada Lovelace', email: uniqueEmail('ada'), password: 'correct horse battery staple', workspace: 'Analytical Engines' }

beforeAll(async () => {
  // Loopback webhook receivers are allowed here (the SSRF guard has its own tests).
  server = await startTestServer({ env: { WEBHOOK_ALLOW_PRIVATE: 'true', JOB_POLL_MS: '100' } })
  browser = await launchChromium()
  ;({ context, problems } = await dashboardContext(browser))
  page = await context.newPage()
}, 60_000)
afterAll(async () => {
  await browser?.close()
  await server?.close()
})

/** Each test walks several pages in a real browser with axe on each: minutes, not seconds, on a busy 2-core machine. */
const BROWSER_WALK = { timeout: 180_000 }

async function expectAccessible(path: string) {
  expect(await seriousAccessibilityViolations(page), path).toEqual([])
}

describe('a new person', BROWSER_WALK, () => {
  it('is sent from / to sign-up on a fresh instance, signs up, and verifies through the mailed link into the overview', async () => {
    await page.goto(server.url + '/')
    await page.waitForURL(`${server.url}/app/signup`)
    await expectAccessible('/signup')

    await page.getByLabel('Your name').fill(person.name)
    await page.getByLabel('Work e-mail').fill(person.email)
    await page.getByLabel('Password').fill(person.password)
    await page.getByLabel('Workspace name').fill(person.workspace)
    await page.getByRole('button', { name: 'Create account' }).click()
    await page.getByRole('heading', { name: 'Check your inbox' }).waitFor()
    await expect.poll(() => page.getByRole('status').first().textContent()).toMatch(/\S/)

    await page.goto(await linkFromMail(server, person.email, '/app/verify-email?token='))
    await page.waitForURL(`${server.url}/app/`)
    await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor()
    await page.getByText(`${person.workspace} · this month's usage and the documents that need you`).waitFor()
    await page.getByRole('heading', { name: 'Usage this month' }).waitFor()
    await page.getByText('No documents yet').waitFor()
    // The first-run steps: upload a template, place its fields, send a document — none done yet.
    await expect.poll(() => page.getByRole('heading', { name: 'Get started' }).isVisible()).toBe(true)
    await page.getByText('0 of 3 done').waitFor()
    await page.getByText('Upload a template').waitFor()
    await expectAccessible('/')
  })

  it('creates an API key that is shown once, and revokes it: the key gets 401 at once', async () => {
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Integration and API' }).click()
    await page.getByRole('heading', { level: 1, name: 'Integration and API' }).waitFor()
    await page.getByText('No API keys yet').waitFor()
    await expectAccessible('/settings/api-keys (empty)')

    await page.getByRole('button', { name: 'Create key' }).first().click()
    const createDialog = page.getByRole('dialog', { name: 'Create an API key' })
    await createDialog.getByLabel('Name').fill('CRM production')
    await createDialog.getByRole('button', { name: 'Create key' }).click()
    const shown = page.getByRole('dialog', { name: 'Copy your new key' })
    const apiKey = (await shown.getByTestId('new-api-key').textContent())?.trim() ?? ''
    expect(apiKey).toMatch(/^sgn_live_[0-9a-f]+/)
    await expectAccessible('/settings/api-keys (key shown)')
    await shown.getByRole('button', { name: 'Done' }).first().click()

    const works = await server.request('/api/v1/templates', { key: apiKey })
    expect(works.status).toBe(200)
    await works.arrayBuffer()

    // The list shows the key by its prefix only.
    const row = page.getByRole('row', { name: /CRM production/ })
    await expect.poll(() => row.textContent()).toContain(apiKey.slice(0, 17))
    expect(await row.textContent()).not.toContain(apiKey)
    await expectAccessible('/settings/api-keys')

    await row.getByRole('button', { name: 'Revoke CRM production' }).click()
    const confirm = page.getByRole('alertdialog', { name: /Revoke “CRM production”/ })
    await expectAccessible('/settings/api-keys (confirm revoke)')
    await confirm.getByRole('button', { name: 'Revoke key' }).click()
    await confirm.waitFor({ state: 'detached' })
    await row.getByText('revoked').waitFor()

    const refused = await server.request('/api/v1/templates', { key: apiKey })
    expect(refused.status).toBe(401)
    expect(await refused.json()).toEqual({ error: 'Invalid API key.', code: 'invalid_api_key' })
  })

  it('sees every settings page and the account page without an accessibility finding', async () => {
    const pages: [string, string][] = [
      ['/', 'Overview'],
      ['/settings/api-keys', 'Integration and API'],
      ['/settings/webhooks', 'Webhooks'],
      ['/settings/reminders', 'Reminders'],
      ['/settings/billing', 'Billing'],
      ['/settings/identity', 'Identity check'],
      ['/settings/members', 'Members'],
      ['/account', 'Account'],
      ['/operator', 'Operator'],
    ]
    for (const [path, heading] of pages) {
      await openDashboardPage(page, server, path, heading)
      await expectAccessible(path)
    }
    await page.getByText('For the instance operator only').waitFor()
    // What the pages show of this new workspace.
    await openDashboardPage(page, server, '/settings/members', 'Members')
    await page.getByRole('row', { name: new RegExp(`${person.name} \\(you\\)`) }).waitFor()
    await openDashboardPage(page, server, '/settings/identity', 'Identity check')
    await page.getByRole('heading', { name: 'Submit the check' }).waitFor()
    await openDashboardPage(page, server, '/account', 'Account')
    await page.getByText('this browser').waitFor()
  })

  it('signs out from the user menu and logs back in', async () => {
    await page
      .getByRole('button', { name: /account menu/ })
      .first()
      .click()
    await page.getByRole('menuitem', { name: 'Sign out' }).click()
    await page.waitForURL(`${server.url}/app/login`)
    expect((await server.request('/api/v1/me', { headers: { cookie: await cookieHeader() } })).status).toBe(401)

    await page.getByLabel('E-mail').fill(person.email)
    await page.getByLabel('Password').fill('not the password')
    await page.getByRole('button', { name: 'Log in' }).click()
    await page.getByRole('alert').getByText('Wrong e-mail or password.').waitFor()
    await expectAccessible('/login (wrong password)')

    await page.getByLabel('Password').fill(person.password)
    await page.getByRole('button', { name: 'Log in' }).click()
    await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor()
    expect(problems).toEqual([])
  })
})

describe('pages before signing in', BROWSER_WALK, () => {
  it('show their forms and their errors accessibly', async () => {
    const { context: visitor, problems: visitorProblems } = await dashboardContext(browser)
    const anonymous = await visitor.newPage()
    const pages: [string, string | RegExp, string][] = [
      ['/login', 'Log in', 'login'],
      ['/signup', 'Create your account', 'signup'],
      ['/forgot-password', 'Forgot your password?', 'forgot-password'],
      ['/reset-password?token=not-a-real-token', 'Choose a new password', 'reset-password'],
      ['/setup?token=not-a-real-token', 'Set up Signet', 'setup'],
      ['/invite/not-a-real-token', 'Join a workspace', 'invitation-invalid'],
    ]
    for (const [path, heading, name] of pages) {
      await openDashboardPage(anonymous, server, path, heading)
      expect(await seriousAccessibilityViolations(anonymous), path).toEqual([])
      await screenshotDashboardPage(browser, visitor, server, path, name)
    }
    // An invitation link that is not one says so where the invitation would be.
    await openDashboardPage(anonymous, server, '/invite/not-a-real-token', 'Join a workspace')
    await expect.poll(() => anonymous.getByRole('alert').textContent()).toMatch(/\S/)
    // A verification link that is not one: the server's error, and a way on.
    await anonymous.goto(`${server.url}/app/verify-email?token=not-a-real-token`)
    await anonymous.getByRole('link', { name: 'Go to the login page' }).waitFor()
    expect(await anonymous.getByRole('alert').textContent()).toMatch(/\S/)
    expect(await seriousAccessibilityViolations(anonymous), '/verify-email (bad token)').toEqual([])
    // A signed-out visit to an app page leads to the login page (the instance is no longer fresh? it has no operator yet: sign-up).
    await anonymous.goto(`${server.url}/app/settings/billing`)
    await anonymous.waitForURL(/\/app\/(signup|login)/)
    expect(visitorProblems).toEqual([])
    await visitor.close()
  })
})

describe('the instance operator', BROWSER_WALK, () => {
  it('creates the operator account from the setup link and manages the instance', async () => {
    const link = await issueOperatorSetupLink(server.services)
    expect(link).toMatch(/\/app\/setup\?token=/)
    const { context: operatorContext, problems: operatorProblems } = await dashboardContext(browser)
    operatorPage = await operatorContext.newPage()
    const url = new URL(link!)
    await operatorPage.goto(`${server.url}${url.pathname}${url.search}`)
    await operatorPage.getByRole('heading', { name: 'Set up Signet' }).waitFor()
    await operatorPage.getByLabel('Your name').fill('Olive Operator')
    await operatorPage.getByLabel('E-mail').fill(uniqueEmail('operator'))
    await operatorPage.getByLabel('Password').fill('an operator passphrase of some length')
    await operatorPage.getByLabel('Workspace name').fill('Instance HQ')
    await operatorPage.getByRole('button', { name: 'Create operator account' }).click()
    await operatorPage.getByRole('heading', { level: 1, name: 'Overview' }).waitFor()

    await operatorPage.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Operator' }).click()
    await operatorPage.getByRole('heading', { level: 1, name: 'Operator' }).waitFor()
    const orgRow = operatorPage.getByRole('row', { name: new RegExp(person.workspace) })
    await orgRow.waitFor()
    expect(await seriousAccessibilityViolations(operatorPage), '/operator').toEqual([])

    // Upgrade the person's workspace to Pro (webhooks need it) while a search is still loading: the
    // search's answer, read before the change, is held back until the change is confirmed.
    let releaseSearch = () => {}
    const searchReleased = new Promise<void>((resolve) => (releaseSearch = resolve))
    let staleAnswerDelivered = () => {}
    const staleAnswerShown = new Promise<void>((resolve) => (staleAnswerDelivered = resolve))
    await operatorPage.route(
      /\/api\/v1\/operator\/orgs\?.*search=/,
      async (route) => {
        const answer = await route.fetch()
        await searchReleased
        await route.fulfill({ response: answer })
        staleAnswerDelivered()
      },
      { times: 1 },
    )
    const searchRequest = operatorPage.waitForRequest(/\/api\/v1\/operator\/orgs\?.*search=/)
    await operatorPage.getByLabel('Search workspaces').fill(person.workspace)
    await searchRequest
    await orgRow.getByRole('combobox', { name: `Plan of ${person.workspace}` }).click()
    await operatorPage.getByRole('option', { name: 'Pro' }).click()
    const confirmPlan = operatorPage.getByRole('alertdialog', { name: `Move ${person.workspace} to the Pro plan?` })
    expect(await seriousAccessibilityViolations(operatorPage), '/operator (plan change)').toEqual([])
    await confirmPlan.getByRole('button', { name: 'Move to Pro' }).click()
    await operatorPage.getByText(`${person.workspace} is now on the Pro plan`, { exact: true }).waitFor()
    releaseSearch()
    await staleAnswerShown
    await expect.poll(() => orgRow.getByRole('combobox').textContent()).toBe('Pro')
    // Grant it two credit packs.
    await orgRow.getByRole('button', { name: `Grant credits to ${person.workspace}` }).click()
    const grant = operatorPage.getByRole('dialog', { name: `Grant credit packs to ${person.workspace}` })
    await grant.getByLabel('Packs').fill('2')
    await grant.getByRole('button', { name: 'Grant' }).click()
    await grant.waitFor({ state: 'detached' })
    await expect.poll(() => orgRow.textContent()).toContain('50 credits')
    await screenshotDashboardPage(browser, operatorContext, server, '/operator', 'operator')

    await operatorPage.getByRole('tab', { name: 'Users' }).click()
    await operatorPage.getByRole('row', { name: new RegExp(person.email) }).waitFor()
    expect(await seriousAccessibilityViolations(operatorPage), '/operator users').toEqual([])
    await operatorPage.getByRole('tab', { name: 'Identity checks' }).click()
    await operatorPage.getByText('No pending identity checks').waitFor()
    expect(operatorProblems).toEqual([])
  })
})

describe('the person, on the Pro plan', BROWSER_WALK, () => {
  it('adds a webhook (refusals shown in the form), sees the secret once and a real signed test delivery', async () => {
    const receiver = await startWebhookReceiver()
    try {
      await page.reload()
      await openDashboardPage(page, server, '/settings/webhooks', 'Webhooks')
      await page.getByText('No endpoints yet').waitFor()
      await page.getByRole('button', { name: 'Add endpoint' }).first().click()
      const dialog = page.getByRole('dialog', { name: 'Add a webhook endpoint' })
      const url = dialog.getByLabel('Endpoint URL')
      await url.fill('https://user:secret@example.com/hooks')
      await dialog.getByRole('button', { name: 'Add endpoint' }).click()
      // The server's refusal, under the field it is about (and announced with it).
      const refusal = dialog.getByRole('alert')
      await expect.poll(() => refusal.textContent()).toMatch(/credentials|user/i)
      expect(await url.getAttribute('aria-invalid')).toBe('true')
      expect((await url.getAttribute('aria-describedby'))?.split(' ')).toContain(await refusal.getAttribute('id'))
      expect(await seriousAccessibilityViolations(page), '/settings/webhooks (refused)').toEqual([])

      await url.fill(receiver.url)
      await dialog.getByRole('button', { name: 'Add endpoint' }).click()
      const secret = await takeShownSigningSecret(page)
      receiver.secret = secret

      const result = await sendTestEvent(page)
      await expect.poll(() => result.textContent(), { timeout: 15_000 }).toMatch(/^Delivered: your endpoint answered 200 in \d+ ms\./)
      const [delivery] = await receiver.waitFor(1)
      expect(delivery!.signatureValid).toBe(true)
      expect(verifyServiceSignature(secret, delivery!.body, delivery!.headers['x-service-signature'])).toBe(true)

      // A receiver that fails: never reported as delivered.
      receiver.failNext(1, 503)
      await sendTestEvent(page)
      await expect.poll(() => result.textContent(), { timeout: 15_000 }).toMatch(/^Not delivered: your endpoint answered 503/)
      expect(await seriousAccessibilityViolations(page), '/settings/webhooks').toEqual([])
      await page.getByRole('button', { name: 'Deliveries' }).click()
      await page.getByRole('region', { name: 'Delivery log' }).waitFor()
    } finally {
      await receiver.close()
    }
  })

  it('invites a member, who signs up from the mailed link and joins the workspace', async () => {
    const invitee = uniqueEmail('grace')
    await openDashboardPage(page, server, '/settings/members', 'Members')
    await page.getByLabel('E-mail').fill(invitee)
    await page.getByRole('combobox', { name: 'Role', exact: true }).click()
    await page.getByRole('option', { name: 'Admin' }).click()
    await page.getByRole('button', { name: 'Send invitation' }).click()
    await page.getByRole('row', { name: new RegExp(invitee) }).waitFor()

    const { context: inviteeContext, problems: inviteeProblems } = await dashboardContext(browser)
    const inviteePage = await inviteeContext.newPage()
    await inviteePage.goto(await linkFromMail(server, invitee, '/app/invite/'))
    await inviteePage.getByText(`${person.name} invited ${invitee} to ${person.workspace} as an admin.`).waitFor()
    expect(await seriousAccessibilityViolations(inviteePage), '/invite').toEqual([])
    await screenshotDashboardPage(browser, inviteeContext, server, new URL(inviteePage.url()).pathname.replace('/app', ''), 'invitation')
    await inviteePage.getByLabel('Your name').fill('Grace Hopper')
    await inviteePage.getByLabel('Password').fill('a long enough invitee passphrase')
    await inviteePage.getByRole('button', { name: 'Create account and join' }).click()
    await inviteePage.getByRole('heading', { level: 1, name: 'Overview' }).waitFor()
    await inviteePage.getByText(`${person.workspace} · this month's usage and the documents that need you`).waitFor()
    expect(inviteeProblems).toEqual([])
    await inviteeContext.close()

    await openDashboardPage(page, server, '/settings/members', 'Members')
    const row = page.getByRole('row', { name: /Grace Hopper/ })
    await expect.poll(() => row.getByRole('combobox').textContent()).toBe('Admin')
    // The only owner is offered nothing on their own row: the last owner can neither step down nor leave.
    const ownRow = page.getByRole('row', { name: new RegExp(`${person.name} \\(you\\)`) })
    expect(await ownRow.getByRole('combobox').count()).toBe(0)
    expect(await ownRow.getByRole('button').count()).toBe(0)
  })

  it('shows a plain member only the pages they may use, and no action on anyone', async () => {
    const [workspace] = await server.services.db.select({ id: orgs.id }).from(orgs).where(eq(orgs.name, person.workspace))
    const member = await createSignedInUser(server, { orgId: workspace?.id ?? '', role: 'member', name: 'Mia Member' })
    const { context: memberContext, problems: memberProblems } = await signedInDashboardContext(browser, server, member.cookie)
    const memberPage = await memberContext.newPage()
    await openDashboardPage(memberPage, server, '/settings/members', 'Members')
    const links = await memberPage.getByRole('navigation', { name: 'Main' }).getByRole('link').allTextContents()
    expect(links).toEqual(['Overview', 'Documents', 'Send', 'Bulk send', 'Templates', 'Connected apps', 'Reminders', 'Billing', 'Identity check', 'Members'])
    await memberPage.getByRole('row', { name: /Mia Member \(you\)/ }).waitFor()
    expect(await memberPage.getByRole('table', { name: 'Members' }).getByRole('button').count()).toBe(0)
    expect(await memberPage.getByRole('table', { name: 'Members' }).getByRole('combobox').count()).toBe(0)
    // An address typed by hand says why there is nothing to do.
    await openDashboardPage(memberPage, server, '/settings/api-keys', 'Integration and API')
    await memberPage.getByText('You cannot manage API keys in this workspace').waitFor()
    expect(memberProblems).toEqual([])
    await memberContext.close()
  })

  it('submits the identity check, which the operator approves after viewing the document', async () => {
    await openDashboardPage(page, server, '/settings/identity', 'Identity check')
    await page.getByLabel('Legal name').fill('Analytical Engines Ltd')
    const png = rgbaPng(
      2,
      2,
      Buffer.alloc(2 * (1 + 2 * 4), 0x7f)
        .fill(0, 0, 1)
        .fill(0, 9, 10),
    )
    await page.getByLabel('ID document').setInputFiles({ name: 'register-extract.png', mimeType: 'image/png', buffer: png })
    await page.getByRole('button', { name: 'Submit for review' }).click()
    await page.getByText(/Submitted .* for Analytical Engines Ltd\. It is waiting for a decision/).waitFor()
    expect(await seriousAccessibilityViolations(page), '/settings/identity (pending)').toEqual([])

    await openDashboardPage(operatorPage, server, '/operator', 'Operator')
    await operatorPage.getByRole('tab', { name: 'Identity checks' }).click()
    const row = operatorPage.getByRole('row', { name: /Analytical Engines Ltd/ })
    const documentLink = row.getByRole('link', { name: 'View document' })
    const document = await operatorPage.request.get(server.url + (await documentLink.getAttribute('href')))
    expect(document.status()).toBe(200)
    expect(Buffer.from(await document.body()).equals(png)).toBe(true)
    await row.getByRole('button', { name: 'Decide' }).click()
    const decision = operatorPage.getByRole('dialog', { name: /Identity check of/ })
    expect(await seriousAccessibilityViolations(operatorPage), '/operator (decision)').toEqual([])
    await decision.getByRole('button', { name: 'Approve' }).click()
    await decision.waitFor({ state: 'detached' })
    await operatorPage.getByText('No pending identity checks').waitFor()

    await openDashboardPage(page, server, '/settings/identity', 'Identity check')
    await page.getByText(/Analytical Engines Ltd was approved .* Valid until/).waitFor()
  })

  it('sets a spend cap and clears it', async () => {
    await openDashboardPage(page, server, '/settings/billing', 'Billing')
    await page.getByLabel('New cap (US$)').fill('abc')
    await page.getByRole('button', { name: 'Set cap' }).click()
    await page.getByText('Enter an amount in US dollars, e.g. 50.').waitFor()
    await page.getByLabel('New cap (US$)').fill('50')
    await page.getByRole('button', { name: 'Set cap' }).click()
    await expect.poll(() => page.getByTestId('spend-cap').textContent()).toBe('$50.00')
    const usage = await server.request('/api/v1/billing/spend-cap', { headers: { cookie: await cookieHeader() } })
    expect(await usage.json()).toEqual({ spend_cap_cents: 5000 })
    await page.getByRole('button', { name: 'Remove cap' }).click()
    await expect.poll(() => page.getByTestId('spend-cap').textContent()).toBe('none')
  })

  it('is asked to log in when opening an app page without a session, and then lands on that page', async () => {
    const { context: fresh, problems: freshProblems } = await dashboardContext(browser)
    const freshPage = await fresh.newPage()
    await freshPage.goto(`${server.url}/app/settings/billing?period=2026-01`)
    // The instance has its operator now, so a stranger is shown the login page, not sign-up.
    await freshPage.waitForURL(/\/app\/login\?next=/)
    await freshPage.getByLabel('E-mail').fill(person.email)
    await freshPage.getByLabel('Password').fill(person.password)
    await freshPage.getByRole('button', { name: 'Log in' }).click()
    await freshPage.getByRole('heading', { level: 1, name: 'Billing' }).waitFor()
    expect(new URL(freshPage.url()).pathname + new URL(freshPage.url()).search).toBe('/app/settings/billing?period=2026-01')
    expect(freshProblems).toEqual([])
    await fresh.close()
  })

  it('navigates at phone width through the menu drawer', async () => {
    const { context: phone, problems: phoneProblems } = await dashboardContext(browser, { width: 390, height: 844 })
    await phone.addCookies(await context.cookies())
    const phonePage = await phone.newPage()
    await openDashboardPage(phonePage, server, '/', 'Overview')
    expect(await phonePage.getByRole('navigation', { name: 'Main' }).count()).toBe(0)
    await phonePage.getByRole('button', { name: 'Open menu' }).click()
    const drawer = phonePage.getByRole('dialog')
    expect(await seriousAccessibilityViolations(phonePage), 'phone menu').toEqual([])
    await drawer.getByRole('link', { name: 'Billing' }).click()
    await phonePage.getByRole('heading', { level: 1, name: 'Billing' }).waitFor()
    await drawer.waitFor({ state: 'detached' })
    // Nothing is wider than the screen: tables scroll inside their own box.
    expect(await phonePage.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390)
    expect(phoneProblems).toEqual([])
    await phone.close()
  })

  it('has no accessibility finding on any page with data in it (and, with SIGNET_SCREENSHOTS=1, photographs them)', async () => {
    const pages: [string, string, string][] = [
      ['/', 'Overview', 'overview'],
      ['/settings/api-keys', 'Integration and API', 'api-keys'],
      ['/settings/webhooks', 'Webhooks', 'webhooks'],
      ['/settings/billing', 'Billing', 'billing'],
      ['/settings/identity', 'Identity check', 'identity'],
      ['/settings/members', 'Members', 'members'],
      ['/account', 'Account', 'account'],
    ]
    for (const [path, heading, name] of pages) {
      await openDashboardPage(page, server, path, heading)
      await expectAccessible(path)
      await screenshotDashboardPage(browser, context, server, path, name)
    }
    expect(problems).toEqual([])
  })
})

describe('every page on a phone', BROWSER_WALK, () => {
  /** Opens each path at 390 px; returns what is wider than the screen and axe's serious or critical findings. */
  async function sweep(phonePage: Page, pages: [string, string | undefined][]): Promise<string[]> {
    const found: string[] = []
    for (const [path, heading] of pages) {
      await openDashboardPage(phonePage, server, path, heading)
      const { scrollWidth, innerWidth } = await phonePage.evaluate(() => ({
        scrollWidth: document.scrollingElement?.scrollWidth ?? 0,
        innerWidth: window.innerWidth,
      }))
      if (scrollWidth > innerWidth) found.push(`${path} is ${scrollWidth} px wide`)
      found.push(...(await seriousAccessibilityViolations(phonePage)).map((finding) => `${path}: ${finding}`))
    }
    return found
  }

  it('fits every dashboard page into 390 px with no serious or critical accessibility finding', async () => {
    const [workspace] = await server.services.db.select({ id: orgs.id }).from(orgs).where(eq(orgs.name, person.workspace))
    const orgId = workspace?.id ?? ''
    const template = await server.createTemplate(orgId)
    const { api_key: apiKey } = (await executeAdminCommand(server.services, { name: 'key.create', orgId })) as { api_key: string }
    const documentId = await createSentDocument(server, { orgId, apiKey, templateId: template.id })

    const { context: phone, problems: phoneProblems } = await dashboardContext(browser, PHONE)
    await phone.addCookies(await context.cookies())
    const phonePage = await phone.newPage()
    // A PDF dropped on the Templates page is uploaded; until its fields are placed it says so and cannot be sent.
    await openDashboardPage(phonePage, server, '/templates', 'Templates')
    const pdf = Buffer.from(await makePdf(1)).toString('base64')
    await phonePage.locator('main').evaluate((main, base64) => {
      const transfer = new DataTransfer()
      transfer.items.add(new File([Uint8Array.from(atob(base64), (c) => c.charCodeAt(0))], 'Dropped lease.pdf', { type: 'application/pdf' }))
      main.querySelector('h1')?.dispatchEvent(new DragEvent('dragover', { dataTransfer: transfer, bubbles: true, cancelable: true }))
      main.querySelector('h1')?.dispatchEvent(new DragEvent('drop', { dataTransfer: transfer, bubbles: true, cancelable: true }))
    }, pdf)
    await expect.poll(() => phonePage.getByLabel('Template name').inputValue()).toBe('Dropped lease')
    await phonePage.getByRole('button', { name: 'Upload' }).click()
    await phonePage.waitForURL(/\/app\/templates\/[0-9a-f-]{36}$/)
    await openDashboardPage(phonePage, server, '/templates', 'Templates')
    const dropped = phonePage.getByRole('listitem').filter({ hasText: 'Dropped lease' })
    await dropped.getByText('No fields yet').waitFor()
    const send = dropped.getByRole('button', { name: 'Send Dropped lease: place its fields first' })
    expect(await send.isDisabled()).toBe(true)
    await dropped.getByRole('link', { name: 'Edit the fields of Dropped lease' }).waitFor()

    const found = await sweep(phonePage, [
      ['/', 'Overview'],
      ['/documents', 'Documents'],
      [`/documents/${documentId}`, undefined],
      ['/send', 'Send a document'],
      ['/bulk-send', 'Bulk send'],
      ['/templates', 'Templates'],
      [`/templates/${template.id}`, undefined],
      ['/settings/api-keys', 'Integration and API'],
      ['/settings/webhooks', 'Webhooks'],
      ['/settings/reminders', 'Reminders'],
      ['/settings/billing', 'Billing'],
      ['/settings/identity', 'Identity check'],
      ['/settings/members', 'Members'],
      ['/account', 'Account'],
      ['/account/security', undefined],
    ])
    const { context: operatorPhone } = await dashboardContext(browser, PHONE)
    await operatorPhone.addCookies(await operatorPage.context().cookies())
    found.push(...(await sweep(await operatorPhone.newPage(), [['/operator', 'Operator']])))
    const { context: signedOut } = await dashboardContext(browser, PHONE)
    found.push(
      ...(await sweep(await signedOut.newPage(), [
        ['/login', 'Log in'],
        ['/forgot-password', 'Forgot your password?'],
      ])),
    )
    expect(found).toEqual([])
    expect(phoneProblems).toEqual([])
    await Promise.all([phone.close(), operatorPhone.close(), signedOut.close()])
  })
})

async function cookieHeader(): Promise<string> {
  return (await context.cookies()).map((cookie) => `${cookie.name}=${cookie.value}`).join('; ')
}
