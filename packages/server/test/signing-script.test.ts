import type { Browser, Page, Request } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { bodyOf, setupOrg, uniqueEmail, type TestOrg } from './helpers/api.ts'
import { launchChromium } from './helpers/browser.ts'
import { startTestServer, type TestServer } from './helpers/test-server.ts'
import { haveTools } from '../../../test-support/tools.ts'

/*
 * The signing pages' script (signing/web/client/, bundled into /sign-assets/sign.js) in a
 * real browser: what signing-browser.test.ts's end-to-end flows do not reach — initials,
 * reusing a mark with one click, removing one, the dialog's keyboard tabs and errors, the
 * finish request's body, a failed finish, and the code page's input and countdown.
 */

let server: TestServer
let org: TestOrg
let browser: Browser

describe.runIf(haveTools('chromium'))("the signer's page script", () => {
  beforeAll(async () => {
    server = await startTestServer()
    org = await setupOrg(server, { name: 'Acme Script' })
    browser = await launchChromium()
  })
  afterAll(async () => {
    await browser?.close()
    await server?.close()
  })

  async function openSigningLink(fields: unknown[], signer: { auth_required?: boolean } = {}): Promise<{ page: Page; problems: string[] }> {
    const template = await server.createTemplate(org.orgId, { name: 'Script Agreement', fields })
    const email = uniqueEmail('ada')
    const response = await server.request('/api/v1/documents', {
      method: 'POST',
      key: org.apiKey,
      json: { template_id: template.id, signers: [{ email, name: 'Ada Lovelace', role: 0, ...signer }] },
    })
    expect(response.status).toBe(201)
    await bodyOf(response)
    const [invitation] = await server.mail.waitFor(email)
    const path = /\/sign\/[A-Za-z0-9_-]{43}/.exec(invitation?.text ?? '')?.[0]
    if (!path) throw new Error('no link in the invitation')
    const page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage()
    const problems: string[] = []
    page.on('pageerror', (error) => problems.push(error.message))
    page.on('console', (message) => {
      if (message.type() === 'error') problems.push(message.text())
    })
    await page.goto(server.url + path)
    return { page, problems }
  }

  const field = (page: Page, label: string) => page.locator(`.field:has(.field-control[aria-label*="${label}"]) .field-control`)
  const live = (page: Page) => page.locator('#live')
  const imageOf = (page: Page, label: string) => field(page, label).locator('img').getAttribute('src')

  async function draw(page: Page): Promise<void> {
    const box = await page.getByLabel('Signature drawing area').boundingBox()
    if (!box) throw new Error('no drawing area')
    await page.mouse.move(box.x + box.width * 0.2, box.y + box.height * 0.6)
    await page.mouse.down()
    for (let i = 1; i <= 10; i++) await page.mouse.move(box.x + box.width * (0.2 + i * 0.05), box.y + box.height * (0.6 - 0.02 * i))
    await page.mouse.up()
  }

  it('initials, a reused and a removed signature, keyboard tabs, dialog errors, and what Finish sends', async () => {
    const { page, problems } = await openSigningLink([
      { role: 0, type: 'signature', page: 1, x: 72, y: 140, width: 200, height: 40, label: 'Buyer signature' },
      { role: 0, type: 'signature', page: 1, x: 72, y: 260, width: 200, height: 40, label: 'Buyer countersignature' },
      { role: 0, type: 'initials', page: 1, x: 400, y: 140, width: 60, height: 30 },
      { role: 0, type: 'text', page: 1, x: 300, y: 400, width: 200, height: 20, label: 'Job title' },
      { role: 0, type: 'checkbox', page: 1, x: 300, y: 450, width: 14, height: 14, required: false, label: 'Send me a copy' },
    ])
    await page.waitForSelector('body[data-ready]')
    const progress = page.locator('#progress-text')
    expect(await progress.textContent()).toBe('0 of 4 required fields done')

    // Initials: the dialog says so, offers the signer's initials, and Enter in the input applies them.
    await field(page, 'Initials').click()
    expect(await page.locator('#signature-title').textContent()).toBe('Add your initials')
    await page.getByRole('tab', { name: 'Type' }).click()
    expect(await page.getByLabel('Type your initials').inputValue()).toBe('AL')
    await page.getByLabel('Type your initials').press('Enter')
    await expect.poll(() => field(page, 'Initials').getAttribute('aria-label')).toBe('Initials (required), page 1, filled; select to change')
    expect(await imageOf(page, 'Initials')).toMatch(/^data:image\/png;base64,/)
    await expect.poll(() => live(page).textContent()).toBe('Initials added. 1 of 4 required fields done.')

    // The signature dialog remembers "Type"; arrow keys and Home move between its tabs.
    await field(page, 'Buyer signature').click()
    expect(await page.locator('#signature-title').textContent()).toBe('Add your signature')
    expect(await page.getByRole('tab', { name: 'Type' }).getAttribute('aria-selected')).toBe('true')
    expect(await page.getByLabel('Type your name').inputValue()).toBe('Ada Lovelace')
    await page.getByRole('tab', { name: 'Type' }).press('ArrowRight')
    expect(await page.getByRole('tab', { name: 'Draw' }).getAttribute('aria-selected')).toBe('true')
    expect(await page.locator('#panel-type').isHidden()).toBe(true)
    await page.getByRole('tab', { name: 'Draw' }).press('End')
    expect(await page.getByRole('tab', { name: 'Type' }).getAttribute('aria-selected')).toBe('true')
    await page.getByRole('tab', { name: 'Type' }).press('Home')
    expect(await page.getByRole('tab', { name: 'Draw' }).evaluate((tab) => tab === document.activeElement)).toBe(true)

    // Draw: Apply on an empty pad explains; Clear empties it again.
    await page.getByRole('button', { name: 'Apply' }).click()
    expect(await page.locator('#signature-error').textContent()).toBe('Draw your signature in the box first, or choose Type.')
    await draw(page)
    expect(await page.locator('#signature-error').textContent()).toBe('')
    await page.getByRole('button', { name: 'Clear' }).click()
    await expect.poll(() => live(page).textContent()).toBe('Drawing cleared.')
    await page.getByRole('button', { name: 'Apply' }).click()
    expect(await page.locator('#signature-error').textContent()).toBe('Draw your signature in the box first, or choose Type.')
    await draw(page)
    await page.getByRole('button', { name: 'Apply' }).click()
    expect(await page.locator('#signature-dialog').isVisible()).toBe(false)
    const drawn = await imageOf(page, 'Buyer signature')
    expect(drawn).toMatch(/^data:image\/png;base64,/)

    // One click on the next empty signature field reuses the mark, without the dialog.
    await field(page, 'Buyer countersignature').click()
    expect(await page.locator('#signature-dialog').isVisible()).toBe(false)
    expect(await imageOf(page, 'Buyer countersignature')).toBe(drawn)
    await expect.poll(() => live(page).textContent()).toBe('Signature added; select it again to change it. 3 of 4 required fields done.')

    // A filled field opens the dialog with Remove; removing restores the field and stops the reuse.
    await field(page, 'Buyer countersignature').click()
    await page.getByRole('button', { name: 'Remove' }).click()
    await expect.poll(() => live(page).textContent()).toBe('Signature removed.')
    expect(await field(page, 'Buyer countersignature').textContent()).toBe('Sign')
    expect(await field(page, 'Buyer countersignature').getAttribute('aria-label')).toBe('Sign: Buyer countersignature (required), page 1')
    expect(await progress.textContent()).toBe('2 of 4 required fields done')
    await field(page, 'Buyer countersignature').click()
    expect(await page.locator('#signature-dialog').isVisible()).toBe(true)
    expect(await page.getByRole('button', { name: 'Remove' }).isVisible()).toBe(false)
    await page.getByRole('button', { name: 'Cancel' }).click()

    // "Next field" goes to the first required field left after the last one focused.
    await page.getByRole('button', { name: 'Next field' }).click()
    await expect.poll(() => page.evaluate(() => document.activeElement?.getAttribute('aria-label'))).toBe('Job title (required), page 1')
    await page.keyboard.type('  Treasurer ')
    await field(page, 'Buyer countersignature').click()
    await page.getByRole('tab', { name: 'Type' }).click()
    await page.getByRole('button', { name: 'Apply' }).click() // a typed mark waits for the script font
    await expect.poll(() => progress.textContent()).toBe('4 of 4 required fields done')
    expect(await page.getByRole('button', { name: 'Finish' }).isEnabled()).toBe(true)

    // Finish posts every value (texts trimmed, the unticked box as false); a failure is shown and dismissable.
    const requests: Request[] = []
    await page.route('**/finish', (route) => {
      requests.push(route.request())
      return route.fulfill({ status: 422, contentType: 'application/json', body: JSON.stringify({ error: 'Field 3 is too long.' }) })
    })
    await page.getByRole('button', { name: 'Finish' }).click()
    await expect.poll(() => page.locator('#sign-alert-text').textContent()).toBe('Field 3 is too long.')
    expect(await page.getByRole('button', { name: 'Reload the page' }).isVisible()).toBe(false)
    expect(await page.getByRole('button', { name: 'Finish' }).isEnabled()).toBe(true)
    const values = (requests[0]?.postDataJSON() as { values: Record<string, unknown> }).values
    expect(Object.keys(values).sort()).toEqual(['0', '1', '2', '3', '4'])
    expect(values['0']).toBe(drawn)
    expect(values['1']).toMatch(/^data:image\/png;base64,/)
    expect(values['1']).not.toBe(drawn)
    expect(values['2']).toMatch(/^data:image\/png;base64,/)
    expect(values['3']).toBe('Treasurer')
    expect(values['4']).toBe(false)
    await page.getByRole('button', { name: 'Dismiss' }).click()
    expect(await page.locator('#sign-alert').isHidden()).toBe(true)
    expect(problems.filter((p) => !/status of 422/.test(p))).toEqual([])
    await page.context().close()
  })

  it('the code page keeps digits only, counts down to "Send a new code", and shows a wrong code\'s error', async () => {
    const { page, problems } = await openSigningLink([{ role: 0, type: 'signature', page: 1, x: 72, y: 140, width: 200, height: 40 }], { auth_required: true })
    await page.waitForSelector('body[data-ready]')
    await page.getByRole('button', { name: 'Email me a code' }).click()
    await expect
      .poll(() => page.locator('#code-message').textContent())
      .toMatch(/^We sent a code to .+\. It can take a minute to arrive; check your spam folder too\.$/)
    expect(await page.locator('#code-message').getAttribute('class')).toBe('message is-success')
    expect(await page.getByRole('button', { name: 'Send a new code' }).isDisabled()).toBe(true)
    expect(await page.locator('#code-countdown').textContent()).toMatch(/^available in \d+ s$/)
    await page.getByLabel('6-digit code').fill('12 34-5x67')
    expect(await page.getByLabel('6-digit code').inputValue()).toBe('123456')
    await page.getByLabel('6-digit code').fill('123')
    await page.getByRole('button', { name: 'Verify' }).click()
    expect(await page.locator('#code-message').textContent()).toBe('Enter the 6-digit code from the email.')
    await page.getByLabel('6-digit code').fill('000000')
    await page.getByRole('button', { name: 'Verify' }).click()
    // The server's refusal replaces the previous message; Verify is usable again.
    await expect.poll(() => page.locator('#code-message').textContent()).not.toBe('Enter the 6-digit code from the email.')
    expect(await page.locator('#code-message').textContent()).toMatch(/code/i)
    expect(await page.locator('#code-message').getAttribute('class')).toBe('message is-error')
    expect(await page.getByRole('button', { name: 'Verify' }).isEnabled()).toBe(true)
    expect(problems.filter((p) => !/status of 4\d\d/.test(p))).toEqual([])
    await page.context().close()
  })
})
