import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { openDashboardPage, screenshotPageAsIs, seriousAccessibilityViolations, signedInDashboardContext } from './helpers/dashboard.ts'
import { createSignedInUser } from './helpers/session.ts'
import { type TestServer } from './helpers/test-server.ts'
import { BROWSER_WALK, openOwnerDashboard, type OwnerDashboard } from './helpers/owner-dashboard.ts'
import { haveTools } from '../../../test-support/tools.ts'

/*
 * Reminders (issue 22) as a workspace sees them: the real server, its built dashboard and CSP,
 * Debian's Chromium. The owner turns on the workspace's default in Settings → Reminders (2, 3, 2),
 * which the API then answers; the Send page says what that default is, and a document sent with
 * a Custom schedule carries that schedule, which its page shows. A member sees the default and
 * cannot change it.
 */

const signers = [
  { name: 'Ines Alvarez', email: 'ines.alvarez@example.com' },
  { name: 'Tomasz Wiśniewski', email: 'tomasz.wisniewski@example.com' },
] as const

let dashboard: OwnerDashboard
let server: TestServer
let apiKey: string
let orgId: string
let browser: Browser
let problems: string[]
let page: Page
let templateId: string
let documentId = ''

const card = (heading: string) => dashboard.card(heading)
const expectAccessible = (what: string) => dashboard.expectAccessible(what)

const reminderSettings = async () => (await server.request('/api/v1/settings/reminders', { key: apiKey })).json() as Promise<unknown>

describe.runIf(haveTools('chromium'))('reminders in the dashboard', () => {
  beforeAll(async () => {
    dashboard = await openOwnerDashboard('Harbour Freight Co-op', 'Crew agreement', 2)
    ;({ server, orgId, apiKey, templateId, browser, page, problems } = dashboard)
  }, 60_000)

  afterAll(async () => {
    await dashboard?.close()
  })

  it("sets the workspace's default in Settings → Reminders, which the API then answers", BROWSER_WALK, async () => {
    expect(await reminderSettings()).toEqual({ reminders: null })
    await openDashboardPage(page, server, '/', 'Overview')
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Reminders' }).click()
    await page.getByRole('heading', { level: 1, name: 'Reminders' }).waitFor()
    await page.getByText('Documents sent from this workspace do not remind signers.').waitFor()
    await page.getByText(/Documents already sent keep the schedule they were sent with/).waitFor()

    const remind = page.getByRole('switch', { name: 'Remind signers who have not signed' })
    expect(await remind.getAttribute('aria-checked')).toBe('false')
    await remind.click()
    await page.getByRole('spinbutton', { name: 'First reminder after' }).fill('2')
    await page.getByRole('spinbutton', { name: 'Then every' }).fill('3')
    await page.getByRole('spinbutton', { name: 'At most' }).fill('2')
    const saved = page.waitForResponse((r) => r.request().method() === 'PUT' && new URL(r.url()).pathname === '/api/v1/settings/reminders')
    // The page's second card (the signer language) has a Save of its own.
    await card('Default for new documents').getByRole('button', { name: 'Save' }).click()
    expect((await saved).status()).toBe(200)
    await page.getByText('Documents sent from this workspace remind signers 2 days after the invitation, then every 3 days, at most 2 reminders.').waitFor()
    expect(await reminderSettings()).toEqual({ reminders: { first_after_days: 2, every_days: 3, max: 2 } })

    await expectAccessible('/settings/reminders')
    // The notice would cover the form's corner on a phone: it has said its word.
    await page.getByRole('button', { name: 'Dismiss' }).click()
    await screenshotPageAsIs(page, 'settings-reminders', { on: card('Default for new documents'), widths: 'both' })
  })

  it('shows a member the default without a way to change it', BROWSER_WALK, async () => {
    const member = await createSignedInUser(server, { orgId, role: 'member', name: 'Mia Member' })
    const { context: memberContext, problems: memberProblems } = await signedInDashboardContext(browser, server, member.cookie)
    const memberPage = await memberContext.newPage()
    await openDashboardPage(memberPage, server, '/settings/reminders', 'Reminders')
    await memberPage
      .getByText('Documents sent from this workspace remind signers 2 days after the invitation, then every 3 days, at most 2 reminders.')
      .waitFor()
    await memberPage.getByText('Only owners and admins of this workspace change the default.').waitFor()
    expect(await memberPage.getByRole('switch').count()).toBe(0)
    expect(await memberPage.getByRole('spinbutton').count()).toBe(0)
    expect(await memberPage.getByRole('button', { name: 'Save' }).count()).toBe(0)
    expect(await seriousAccessibilityViolations(memberPage), '/settings/reminders (a member)').toEqual([])
    expect(memberProblems).toEqual([])
    await memberContext.close()
  })

  it('sends a document with a Custom schedule from the Send page: the document carries it', BROWSER_WALK, async () => {
    await openDashboardPage(page, server, `/send?template=${templateId}`, 'Send a document')
    const reminders = page.getByRole('group', { name: 'Reminders' })
    const workspaceDefault = reminders.getByRole('radio', { name: 'Workspace default' })
    expect(await workspaceDefault.isChecked()).toBe(true)
    await reminders.getByText('Currently 2 days after the invitation, then every 3 days, at most 2 reminders.').waitFor()

    for (const [index, signer] of signers.entries()) {
      const party = page.getByRole('group', { name: `Party ${index + 1}` })
      await party.getByRole('textbox', { name: 'E-mail' }).fill(signer.email)
      await party.getByRole('textbox', { name: 'Name' }).fill(signer.name)
    }
    await reminders.getByRole('radio', { name: 'Custom' }).check()
    // Custom starts from the workspace's default.
    const numbers = ['First reminder after', 'Then every', 'At most'].map((name) => reminders.getByRole('spinbutton', { name }))
    expect(await Promise.all(numbers.map((number) => number.inputValue()))).toEqual(['2', '3', '2'])
    await numbers[0]?.fill('1')
    await numbers[1]?.fill('2')
    await numbers[2]?.fill('3')
    await expectAccessible('/send (Custom reminders)')
    await screenshotPageAsIs(page, 'send-reminders', { on: reminders, widths: 'both' })

    const sent = page.waitForResponse((r) => r.request().method() === 'POST' && new URL(r.url()).pathname === '/api/v1/documents')
    await page.getByRole('button', { name: 'Send for signature' }).click()
    const response = await sent
    expect(response.status()).toBe(201)
    expect(response.request().postDataJSON()).toMatchObject({ reminders: { first_after_days: 1, every_days: 2, max: 3 } })
    documentId = ((await response.json()) as { id: string }).id
    const created = (await (await server.request(`/api/v1/documents/${documentId}`, { key: apiKey })).json()) as { reminders?: unknown }
    expect(created.reminders).toEqual({ first_after_days: 1, every_days: 2, max: 3 })
    await page.getByRole('heading', { name: 'Sent' }).waitFor()
  })

  it("shows the document's schedule on its page", BROWSER_WALK, async () => {
    await page.getByRole('link', { name: 'View the document' }).click()
    await page.waitForURL(new RegExp(`/app/documents/${documentId}$`))
    await page.getByRole('heading', { level: 1, name: 'Crew agreement — Ines Alvarez' }).waitFor()
    const status = card('Status')
    await status.getByText('Reminders', { exact: true }).waitFor()
    expect(await status.locator('dt:text-is("Reminders") + dd').textContent()).toBe('1 day after the invitation, then every 2 days, at most 3 reminders')
    await page.getByText('Hash chain intact').waitFor()
    await expectAccessible('/documents/$id (with reminders)')
    expect(problems).toEqual([])
  })
})
