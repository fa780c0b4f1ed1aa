import type { Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { openDashboardPage, screenshotPageAsIs } from './helpers/dashboard.ts'
import { type TestServer } from './helpers/test-server.ts'
import { BROWSER_WALK, openOwnerDashboard, type OwnerDashboard } from './helpers/owner-dashboard.ts'
import { haveTools } from '../../../test-support/tools.ts'

/*
 * Named roles (issue 22) as a sender sees them: the real server, its built dashboard and CSP, real
 * mail through the SMTP catcher, Debian's Chromium. The owner names a lease's two roles Landlord
 * and Tenant in the template editor, with the tenant signing first by default; the Send page then
 * asks for the Landlord and the Tenant, one after another in the template's steps, and the
 * invitations and the document page name each signer's role.
 */

let dashboard: OwnerDashboard
let server: TestServer
let problems: string[]
let page: Page
let templateId: string

const card = (heading: string) => dashboard.card(heading)
const expectAccessible = (what: string) => dashboard.expectAccessible(what)

describe.runIf(haveTools('chromium'))('named roles in the dashboard', () => {
  beforeAll(async () => {
    dashboard = await openOwnerDashboard('Harbour Lettings', 'Flat lease', 2)
    ;({ server, templateId, page, problems } = dashboard)
  }, 60_000)

  afterAll(async () => {
    await dashboard?.close()
  })

  it('names the roles and their default order in the template editor', BROWSER_WALK, async () => {
    await openDashboardPage(page, server, `/templates/${templateId}`, 'Flat lease')
    const roles = card('Roles')
    const save = roles.getByRole('button', { name: 'Save roles' })
    // Nothing to save until something changes; no steps until the switch is on.
    expect(await save.isDisabled()).toBe(true)
    expect(await roles.getByRole('spinbutton').count()).toBe(0)

    await roles.getByRole('textbox', { name: 'Party 1 name' }).fill('Landlord')
    await roles.getByRole('textbox', { name: 'Party 2 name' }).fill('landlord')
    const refused = page.waitForResponse((r) => r.request().method() === 'PUT' && r.url().endsWith('/roles'))
    await save.click()
    expect((await refused).status()).toBe(400)
    await roles.getByText('Another role already has this name').waitFor()

    await roles.getByRole('textbox', { name: 'Party 2 name' }).fill('Tenant')
    await roles.getByRole('switch', { name: 'Roles sign one after another by default' }).click()
    expect(await roles.getByRole('spinbutton', { name: 'Party 1 step' }).inputValue()).toBe('1')
    await roles.getByRole('spinbutton', { name: 'Party 1 step' }).fill('2')
    await roles.getByRole('spinbutton', { name: 'Party 2 step' }).fill('1')
    const saved = page.waitForResponse((r) => r.request().method() === 'PUT' && r.url().endsWith('/roles'))
    await save.click()
    const answer = await saved
    expect(answer.status()).toBe(200)
    expect(((await answer.json()) as { role_names: unknown }).role_names).toEqual([
      { role: 0, name: 'Landlord', order: 2 },
      { role: 1, name: 'Tenant', order: 1 },
    ])
    await page.getByText('Roles saved').first().waitFor()
    await expectAccessible('/templates/$id (roles named)')
    await screenshotPageAsIs(page, 'template-roles')
    // The field editor below the card calls the roles by their new names at once, without a reload.
    expect(await page.getByRole('combobox', { name: 'For' }).textContent()).toBe('Landlord')
    await page.getByRole('button', { name: 'Signature field “Signature 1”, Tenant, page 1' }).waitFor()

    // What the editor shows after a reload is what the server kept.
    await openDashboardPage(page, server, `/templates/${templateId}`, 'Flat lease')
    expect(await card('Roles').getByRole('textbox', { name: 'Party 1 name' }).inputValue()).toBe('Landlord')
    expect(await card('Roles').getByRole('spinbutton', { name: 'Party 2 step' }).inputValue()).toBe('1')
  })

  it(
    "asks for the Landlord and the Tenant on the Send page, in the template's order; the invitations and the document page name the roles",
    BROWSER_WALK,
    async () => {
      await openDashboardPage(page, server, `/send?template=${templateId}`, 'Send a document')
      const landlord = page.getByRole('group', { name: 'Landlord' })
      const tenant = page.getByRole('group', { name: 'Tenant' })
      await landlord.waitFor()
      expect(await page.getByRole('group', { name: 'Party 1' }).count()).toBe(0)
      expect(await page.getByRole('switch', { name: 'Signers sign one after another' }).getAttribute('aria-checked')).toBe('true')
      expect(await landlord.getByRole('spinbutton', { name: 'Step' }).inputValue()).toBe('2')
      expect(await tenant.getByRole('spinbutton', { name: 'Step' }).inputValue()).toBe('1')

      await landlord.getByRole('textbox', { name: 'E-mail' }).fill('lena.landlord@example.com')
      await landlord.getByRole('textbox', { name: 'Name' }).fill('Lena Brandt')
      await tenant.getByRole('textbox', { name: 'E-mail' }).fill('tom.tenant@example.com')
      await tenant.getByRole('textbox', { name: 'Name' }).fill('Tom Okafor')
      await expectAccessible('/send (named roles)')
      await screenshotPageAsIs(page, 'send-roles')

      const sent = page.waitForResponse((r) => r.request().method() === 'POST' && new URL(r.url()).pathname === '/api/v1/documents')
      await page.getByRole('button', { name: 'Send for signature' }).click()
      const created = (await (await sent).json()) as { signers: { email: string; order?: number; role_name?: string }[] }
      expect(created.signers.map(({ email, order, role_name }) => ({ email, order, role_name }))).toEqual([
        { email: 'lena.landlord@example.com', order: 2, role_name: 'Landlord' },
        { email: 'tom.tenant@example.com', order: 1, role_name: 'Tenant' },
      ])
      await page.getByRole('heading', { name: 'Sent' }).waitFor()
      const [invitation] = await server.mail.waitFor('tom.tenant@example.com')
      expect(invitation?.text).toContain('You sign as Tenant.')

      // The document page names each signer's role beside their step.
      await page.getByRole('link', { name: 'View the document' }).click()
      await card('Signers')
        .getByText(/^Step 1 · Tenant · Invited /)
        .waitFor()
      await card('Signers')
        .getByText(/^Step 2 · Landlord · /)
        .waitFor()
      expect(problems).toEqual([])
    },
  )
})
