import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Browser, BrowserContext, CDPSession, Locator, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { launchChromium } from './helpers/browser.ts'
import { movableClock } from './helpers/clock.ts'
import { dashboardContext, DESKTOP, openDashboardPage, PHONE, SCREENSHOT_DIR, seriousAccessibilityViolations } from './helpers/dashboard.ts'
import { openLocalhostOrigin, type LocalhostOrigin } from './helpers/localhost-origin.ts'
import { createSignedInUser, sessionFetch, type SignedInUser } from './helpers/session.ts'
import { startTestServer, type TestServer } from './helpers/test-server.ts'
import { TOTP_PERIOD_MS, totpCode } from './helpers/two-factor.ts'
import { haveTools } from '../../../test-support/tools.ts'

/*
 * Two-factor sign-in in the dashboard, as people use it: the real build under its real CSP in
 * Debian's Chromium, the real server and mail. An owner sets up an authenticator app (the test
 * computes its codes, as the app would, at the server's clock), keeps the recovery codes, signs
 * in with each, adds a passkey with Chromium's virtual authenticator (CDP WebAuthn) and signs in
 * with it after the password and on its own; then requires a second step of every member, and
 * a member without one meets the gate, sets one up there and gets in; the operator resets a
 * lost second step. Passkeys need a host name in a secure context: the dashboard is opened at
 * http://localhost:<port>, the server's PUBLIC_URL (helpers/localhost-origin.ts).
 */

const time = movableClock()
let origin: LocalhostOrigin
let server: TestServer
/** The server as the browser reaches it (openDashboardPage reads its url). */
let site: TestServer
let browser: Browser
let context: BrowserContext
let page: Page
let problems: string[]
let authenticator: { cdp: CDPSession; id: string }
let owner: SignedInUser
let workspace: string
let recoveryCodes: string[] = []
/** The owner's authenticator secret, as the set-up page showed it. */
let ownerSecret = ''

/** A walk through several pages with axe on each, on a busy 2-core machine. */
const BROWSER_WALK = { timeout: 180_000 }

