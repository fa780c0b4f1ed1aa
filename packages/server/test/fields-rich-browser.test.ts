import { execFileSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { haveTools } from '../../../test-support/tools.ts'
import { bodyOf, setupOrg, uniqueEmail, type TestOrg } from './helpers/api.ts'
import { launchChromium } from './helpers/browser.ts'
import { SCREENSHOT_DIR } from './helpers/dashboard.ts'
import { darkPixels } from './helpers/pgm.ts'
import { saveSignedPdf } from './helpers/documents.ts'
import { startTestServer, type TestServer } from './helpers/test-server.ts'

/*
 * Richer fields (issue 22) on the real signer page, in Debian's Chromium: the signer picks a radio
 * option and a dropdown choice, types a number and an e-mail address (a wrong one keeps Finish
 * off), keeps the name filled from the invitation, sees the read-only prefilled rent locked, and
 * finishes; the signed PDF shows every value and marks the chosen radio option.
 * SIGNET_SCREENSHOTS=1 also writes docs/screenshots/signer-fields-desktop.png and -phone.png.
 */

let server: TestServer
let org: TestOrg
let browser: Browser
let work: string

const box = (y: number, width = 200, height = 20) => ({ page: 1, x: 72, y, width, height })
const FIELDS = [
  { role: 0, type: 'signature', ...box(40, 180, 40) },
  { role: 0, type: 'radio', name: 'plan', label: 'Plan', options: ['Basic', 'Plus', 'Premium'], ...box(100, 160, 60) },
  { role: 0, type: 'dropdown', name: 'city', label: 'City', options: ['Berlin', 'Lisbon', 'Tokyo'], ...box(180) },
  { role: 0, type: 'number', name: 'rent', label: 'Rent', min: 100, max: 5000, ...box(220) },
  { role: 0, type: 'number', name: 'deposit', label: 'Deposit', min: 0, max: 3000, ...box(260) },
  { role: 0, type: 'email', name: 'contact', label: 'Contact', ...box(300) },
  { role: 0, type: 'name', name: 'full_name', label: 'Full name', ...box(340) },
]

describe.runIf(haveTools('chromium', 'pdftotext', 'pdftoppm'))('richer fields in a browser', () => {
  beforeAll(async () => {
    server = await startTestServer({ env: { JOB_POLL_MS: '200' } })
    org = await setupOrg(server, { name: 'Northwind Rentals' })
    browser = await launchChromium()
    work = mkdtempSync(join(tmpdir(), 'signet-fields-'))
  })
  afterAll(async () => {
    await browser?.close()
    await server?.close()
    rmSync(work, { recursive: true, force: true })
  })

  async function openInvitation(email: string): Promise<{ page: Page; problems: string[] }> {
    const [invitation] = await server.mail.waitFor(email)
    const link = /https?:\/\/\S+\/sign\/[A-Za-z0-9_-]{43}/.exec(invitation?.text ?? '')?.[0]
    if (!link) throw new Error('no link in the invitation')
    const page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage()
    const problems: string[] = []
    page.on('console', (message) => void (message.type() === 'error' && problems.push(message.text())))
    page.on('pageerror', (error) => problems.push(error.message))
    page.setDefaultTimeout(8000)
    await page.goto(server.url + new URL(link).pathname)
    await page.waitForSelector('body[data-ready]')
    return { page, problems }
  }

  /**
   * With SIGNET_SCREENSHOTS=1: the page as it is, at desktop and phone width, scrolled so the
   * fields are at the top (once the page is drawn again at that width), no control focused or hovered.
   */
  async function screenshotFields(page: Page): Promise<void> {
    if (!SCREENSHOT_DIR) return
    mkdirSync(SCREENSHOT_DIR, { recursive: true })
    await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur())
    await page.mouse.move(0, 0) // no field left hovered by the last click
    for (const [label, viewport] of [
      ['desktop', { width: 1280, height: 900 }],
      ['phone', { width: 390, height: 844 }],
    ] as const) {
      await page.setViewportSize(viewport)
      await page.waitForFunction(() => {
        const sheet = document.querySelector<HTMLElement>('.page')
        const canvas = sheet?.querySelector('canvas')
        return !!sheet && !!canvas && Math.abs(canvas.width - sheet.clientWidth * devicePixelRatio) <= 1
      })
      await page
        .locator('.field')
        .first()
        .evaluate((field) => {
          field.scrollIntoView({ block: 'start' })
          window.scrollBy(0, -24)
        })
      await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))))
      await page.screenshot({ path: join(SCREENSHOT_DIR, `signer-fields-${label}.png`) })
    }
    await page.setViewportSize({ width: 1280, height: 900 })
  }

  it('a signer fills every new type, sees the prefilled rent locked, and finishes; the PDF shows the values', { timeout: 60_000 }, async () => {
    const { id: templateId } = await server.createTemplate(org.orgId, { name: 'Lease' })
    const put = await server.request(`/api/v1/templates/${templateId}/fields`, { method: 'PUT', key: org.apiKey, json: { fields: FIELDS } })
    expect(put.status).toBe(200)
    const email = uniqueEmail('tenant')
    const sent = await server.request('/api/v1/documents', {
      method: 'POST',
      key: org.apiKey,
      json: {
        template_id: templateId,
        signer: { email, name: 'Nora Quill' },
        fields: [
          { name: 'rent', value: 950, read_only: true },
          { name: 'city', value: 'Tokyo' },
        ],
      },
    })
    expect(sent.status).toBe(201)
    const { id } = await bodyOf<{ id: string }>(sent)

    const { page, problems } = await openInvitation(email)
    const finish = page.getByRole('button', { name: 'Finish' })
    const rent = page.getByRole('spinbutton', { name: /^Rent/ })
    expect(await rent.inputValue()).toBe('950')
    expect(await rent.isEditable()).toBe(false)
    expect(await rent.getAttribute('aria-label')).toContain('filled in by the sender')
    const city = page.getByRole('combobox', { name: /^City/ })
    expect(await city.inputValue()).toBe('Tokyo')
    const fullName = page.getByRole('textbox', { name: /^Full name/ })
    expect(await fullName.inputValue()).toBe('Nora Quill')

    await page.locator('.field[data-type="signature"] .field-control').click()
    await page.getByRole('tab', { name: 'Type' }).click()
    await page.getByRole('button', { name: 'Apply' }).click()
    await page.getByRole('radio', { name: 'Plus' }).check()
    await city.selectOption('Lisbon')
    const deposit = page.getByRole('spinbutton', { name: /^Deposit/ })
    await deposit.fill('4000')
    const contact = page.getByRole('textbox', { name: /^Contact/ })
    await contact.fill('nora@example.org')
    // Out of bounds: the field says so and Finish stays off, until the number fits.
    await expect.poll(() => page.locator('.field.is-invalid').count()).toBe(1)
    expect(await deposit.getAttribute('aria-invalid')).toBe('true')
    expect(await finish.isDisabled()).toBe(true)
    await deposit.fill('1900')
    await contact.fill('not an address')
    expect(await finish.isDisabled()).toBe(true)
    await contact.fill('nora@example.org')
    await expect.poll(() => finish.isEnabled()).toBe(true)
    await screenshotFields(page)
    await finish.click()
    await page.getByText('Everyone has signed').waitFor()
    expect(problems).toEqual([])
    await page.close()

    const pdfPath = await saveSignedPdf(server, org.apiKey, id, join(work, 'signed.pdf'))
    const text = execFileSync('pdftotext', ['-layout', pdfPath, '-'], { encoding: 'utf8' })
    for (const shown of ['Basic', 'Plus', 'Premium', 'Lisbon', '950', '1900', 'nora@example.org', 'Nora Quill']) expect(text).toContain(shown)
    expect(text).not.toContain('Tokyo')

    // Page 1 at 72 dpi: the chosen option's circle (row 2 of the group) is filled, the others are not.
    execFileSync('pdftoppm', ['-r', '72', '-gray', '-f', '1', '-l', '1', pdfPath, join(work, 'page')])
    const pgm = readFileSync(join(work, 'page-1.pgm'))
    const dot = (row: number) => darkPixels(pgm, { x: 79, y: 100 + row * 20 + 8, width: 4, height: 4 })
    expect([dot(0), dot(1), dot(2)].map((n) => n > 8)).toEqual([false, true, false])
  })
})
