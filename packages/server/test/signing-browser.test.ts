import { execFileSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { bodyOf, setupOrg, uniqueEmail, type Json, type TestOrg } from './helpers/api.ts'
import { richFields } from './helpers/signing.ts'
import { saveSignedPdf } from './helpers/documents.ts'
import { startTestServer, type TestServer } from './helpers/test-server.ts'
import { haveTools } from '../../../test-support/tools.ts'
import { accessibilityViolations, launchChromium } from './helpers/browser.ts'
import { darkPixels } from './helpers/pgm.ts'

/*
 * Real signers in a real browser (Debian's Chromium driven by playwright-core): links
 * come from the invitations caught by the SMTP listener, codes from the code e-mails.
 * SIGNET_SCREENSHOTS=1 also refreshes docs/screenshots/.
 */

const SCREENSHOTS = process.env.SIGNET_SCREENSHOTS === '1' ? new URL('../../../docs/screenshots/', import.meta.url).pathname : undefined

let server: TestServer
let org: TestOrg
let browser: Browser
let work: string
const consoleProblems = new WeakMap<Page, string[]>()

describe.runIf(haveTools('chromium', 'qpdf', 'pdftotext', 'pdftoppm'))('signing in a browser', () => {
  beforeAll(async () => {
    server = await startTestServer({ env: { JOB_POLL_MS: '200' } })
    org = await setupOrg(server, { name: 'Northwind Legal' })
    browser = await launchChromium()
    work = mkdtempSync(join(tmpdir(), 'signet-browser-'))
    if (SCREENSHOTS) mkdirSync(SCREENSHOTS, { recursive: true })
  })
  afterAll(async () => {
    await browser?.close()
    await server?.close()
    rmSync(work, { recursive: true, force: true })
  })

  /** A fresh browser context (own cookies) at the link from the signer's invitation e-mail. */
  async function openInvitation(email: string, viewport = { width: 1280, height: 800 }): Promise<Page> {
    const [invitation] = await server.mail.waitFor(email)
    const link = /https?:\/\/\S+\/sign\/[A-Za-z0-9_-]{43}/.exec(invitation?.text ?? '')?.[0]
    if (!link) throw new Error('no link in the invitation')
    // The e-mail names PUBLIC_URL; the test server listens on a random port behind it.
    const context = await browser.newContext({ viewport })
    const page = await context.newPage()
    const problems: string[] = []
    page.on('console', (message) => {
      if (message.type() === 'error') problems.push(message.text())
    })
    page.on('pageerror', (error) => problems.push(error.message))
    consoleProblems.set(page, problems)
    await page.goto(server.url + new URL(link).pathname)
    return page
  }

  async function createDocument(signers: { email: string; name: string; role: number; auth_required?: boolean; order?: number }[]): Promise<string> {
    const template = await server.createTemplate(org.orgId, { name: 'Consulting Agreement', pages: 2, fields: richFields(signers.map((s) => s.role)) })
    const response = await server.request('/api/v1/documents', { method: 'POST', key: org.apiKey, json: { template_id: template.id, signers } })
    expect(response.status).toBe(201)
    return (await bodyOf<{ id: string }>(response)).id
  }

  /** Closes a signer's page, asserting its console stayed clean (but for `expected` messages). */
  async function closePage(page: Page, expected?: RegExp): Promise<void> {
    await page.close()
    expect((consoleProblems.get(page) ?? []).filter((p) => !expected?.test(p))).toEqual([])
  }

  const documentStatus = async (id: string) => bodyOf(await server.request(`/api/v1/documents/${id}`, { key: org.apiKey }))

  async function drawSignature(page: Page): Promise<void> {
    const canvas = page.getByLabel('Signature drawing area')
    const box = await canvas.boundingBox()
    if (!box) throw new Error('no drawing area')
    await page.mouse.move(box.x + box.width * 0.1, box.y + box.height * 0.7)
    await page.mouse.down()
    for (let i = 1; i <= 20; i++) await page.mouse.move(box.x + box.width * (0.1 + i * 0.04), box.y + box.height * (0.5 + 0.25 * Math.sin(i / 2)))
    await page.mouse.up()
  }

  it('two parties sign: one passes the e-mail code and draws, the other types with the keyboard only; the API reports completed and the PDF checks out', async () => {
    const alice = { email: uniqueEmail('alice'), name: 'Alice Lindqvist', role: 0, auth_required: true }
    const bob = { email: uniqueEmail('bob'), name: 'Bob Okafor', role: 1 }
    const id = await createDocument([alice, bob])

    // Alice: the code step, then draw a signature, fill the text field, tick the box.
    const first = await openInvitation(alice.email)
    await expect.poll(() => first.getByRole('button', { name: 'Email me a code' }).isVisible()).toBe(true)
    if (SCREENSHOTS) await first.screenshot({ path: join(SCREENSHOTS, 'code-desktop.png') })
    await first.getByRole('button', { name: 'Email me a code' }).click()
    const codeMail = (await server.mail.waitFor(alice.email, 2)).find((m) => /is your code/.test(m.subject ?? ''))
    const code = /\b(\d{6})\b/.exec(codeMail?.text ?? '')?.[1] ?? ''
    await first.getByLabel('6-digit code').fill(code)
    await first.getByRole('button', { name: 'Verify' }).click()
    await first.waitForSelector('body[data-ready]')
    await expect.poll(async () => ((await documentStatus(id)).signers as Json[])[0]?.status).toBe('viewed')

    if (SCREENSHOTS) await first.screenshot({ path: join(SCREENSHOTS, 'signing-desktop.png'), fullPage: false })
    const finish = first.getByRole('button', { name: 'Finish' })
    expect(await finish.isDisabled()).toBe(true)
    await first.locator('.field[data-type="signature"] .field-control').click()
    await drawSignature(first)
    await first.getByRole('button', { name: 'Apply' }).click()
    await first.locator('.field[data-type="text"] .field-control').fill('Managing Director')
    await first.locator('.field[data-type="checkbox"] .field-control').check()
    expect(await finish.isEnabled()).toBe(true)
    await finish.click()
    await first.getByText('You have signed').waitFor()
    await closePage(first)
    expect((await documentStatus(id)).status).toBe('sent')

    // Bob, at phone width, keyboard only: Tab to the signature field, type the name, apply, finish.
    const second = await openInvitation(bob.email, { width: 375, height: 740 })
    await second.waitForSelector('body[data-ready]')
    if (SCREENSHOTS) await second.screenshot({ path: join(SCREENSHOTS, 'signing-phone.png') })
    await second.getByRole('button', { name: 'Next field' }).focus()
    await second.keyboard.press('Enter')
    await expect.poll(() => second.evaluate("document.activeElement?.closest('.field')?.dataset.type")).toBe('signature')
    await second.keyboard.press('Enter')
    await second.getByRole('tab', { name: 'Type' }).click()
    expect(await second.getByLabel('Type your name').inputValue()).toBe('Bob Okafor')
    if (SCREENSHOTS) await second.screenshot({ path: join(SCREENSHOTS, 'signature-dialog-phone.png') })
    await second.getByRole('button', { name: 'Apply' }).click()
    await second.getByRole('button', { name: 'Finish' }).click()
    await second.getByText('Everyone has signed').waitFor()
    if (SCREENSHOTS) await second.screenshot({ path: join(SCREENSHOTS, 'completed-phone.png') })
    await closePage(second)

    const document = await documentStatus(id)
    expect(document.status).toBe('completed')
    expect((document.signers as Json[]).map((s) => [s.status, s.auth_verified])).toEqual([
      ['signed', true],
      ['signed', false],
    ])

    const pdfPath = await saveSignedPdf(server, org.apiKey, id, join(work, 'signed.pdf'))

    expect(execFileSync('qpdf', ['--check', pdfPath], { encoding: 'utf8' })).toContain('No syntax or stream encoding errors')
    const text = execFileSync('pdftotext', ['-layout', pdfPath, '-'], { encoding: 'utf8' })
    for (const expected of ['Alice Lindqvist', 'Bob Okafor', alice.email, bob.email, 'Managing Director', 'Consulting Agreement'])
      expect(text).toContain(expected)

    // Page 1 at 72 dpi, in grey: the drawn and typed signatures are ink inside their boxes.
    execFileSync('pdftoppm', ['-r', '72', '-gray', '-f', '1', '-l', '1', pdfPath, join(work, 'page')])
    const inkInBox = (x: number, y: number, width: number, height: number) => darkPixels(readFileSync(join(work, 'page-1.pgm')), { x, y, width, height })
    expect(inkInBox(72, 140, 200, 40)).toBeGreaterThan(30) // Alice's drawn signature
    expect(inkInBox(72, 260, 200, 40)).toBeGreaterThan(30) // Bob's typed signature
    expect(inkInBox(72, 400, 200, 40)).toBe(0) // and blank paper where no field is
  })

  /** Signs the signature field with the name the invitation gave (the Type tab) and applies it. */
  async function typeSignature(page: Page): Promise<void> {
    await page.locator('.field[data-type="signature"] .field-control').click()
    await page.getByRole('tab', { name: 'Type' }).click()
    await page.getByRole('button', { name: 'Apply' }).click()
  }

  it('a signing order in steps 1, 2, 2: the second step is mailed only once the first has signed, then both sign and the document completes', async () => {
    const first = { email: uniqueEmail('step1'), name: 'Ines Alvarez', role: 0, order: 1 }
    const seconds = [
      { email: uniqueEmail('step2a'), name: 'Tomasz Wiśniewski', role: 1, order: 2 },
      { email: uniqueEmail('step2b'), name: 'Amara Okafor', role: 2, order: 2 },
    ]
    const id = await createDocument([first, ...seconds])
    const mailsTo = (email: string) => server.mail.messages.filter((m) => m.to?.some((to) => to.address === email))

    const page = await openInvitation(first.email)
    await page.waitForSelector('body[data-ready]')
    expect(seconds.map(({ email }) => mailsTo(email).length)).toEqual([0, 0])
    await typeSignature(page)
    await page.locator('.field[data-type="text"] .field-control').fill('Skipper')
    await page.getByRole('button', { name: 'Finish' }).click()
    await page.getByText('You have signed').waitFor()
    await closePage(page)

    // Both of the second step at once, each on their own page; the last to finish completes the document.
    const pages = await Promise.all(seconds.map(({ email }) => openInvitation(email, { width: 375, height: 740 })))
    expect(seconds.map(({ email }) => mailsTo(email).length)).toEqual([1, 1])
    for (const [index, signerPage] of pages.entries()) {
      await signerPage.waitForSelector('body[data-ready]')
      await typeSignature(signerPage)
      await signerPage.getByRole('button', { name: 'Finish' }).click()
      await signerPage.getByText(index === 0 ? 'You have signed' : 'Everyone has signed').waitFor()
      await closePage(signerPage)
    }
    const document = await documentStatus(id)
    expect(document.status).toBe('completed')
    expect((document.signers as Json[]).map((s) => [s.email, s.status])).toEqual([first, ...seconds].map(({ email }) => [email, 'signed']))
  })

  it('a signer declines with a reason in the browser; the other signer sees the closed page', async () => {
    const carol = { email: uniqueEmail('carol'), name: 'Carol Diaz', role: 0 }
    const dan = { email: uniqueEmail('dan'), name: 'Dan Wu', role: 1 }
    const id = await createDocument([carol, dan])
    const page = await openInvitation(carol.email)
    await page.waitForSelector('body[data-ready]')
    await page.getByRole('button', { name: 'Decline' }).click()
    await page.getByLabel('Reason (optional)').fill('The start date is wrong.')
    await page.getByRole('button', { name: 'Decline to sign' }).click()
    await page.getByText('You declined this document').waitFor()
    await closePage(page)
    expect((await documentStatus(id)).status).toBe('declined')

    const other = await openInvitation(dan.email)
    await other.getByText('This document was declined').waitFor()
    expect(await other.getByRole('button', { name: 'Finish' }).count()).toBe(0)
    await closePage(other)
  })

  it('the code page, the signing page, its signature dialog and a status page pass axe-core (WCAG 2.1 AA), at desktop and phone width', async () => {
    const grace = { email: uniqueEmail('grace'), name: 'Grace Hopper', role: 0, auth_required: true }
    await createDocument([grace])
    for (const viewport of [
      { width: 1280, height: 800 },
      { width: 375, height: 740 },
    ]) {
      const [invitation] = await server.mail.waitFor(grace.email)
      const path = new URL(/https?:\/\/\S+\/sign\/[A-Za-z0-9_-]{43}/.exec(invitation?.text ?? '')?.[0] ?? '').pathname
      // axe is injected as an inline script, which the pages' CSP would (rightly) refuse.
      const context = await browser.newContext({ viewport, bypassCSP: true })
      const page = await context.newPage()
      await page.goto(server.url + path)
      await page.waitForSelector('body[data-ready]')
      expect(await accessibilityViolations(page), 'code page').toEqual([])
      await context.close()
    }
    const { signers } = await import('./helpers/signing.ts').then((m) => m.sendForSigning(server, org, { roles: [0, 1] }))
    const context = await browser.newContext({ viewport: { width: 375, height: 740 }, bypassCSP: true })
    const page = await context.newPage()
    await page.goto(`${server.url}/sign/${signers[0]!.token}`)
    await page.waitForSelector('body[data-ready]')
    expect(await accessibilityViolations(page), 'signing page').toEqual([])
    await page.locator('.field[data-type="signature"] .field-control').click()
    expect(await accessibilityViolations(page), 'signature dialog').toEqual([])
    await page.goto(`${server.url}/sign/${signers[0]!.token.slice(0, -2)}xx`)
    expect(await accessibilityViolations(page), 'status page').toEqual([])
    await context.close()
  })

  it('a voided document shows the cancelled page instead of the form', async () => {
    const erin = { email: uniqueEmail('erin'), name: 'Erin Moss', role: 0 }
    const id = await createDocument([erin])
    expect((await server.request(`/api/v1/documents/${id}/void`, { method: 'POST', key: org.apiKey })).status).toBe(200)
    const page = await openInvitation(erin.email)
    await page.getByText('This signing request was cancelled').waitFor()
    expect(await page.getByRole('button', { name: 'Finish' }).count()).toBe(0)
    await closePage(page)
  })

  it('a signer whose document is voided while the page is open gets a clear message, not a crash', async () => {
    const frank = { email: uniqueEmail('frank'), name: 'Frank Ito', role: 0 }
    const id = await createDocument([frank])
    const page = await openInvitation(frank.email)
    await page.waitForSelector('body[data-ready]')
    await page.locator('.field[data-type="signature"] .field-control').click()
    await page.getByRole('tab', { name: 'Type' }).click()
    await page.getByRole('button', { name: 'Apply' }).click()
    await page.locator('.field[data-type="text"] .field-control').fill('Engineer')
    expect((await server.request(`/api/v1/documents/${id}/void`, { method: 'POST', key: org.apiKey })).status).toBe(200)
    await page.getByRole('button', { name: 'Finish' }).click()
    await expect.poll(() => page.locator('#sign-alert').textContent()).toContain('cancelled')
    // The browser itself logs the refused request; the page shows the reason instead of failing.
    await closePage(page, /status of 409/)
    expect((await documentStatus(id)).status).toBe('voided')
  })
})