describe.runIf(haveTools('chromium'))('two-factor sign-in in the dashboard', () => {
  beforeAll(async () => {
    origin = await openLocalhostOrigin()
    server = await startTestServer({ clock: time.clock, env: { PUBLIC_URL: origin.url } })
    origin.forwardTo(server.url)
    site = { ...server, url: origin.url }
    browser = await launchChromium()
    ;({ context, problems } = await dashboardContext(browser))
    context.setDefaultTimeout(15_000)
    page = await context.newPage()
    owner = await createSignedInUser(server, { name: 'Ada Lovelace', password: 'an owner who guards the ledger' })
    workspace = "Ada Lovelace's workspace"
  }, 60_000)

  afterAll(async () => {
    await browser?.close()
    await server?.close()
    await origin?.close()
  })

  it('1. sets up an authenticator app on the Security page, keeps the recovery codes, and signs in with password and code', BROWSER_WALK, async () => {
    await logIn(page, owner)
    await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor()
    await page
      .getByRole('button', { name: /account menu/ })
      .first()
      .click()
    await page.getByRole('menuitem', { name: 'Security' }).click()
    await page.getByRole('heading', { level: 1, name: 'Security' }).waitFor()
    await page.getByRole('heading', { name: 'Two-factor sign-in' }).waitFor()
    await expectAccessible(page, '/account/security (nothing set up)')

    await page.getByRole('button', { name: 'Set up an authenticator app' }).click()
    const qr = page.getByRole('img', { name: /QR code for your authenticator app/ })
    await qr.waitFor()
    // The QR code is an image (never markup in the page) that really decodes as an SVG.
    expect(await qr.evaluate((image: HTMLImageElement) => image.complete && image.naturalWidth > 0)).toBe(true)
    const secret = (await page.getByTestId('totp-secret').textContent())?.trim() ?? ''
    expect(secret).toMatch(/^[A-Z2-7]{4}( [A-Z2-7]{4}){7}$/)
    ownerSecret = secret
    const code = page.getByLabel('Code from the app')
    expect(await code.getAttribute('autocomplete')).toBe('one-time-code')
    expect(await code.getAttribute('inputmode')).toBe('numeric')
    await expectAccessible(page, '/account/security (authenticator set-up)')
    await screenshot('security-totp-setup', page.getByRole('heading', { name: 'Authenticator app' }))

    // A wrong password is said under the password field; the set-up stays open.
    await code.fill(totpCode(secret, time.clock))
    await page.getByLabel('Your password').fill('not my password')
    await page.getByRole('button', { name: 'Turn on' }).click()
    await fieldError(page.getByLabel('Your password')).getByText('Your password is not right.').waitFor()

    await page.getByLabel('Your password').fill(owner.password)
    await page.getByRole('button', { name: 'Turn on' }).click()
    const codesDialog = page.getByRole('dialog', { name: 'Save your recovery codes now' })
    await codesDialog.waitFor()
    recoveryCodes = await codesDialog.getByTestId('recovery-codes').getByRole('listitem').allTextContents()
    expect(recoveryCodes).toHaveLength(10)
    for (const recoveryCode of recoveryCodes) expect(recoveryCode).toMatch(/^[a-z2-9]{5}-[a-z2-9]{5}$/)
    const [download] = await Promise.all([page.waitForEvent('download'), codesDialog.getByRole('button', { name: 'Download as a text file' }).click()])
    expect(download.suggestedFilename()).toBe('signet-recovery-codes.txt')
    const saved = readFileSync(await download.path(), 'utf8')
    for (const recoveryCode of recoveryCodes) expect(saved).toContain(recoveryCode)
    expect(saved).toContain(owner.email)
    await expectAccessible(page, '/account/security (recovery codes)')
    await screenshot('recovery-codes')
    await codesDialog.getByRole('button', { name: 'I have saved them' }).click()
    await codesDialog.waitFor({ state: 'detached' })

    await page.getByText(/^On since /).waitFor()
    await page.getByText('10 of 10 codes left.').waitFor()
    await page.getByRole('cell', { name: /An authenticator app was set up/ }).waitFor()
    const [notice] = await server.mail.waitFor(owner.email)
    expect(notice?.subject).toBe('Security notice for your Signet account')

    await signOut(page)
    await logIn(page, owner)
    await page.getByRole('heading', { level: 1, name: 'Confirm it’s you' }).waitFor()
    const stepCode = page.getByLabel('Code from your authenticator app')
    expect(await stepCode.getAttribute('autocomplete')).toBe('one-time-code')
    expect(await stepCode.getAttribute('inputmode')).toBe('numeric')
    expect(await stepCode.evaluate((input) => input === document.activeElement)).toBe(true)
    await expectAccessible(page, '/login (second step)')

    // A wrong code is refused beside the field, and the step stays (it allows five answers).
    await stepCode.fill('000000')
    await page.getByRole('button', { name: 'Verify and log in' }).click()
    await fieldError(stepCode)
      .getByText(/That code is not right/)
      .waitFor()
    await expectAccessible(page, '/login (second step, wrong code)')

    time.advance(TOTP_PERIOD_MS) // the set-up used this step's code: a code works once
    await stepCode.fill(totpCode(secret, time.clock))
    await page.getByRole('button', { name: 'Verify and log in' }).click()
    await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor()
    expect(await secondFactorOfThisSession(page)).toBe(true)
  })

  it('2. signs in with a recovery code, which then works no more', BROWSER_WALK, async () => {
    await signOut(page)
    await logIn(page, owner)
    await page.getByRole('button', { name: 'Use a recovery code' }).click()
    const field = page.getByLabel('Recovery code')
    expect(await field.evaluate((input) => input === document.activeElement)).toBe(true)
    await field.fill(recoveryCodes[0] ?? '')
    await page.getByRole('button', { name: 'Use code and log in' }).click()
    await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor()

    await signOut(page)
    await logIn(page, owner)
    await page.getByRole('button', { name: 'Use a recovery code' }).click()
    await page.getByLabel('Recovery code').fill(recoveryCodes[0] ?? '')
    await page.getByRole('button', { name: 'Use code and log in' }).click()
    await fieldError(page.getByLabel('Recovery code')).getByText('That recovery code is not right, or it was used already.').waitFor()
    await page.getByLabel('Recovery code').fill(recoveryCodes[1] ?? '')
    await page.getByRole('button', { name: 'Use code and log in' }).click()
    await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor()

    await openDashboardPage(page, site, '/account/security', 'Security')
    await page.getByText('8 of 10 codes left.').waitFor()
    await page
      .getByRole('cell', { name: /A recovery code was used to sign in/ })
      .first()
      .waitFor()
  })

  it('3. adds a passkey through the page, and signs in with password and passkey, and with the passkey alone', BROWSER_WALK, async () => {
    authenticator = await addVirtualAuthenticator(page)
    await page.getByRole('button', { name: 'Add a passkey' }).click()
    const dialog = page.getByRole('dialog', { name: 'Add a passkey' })
    await dialog.getByLabel('Name').waitFor()
    await expectAccessible(page, '/account/security (add a passkey)')
    await dialog.getByLabel('Name').fill('Work laptop')
    await dialog.getByLabel('Your password').fill(owner.password)
    await dialog.getByRole('button', { name: 'Continue' }).click()
    await dialog.waitFor({ state: 'detached' })
    const row = page.getByRole('row', { name: /Work laptop/ })
    await row.waitFor()
    await row.getByRole('cell', { name: 'Not used yet', exact: true }).waitFor()
    // Not the first second step: the recovery codes stay as they were, and no codes dialog opens.
    await page.getByText('8 of 10 codes left.').waitFor()
    expect(await page.getByRole('dialog').count()).toBe(0)
    const { credentials } = (await authenticator.cdp.send('WebAuthn.getCredentials', { authenticatorId: authenticator.id })) as {
      credentials: { isResidentCredential: boolean; rpId: string }[]
    }
    expect(credentials).toEqual([expect.objectContaining({ isResidentCredential: true, rpId: 'localhost' })])
    await expectAccessible(page, '/account/security (a passkey)')

    // Password, then the passkey: the step offers it first, and the other ways one click away.
    await signOut(page)
    await logIn(page, owner)
    await page.getByRole('heading', { level: 1, name: 'Confirm it’s you' }).waitFor()
    await page.getByRole('button', { name: 'Use a code from your authenticator app' }).click()
    await page.getByLabel('Code from your authenticator app').waitFor()
    await expectAccessible(page, '/login (second step, every way)')
    await screenshot('sign-in-second-step')
    await page.getByRole('button', { name: 'Use a passkey', exact: true }).click()
    await page.getByRole('button', { name: 'Use a passkey and log in' }).click()
    await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor()

    // The passkey alone.
    await signOut(page)
    await page.getByRole('button', { name: 'Sign in with a passkey' }).click()
    await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor()
    expect(await secondFactorOfThisSession(page)).toBe(true)
    await openDashboardPage(page, site, '/account/security', 'Security')
    await expect.poll(() => page.getByRole('row', { name: /Work laptop/ }).textContent()).not.toContain('Not used yet')
    await screenshot('security-passkeys', page.getByRole('heading', { name: 'Passkeys' }))
  })

  it('4. a reset link leads to the second step too, where the person may switch to the authenticator app', BROWSER_WALK, async () => {
    await signOut(page)
    const before = server.mail.messages.filter((m) => m.to?.some((t) => t.address === owner.email)).length
    await page.getByRole('link', { name: 'Forgot your password?' }).click()
    await page.getByLabel('E-mail').fill(owner.email)
    await page.getByRole('button', { name: 'Send the link' }).click()
    const mails = await server.mail.waitFor(owner.email, before + 1)
    const link = /http:\/\/localhost:\d+\/app\/reset-password\?token=[A-Za-z0-9_-]+/.exec(mails.map((m) => m.text ?? '').join('\n'))?.[0]
    expect(link).toBeDefined()
    await page.goto(link ?? '')
    owner.password = 'a new phrase for the ledger keeper'
    await page.getByLabel('New password').first().fill(owner.password)
    await page.getByLabel('New password again').fill(owner.password)
    await page.getByRole('button', { name: 'Set password and log in' }).click()
    await page.getByText('Your new password is set.', { exact: false }).waitFor()
    await page.getByRole('button', { name: 'Use a code from your authenticator app' }).click()
    time.advance(TOTP_PERIOD_MS)
    await page.getByLabel('Code from your authenticator app').fill(totpCode(ownerSecret, time.clock))
    await page.getByRole('button', { name: 'Verify and log in' }).click()
    await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor()
  })

  it('5. an owner requires a second step of every member; a member without one meets the gate, sets one up there and gets in', BROWSER_WALK, async () => {
    const member = await createSignedInUser(server, { orgId: owner.orgId, role: 'member', name: 'Bob Byron', password: 'a member without a second step' })
    await openDashboardPage(page, site, '/settings/members', 'Members')
    const rule = page.getByRole('switch', { name: 'Require a second sign-in step for every member' })
    await rule.waitFor()
    expect(await rule.getAttribute('aria-checked')).toBe('false')
    await page.getByRole('heading', { name: 'Members without a second step (1)' }).waitFor()
    await page
      .getByRole('row', { name: /Bob Byron/ })
      .getByText('no second step')
      .waitFor()
    await rule.click()
    const confirm = page.getByRole('alertdialog', { name: `Require a second sign-in step in ${workspace}?` })
    await confirm.getByText('1 member without one will see only their account pages').waitFor()
    await expectAccessible(page, '/settings/members (confirm the rule)')
    await confirm.getByRole('button', { name: 'Require it' }).click()
    await confirm.waitFor({ state: 'detached' })
    await expect.poll(() => rule.getAttribute('aria-checked')).toBe('true')
    await page.getByText('They see only their account pages here until they set one up.').waitFor()
    await page.getByRole('button', { name: 'Dismiss' }).click()
    await page.getByText('A second sign-in step is now required').waitFor({ state: 'detached' })
    await expectAccessible(page, '/settings/members (rule on)')
    await screenshot('workspace-rule', page.getByRole('heading', { name: 'Two-factor sign-in' }))
    // The owner's own session proved a second step: the workspace stays open to them.
    await openDashboardPage(page, site, '/documents', 'Documents')

    const memberBrowser = await dashboardContext(browser)
    memberBrowser.context.setDefaultTimeout(15_000)
    const memberPage = await memberBrowser.context.newPage()
    await logIn(memberPage, member)
    const gateHeading = memberPage.getByRole('heading', { level: 1, name: `${workspace} requires a second sign-in step` })
    await gateHeading.waitFor()
    // What the gate stands for: the server refuses the workspace to this session.
    const refused = await memberApi(memberBrowser.context)('/api/v1/documents')
    expect(refused.status).toBe(403)
    expect(((await refused.json()) as { error: string }).error).toMatch(/requires a second sign-in step/)
    // Any page of the workspace shows the gate; the account pages stay open.
    await memberPage.goto(`${origin.url}/app/templates`)
    await gateHeading.waitFor()
    await openDashboardPage(memberPage, site, '/account', 'Account')
    await expectAccessible(memberPage, '/account (in a workspace that waits for a second step)')
    await memberPage.goto(`${origin.url}/app/`)
    await gateHeading.waitFor()
    await expectAccessible(memberPage, '/ (gate)')
    await screenshot('two-factor-gate', undefined, memberPage)

    await memberPage.getByRole('button', { name: 'Set up an authenticator app' }).click()
    const secret = (await memberPage.getByTestId('totp-secret').textContent())?.trim() ?? ''
    await memberPage.getByLabel('Code from the app').fill(totpCode(secret, time.clock))
    await memberPage.getByLabel('Your password').fill(member.password)
    await memberPage.getByRole('button', { name: 'Turn on' }).click()
    const codesDialog = memberPage.getByRole('dialog', { name: 'Save your recovery codes now' })
    await codesDialog.waitFor()
    expect(await codesDialog.getByTestId('recovery-codes').getByRole('listitem').count()).toBe(10)
    await codesDialog.getByRole('button', { name: 'I have saved them' }).click()
    // In at once, in the same session: no new sign-in.
    await memberPage.getByRole('heading', { level: 1, name: 'Overview' }).waitFor()
    await openDashboardPage(memberPage, site, '/templates', 'Templates')
    expect((await memberApi(memberBrowser.context)('/api/v1/documents')).status).toBe(200)
    const memberMail = await server.mail.waitFor(member.email, 2)
    expect(memberMail.map((m) => m.text ?? '').join('\n')).toContain('now requires a second sign-in step')
    expect(memberBrowser.problems).toEqual([])
    await memberBrowser.context.close()
  })

  it('6. the operator resets the second step a member lost, from the Users tab', BROWSER_WALK, async () => {
    const operator = await createSignedInUser(server, { name: 'Olive Operator', isOperator: true, password: 'the operator of this instance' })
    const lost = await createSignedInUser(server, { name: 'Lena Lost', password: 'lost her phone and codes' })
    await lost.fetch('/api/v1/me/two-factor/totp', { method: 'POST' }).then(async (setup) => {
      const { secret } = (await setup.json()) as { secret: string }
      const confirmed = await lost.fetch('/api/v1/me/two-factor/totp/confirm', {
        method: 'POST',
        json: { code: totpCode(secret, time.clock), password: lost.password },
      })
      expect(confirmed.status).toBe(200)
    })

    const operatorBrowser = await dashboardContext(browser)
    operatorBrowser.context.setDefaultTimeout(15_000)
    const operatorPage = await operatorBrowser.context.newPage()
    await logIn(operatorPage, operator)
    await operatorPage.getByRole('heading', { level: 1, name: 'Overview' }).waitFor()
    await openDashboardPage(operatorPage, site, '/operator', 'Operator')
    await operatorPage.getByRole('tab', { name: 'Users' }).click()
    await operatorPage.getByLabel('Search users by e-mail or name').fill(lost.email)
    const row = operatorPage.getByRole('row', { name: /Lena Lost/ })
    await row.getByText('Two-factor on', { exact: true }).waitFor()
    await row.getByRole('button', { name: `Reset the two-factor sign-in of ${lost.email}` }).click()
    const confirm = operatorPage.getByRole('alertdialog', { name: `Reset the two-factor sign-in of ${lost.email}?` })
    await expectAccessible(operatorPage, '/operator users (confirm reset)')
    await confirm.getByRole('button', { name: 'Reset two-factor' }).click()
    await confirm.waitFor({ state: 'detached' })
    await expect.poll(() => row.getByText('Two-factor on', { exact: true }).count()).toBe(0)

    // Her sessions ended, she was told, and her password alone signs her in again.
    expect((await lost.fetch('/api/v1/me')).status).toBe(401)
    const mail = await server.mail.waitFor(lost.email, 2)
    expect(mail.map((m) => m.text ?? '').join('\n')).toContain('removed your account')
    const again = await server.request('/api/v1/auth/login', {
      method: 'POST',
      json: { email: lost.email, password: lost.password },
      headers: { origin: server.url },
    })
    expect(again.status).toBe(200)
    expect(operatorBrowser.problems).toEqual([])
    await operatorBrowser.context.close()
    expect(problems).toEqual([])
  })
})

