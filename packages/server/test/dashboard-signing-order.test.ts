import type { Locator, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { openDashboardPage, screenshotPageAsIs } from './helpers/dashboard.ts'
import { SignerClient, tokenFromMail, valuesFor } from './helpers/signing.ts'
import { type TestServer } from './helpers/test-server.ts'
import { BROWSER_WALK, openOwnerDashboard, type OwnerDashboard } from './helpers/owner-dashboard.ts'
import { haveTools } from '../../../test-support/tools.ts'

/*
 * A signing order (issue 22) as its sender sees it: the real server, its built dashboard and CSP,
 * real mail through the SMTP catcher, Debian's Chromium. The owner sends a three-party template
 * with "Signers sign one after another" and steps 1, 2, 2 from the Send page; only the first
 * signer is mailed, the document page says whom the other two wait for, and once the first
 * signer has signed (through the signer page's API) it shows them invited.
 */

const signers = [
  { name: 'Ines Alvarez', email: 'ines.alvarez@example.com', step: '1' },
  { name: 'Tomasz Wiśniewski', email: 'tomasz.wisniewski@example.com', step: '2' },
  { name: 'Amara Okafor', email: 'amara.okafor@example.com', step: '2' },
] as const

let dashboard: OwnerDashboard
let server: TestServer
let problems: string[]
let page: Page
let templateId: string
let documentId = ''

const card = (heading: string) => dashboard.card(heading)
const expectAccessible = (what: string) => dashboard.expectAccessible(what)
const mailsTo = (email: string) => server.mail.messages.filter((m) => m.to?.some((to) => to.address === email))
/** A Signers line that ends in a date and time ("Invited 27 Nov 2026, 05:30"), in the browser's locale. */
const dated = (start: string) => expect.stringMatching(new RegExp(`^${start} \\S`)) as unknown
/** Waits `ms` for mail that must not come. */
const settle = (ms = 1000) => new Promise((resolve) => setTimeout(resolve, ms))

/** Each row of the Signers card: its line under the name ("Step 2 · Party 3 · …"), and whether it offers Resend. */
async function signerRows(): Promise<{ line: string; resend: boolean }[]> {
  const rows = await card('Signers').locator('li').all()
  return Promise.all(
    rows.map(async (row) => ({
      line: (await row.getByText(/^Step \d+ · Party \d+ · /).textContent()) ?? '',
      resend: (await row.getByRole('button', { name: /^Resend the invitation/ }).count()) === 1,
    })),
  )
}

describe.runIf(haveTools('chromium'))('a signing order in the dashboard', () => {
  beforeAll(async () => {
    dashboard = await openOwnerDashboard('Harbour Freight Co-op', 'Crew agreement', 3)
    ;({ server, templateId, page, problems } = dashboard)
  }, 60_000)

  afterAll(async () => {
    await dashboard?.close()
  })

  it('sends three parties in steps 1, 2, 2 from the Send page: only the first is mailed', BROWSER_WALK, async () => {
    await openDashboardPage(page, server, `/send?template=${templateId}`, 'Send a document')
    const parties = signers.map((_, index) => page.getByRole('group', { name: `Party ${index + 1}` }))
    const steps = parties.map((party) => party.getByRole('spinbutton', { name: 'Step' }))
    // Off by default: no steps until the switch is turned on, then 1, 2, 3 in the parties' order.
    expect(await page.getByRole('spinbutton', { name: 'Step' }).count()).toBe(0)
    const oneAfterAnother = page.getByRole('switch', { name: 'Signers sign one after another' })
    expect(await oneAfterAnother.getAttribute('aria-checked')).toBe('false')
    await oneAfterAnother.click()
    expect(await Promise.all(steps.map((step) => step.inputValue()))).toEqual(['1', '2', '3'])
    await parties[1]?.getByText('Parties with the same step sign at the same time.').waitFor()

    for (const [index, signer] of signers.entries()) {
      const party = parties[index] as Locator
      await party.getByRole('textbox', { name: 'E-mail' }).fill(signer.email)
      await party.getByRole('textbox', { name: 'Name' }).fill(signer.name)
      await party.getByRole('spinbutton', { name: 'Step' }).fill(signer.step)
    }
    await expectAccessible('/send (one after another)')
    await screenshotPageAsIs(page, 'send-order')

    const sent = page.waitForResponse((r) => r.request().method() === 'POST' && new URL(r.url()).pathname === '/api/v1/documents')
    await page.getByRole('button', { name: 'Send for signature' }).click()
    const created = (await (await sent).json()) as { id: string; signers: { email: string; order?: number }[] }
    expect(created.signers.map(({ email, order }) => ({ email, order }))).toEqual(signers.map(({ email, step }) => ({ email, order: Number(step) })))
    documentId = created.id
    await page.getByRole('heading', { name: 'Sent' }).waitFor()
    await page
      .getByText(
        'The first signer has been sent an invitation to sign “Crew agreement”. Each next step is invited once everyone in the step before has signed.',
      )
      .waitFor()

    await server.mail.waitFor(signers[0].email)
    await settle()
    expect(signers.map(({ email }) => mailsTo(email).length)).toEqual([1, 0, 0])
  })

  it(
    'says on the document page whom the second step waits for, with no Resend for them; shows them invited once the first has signed',
    BROWSER_WALK,
    async () => {
      await page.getByRole('link', { name: 'View the document' }).click()
      await page.waitForURL(new RegExp(`/app/documents/${documentId}$`))
      await page.getByRole('heading', { level: 1, name: 'Crew agreement — Ines Alvarez' }).waitFor()
      await card('Signers').getByText('Step 2 · Party 3 · Waiting for Ines Alvarez to sign').waitFor()
      expect(await signerRows()).toEqual([
        { line: dated('Step 1 · Party 1 · Invited'), resend: true },
        { line: 'Step 2 · Party 2 · Waiting for Ines Alvarez to sign', resend: false },
        { line: 'Step 2 · Party 3 · Waiting for Ines Alvarez to sign', resend: false },
      ])
      await page.getByText('Hash chain intact').waitFor()
      await expectAccessible('/documents/$id (waiting for a step)')
      await screenshotPageAsIs(page, 'document-order', { on: card('Signers'), widths: 'phone' })

      const [invitation] = await server.mail.waitFor(signers[0].email)
      const first = new SignerClient(server, tokenFromMail(invitation?.text), signers[0].email)
      expect((await first.finish(valuesFor(0))).status).toBe(200)
      await Promise.all(signers.slice(1).map(({ email }) => server.mail.waitFor(email)))

      await openDashboardPage(page, server, `/documents/${documentId}`, 'Crew agreement — Ines Alvarez')
      await card('Signers')
        .getByText(/^Step 2 · Party 3 · Invited /)
        .waitFor()
      expect(await signerRows()).toEqual([
        { line: dated('Step 1 · Party 1 · Signed'), resend: false },
        { line: dated('Step 2 · Party 2 · Invited'), resend: true },
        { line: dated('Step 2 · Party 3 · Invited'), resend: true },
      ])
      expect(
        await card('Signers')
          .getByText(/Waiting for/)
          .count(),
      ).toBe(0)
      await expectAccessible('/documents/$id (second step invited)')
      expect(problems).toEqual([])
    },
  )
})