async function logIn(on: Page, who: { email: string; password: string }): Promise<void> {
  await on.goto(`${origin.url}/app/login`)
  await on.getByLabel('E-mail').fill(who.email)
  await on.getByLabel('Password').fill(who.password)
  await on.getByRole('button', { name: 'Log in', exact: true }).click()
}

async function signOut(on: Page): Promise<void> {
  await on
    .getByRole('button', { name: /account menu/ })
    .first()
    .click()
  await on.getByRole('menuitem', { name: 'Sign out' }).click()
  await on.waitForURL(`${origin.url}/app/login`)
}

async function expectAccessible(on: Page, what: string): Promise<void> {
  expect(await seriousAccessibilityViolations(on), what).toEqual([])
}

/** The error text a Field shows for its control (linked by aria-describedby). */
function fieldError(control: Locator): Locator {
  return control.locator('xpath=..').getByRole('alert')
}

/** The API as the browser's session cookie calls it. */
function memberApi(of: BrowserContext) {
  return async (path: string): Promise<Response> => {
    const cookie = (await of.cookies(origin.url)).find((c) => c.name === 'signet_session')?.value ?? ''
    return sessionFetch(server.url, cookie)(path)
  }
}

async function secondFactorOfThisSession(on: Page): Promise<boolean> {
  const status = await memberApi(on.context())('/api/v1/me/two-factor')
  return ((await status.json()) as { this_session: { second_factor: boolean } }).this_session.second_factor
}

/** Chromium's virtual authenticator on this page (CDP WebAuthn): a platform authenticator that verifies the user. */
async function addVirtualAuthenticator(on: Page): Promise<{ cdp: CDPSession; id: string }> {
  const cdp = await on.context().newCDPSession(on)
  await cdp.send('WebAuthn.enable')
  const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: {
      protocol: 'ctap2',
      transport: 'internal',
      hasResidentKey: true,
      hasUserVerification: true,
      isUserVerified: true,
      automaticPresenceSimulation: true,
    },
  })
  return { cdp, id: authenticatorId }
}

/**
 * With SIGNET_SCREENSHOTS=1: docs/screenshots/dashboard-<name>-desktop.png and -phone.png of the
 * page as it is now (a dialog open, a set-up under way), at both widths, `focus` scrolled to the top.
 */
async function screenshot(name: string, focus?: Locator, on: Page = page): Promise<void> {
  if (!SCREENSHOT_DIR) return
  for (const [label, viewport] of [
    ['desktop', DESKTOP],
    ['phone', PHONE],
  ] as const) {
    await on.setViewportSize(viewport)
    if (focus)
      await focus.evaluate((element) => {
        element.scrollIntoView({ block: 'start' })
        window.scrollBy(0, -72) // below the phone's sticky top bar
      })
    await on.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))))
    await on.screenshot({ path: join(SCREENSHOT_DIR, `dashboard-${name}-${label}.png`) })
  }
  await on.setViewportSize(DESKTOP)
}
