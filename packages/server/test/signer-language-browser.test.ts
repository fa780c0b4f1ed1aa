import { execFileSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { IntlMessageFormat } from 'intl-messageformat'
import type { Browser, Locator, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { catalogOf } from '../src/signing/i18n/catalog.ts'
import { SIGNER_LANGUAGES, type SignerLanguage } from '../src/signing/i18n/languages.ts'
import { haveTools } from '../../../test-support/tools.ts'
import { bodyOf, setupOrg, uniqueEmail, type Json, type TestOrg } from './helpers/api.ts'
import { launchChromium } from './helpers/browser.ts'
import { SCREENSHOT_DIR } from './helpers/dashboard.ts'
import { darkPixels } from './helpers/pgm.ts'
import { saveSignedPdf } from './helpers/documents.ts'
import { startTestServer, type TestServer } from './helpers/test-server.ts'

/*
 * The signer page in its ten languages, in Debian's Chromium over real HTTP, links taken from the
 * caught invitations: an Arabic page mirrors while the PDF's fields keep their place, Arabic and
 * Japanese signers type their names and finish, and the signed PDF holds what they typed. Every
 * text we expect comes from the catalogs (messages/<tag>.json). SIGNET_SCREENSHOTS=1 also writes
 * docs/screenshots/signer-page-<tag>-phone.png (de's and ar's are signer-language.test.ts's).
 */

let server: TestServer
let org: TestOrg
let browser: Browser
let templateId: string
let work: string
const ORG = 'Northwind Rentals'
const TITLE = 'Lease 2026'
const PHONE = { width: 390, height: 844 }

/** The action buttons and the date field whose content is wider than their box (CSS that lets a label spill out). */
const overflowing = (page: Page): Promise<string[]> =>
  page.evaluate(() =>
    [...document.querySelectorAll<HTMLElement>('button.btn, .field--date .field-control')]
      .filter((element) => element.offsetParent !== null && element.scrollWidth > element.clientWidth + 1)
      .map((element) => element.textContent?.trim() || (element as HTMLInputElement).value),
  )
const DESKTOP = { width: 1280, height: 900 }
// Letter pages (612 × 792 pt); boxes in points from the top left.
const SIGNATURE = { x: 72, y: 120, width: 200, height: 40 }
const NAME = { x: 72, y: 180, width: 220, height: 22 }
const FIELDS = [
  { role: 0, type: 'signature', page: 1, ...SIGNATURE, label: 'Signature' },
  { role: 0, type: 'dropdown', name: 'city', label: 'City', options: ['Berlin', 'Lisbon', 'Tokyo'], page: 1, x: 320, y: 130, width: 160, height: 22 },
  { role: 0, type: 'text', page: 1, ...NAME, label: 'Full name' },
  { role: 0, type: 'date', page: 1, x: 320, y: 180, width: 140, height: 22 },
]

/** A catalog's message as the page should show it (messages without markup). */
const say = (tag: SignerLanguage, key: string, values: Record<string, string | number> = {}): string => {
  const message = catalogOf(tag)[key]
  if (message === undefined) throw new Error(`no ${key} in ${tag}`)
  return String(new IntlMessageFormat(message, tag).format(values))
}

/** Sends the template to a new signer; `language` as the document's. */
async function send(language?: SignerLanguage): Promise<{ id: string; email: string }> {
  const email = uniqueEmail('lang')
  const body = { template_id: templateId, title: TITLE, signer: { email, name: 'Signer' }, ...(language ? { language } : {}) }
  const response = await server.request('/api/v1/documents', { method: 'POST', key: org.apiKey, json: body })
  expect(response.status).toBe(201)
  return { id: (await bodyOf<{ id: string }>(response)).id, email }
}

/** The invitation's link in a fresh context (own cookies, `locale` as the browser's language); `problems` collects console errors. */
async function open(email: string, viewport = DESKTOP, locale = 'en-US'): Promise<{ page: Page; problems: string[] }> {
  const [invitation] = await server.mail.waitFor(email)
  const link = /https?:\/\/\S+\/sign\/[A-Za-z0-9_-]{43}/.exec(invitation?.text ?? '')?.[0]
  if (!link) throw new Error('no link in the invitation')
  const page = await (await browser.newContext({ viewport, locale })).newPage()
  page.setDefaultTimeout(20_000)
  const problems: string[] = []
  page.on('console', (message) => void (message.type() === 'error' && problems.push(message.text())))
  page.on('pageerror', (error) => problems.push(error.message))
  await page.goto(server.url + new URL(link).pathname) // the mail names PUBLIC_URL
  await page.locator('body[data-ready]').waitFor()
  return { page, problems }
}

async function boxOf(locator: Locator): Promise<{ x: number; y: number; width: number; height: number }> {
  const box = await locator.boundingBox()
  if (!box) throw new Error('not displayed')
  return box
}

/** Where the page's parts sit: every field's left edge, the progress block and the action buttons. */
const layoutOf = async (page: Page) => ({
  fields: await Promise.all((await page.locator('.field').all()).map(async (field) => Math.round((await boxOf(field)).x))),
  progress: await boxOf(page.locator('.toolbar .progress')),
  actions: await boxOf(page.locator('.toolbar-actions')),
})

/** Types `name` into the text field and as the signature, picks a city, finishes, and waits for the completed page. */
async function fillAndFinish(page: Page, tag: SignerLanguage, name: string): Promise<void> {
  await page.locator('.field--text .field-control').pressSequentially(name)
  await page.locator('.field--dropdown .field-control').selectOption('Lisbon')
  await page.locator('.field--signature .field-control').click()
  await page.getByRole('tab', { name: say(tag, 'signature.type') }).click()
  // The box starts with the invitation's name ("Signer"): the signer replaces it.
  await page.getByLabel(say(tag, 'signature.typeLabel', { kind: 'signature' })).fill(name)
  await page.getByRole('button', { name: say(tag, 'signature.apply'), exact: true }).click()
  const finish = page.getByRole('button', { name: say(tag, 'sign.finish'), exact: true })
  await expect.poll(() => finish.isEnabled()).toBe(true)
  await finish.click()
  await page.getByRole('heading', { name: say(tag, 'status.completed.heading') }).waitFor()
  // Still in the signer's language: the PDF is ready or being prepared.
  const message = await page.locator('.card > p').last().textContent()
  expect([say(tag, 'status.completed.ready'), say(tag, 'status.completed.pending')]).toContain(message)
}

/** The API says completed, and the signed PDF is saved: its path. */
async function signedPdf(id: string): Promise<string> {
  const status = async () => (await bodyOf<Json>(await server.request(`/api/v1/documents/${id}`, { key: org.apiKey }))).status
  await expect.poll(status, { timeout: 20_000 }).toBe('completed')
  return saveSignedPdf(server, org.apiKey, id, join(work, `${id}.pdf`))
}

const pdfText = (path: string) => execFileSync('pdftotext', ['-enc', 'UTF-8', '-f', '1', '-l', '1', path, '-'], { encoding: 'utf8' })

/** Dark pixels in each box of page 1 rendered at 72 dpi (1 px = 1 pt). */
function inkIn(path: string, ...boxes: { x: number; y: number; width: number; height: number }[]): number[] {
  execFileSync('pdftoppm', ['-r', '72', '-gray', '-f', '1', '-l', '1', path, path])
  const pgm = readFileSync(`${path}-1.pgm`)
  return boxes.map((box) => darkPixels(pgm, box))
}

async function shoot(page: Page, name: string): Promise<void> {
  if (!SCREENSHOT_DIR) return
  mkdirSync(SCREENSHOT_DIR, { recursive: true })
  await page.screenshot({ path: join(SCREENSHOT_DIR, `${name}.png`) })
}

describe.runIf(haveTools('chromium', 'pdftotext', 'pdftoppm'))('the signer page in ten languages, in a browser', () => {
  beforeAll(async () => {
    server = await startTestServer({ env: { JOB_POLL_MS: '200' } })
    org = await setupOrg(server, { name: ORG })
    templateId = (await server.createTemplate(org.orgId, { name: 'Lease', fields: FIELDS })).id
    browser = await launchChromium()
    work = mkdtempSync(join(tmpdir(), 'signet-lang-browser-'))
  })
  afterAll(async () => {
    await browser?.close()
    await server?.close()
    rmSync(work, { recursive: true, force: true })
  })

  it('Arabic: the page mirrors, the fields keep their place; the signer types an Arabic name and finishes; the PDF has it', { timeout: 60_000 }, async () => {
    const english = await open((await send('en')).email)
    const ltr = await layoutOf(english.page)
    await english.page.context().close()

    const { id, email } = await send('ar')
    const { page, problems } = await open(email)
    expect(await page.locator('html').getAttribute('dir')).toBe('rtl')
    const rtl = await layoutOf(page)
    // The PDF's fields: where they are on the English page (mirrored, the signature would start near x = 1280 - 200 - 72·1.4).
    expect(rtl.fields).toHaveLength(FIELDS.length)
    rtl.fields.forEach((x, i) => expect(Math.abs(x - (ltr.fields[i] ?? NaN))).toBeLessThanOrEqual(1))
    // The toolbar mirrors: progress on the right, the buttons on the left, each where the other's edge was.
    expect(ltr.progress.x).toBeLessThan(ltr.actions.x)
    expect(rtl.progress.x).toBeGreaterThan(rtl.actions.x)
    expect(Math.abs(rtl.actions.x - (DESKTOP.width - (ltr.actions.x + ltr.actions.width)))).toBeLessThan(2)
    expect(Math.abs(rtl.progress.x + rtl.progress.width - (DESKTOP.width - ltr.progress.x))).toBeLessThan(2)

    const name = 'ليلى حداد'
    await fillAndFinish(page, 'ar', name)
    expect(await page.locator('html').getAttribute('dir')).toBe('rtl')
    expect(problems).toEqual([])
    await page.context().close()

    const path = await signedPdf(id)
    // pdftotext puts a right-to-left line in logical order (the renderer maps each shaped glyph back to its letter);
    // other poppler modes or versions may give visual order (words or letters reversed) or Arabic presentation
    // forms (U+FE70…), which NFKC folds back to the letters typed. Any of these is the name; its absence is not.
    const text = pdfText(path).normalize('NFKC').replace(/\s+/g, ' ')
    const forms = [name, name.split(' ').reverse().join(' '), [...name].reverse().join('')]
    expect(
      forms.some((form) => text.includes(form)),
      text,
    ).toBe(true)
    // Ink where the name and the signature are; none on the empty part of the page below.
    const [typed, signature, blank] = inkIn(path, NAME, SIGNATURE, { x: 72, y: 300, width: 400, height: 100 })
    expect(typed).toBeGreaterThan(30)
    expect(signature).toBeGreaterThan(30)
    expect(blank).toBe(0)
  })

  it("Japanese from the browser's language: the signer types 山田 花子 and finishes; the PDF has it", { timeout: 60_000 }, async () => {
    const { id, email } = await send() // no document language: Chromium's Accept-Language decides
    const { page, problems } = await open(email, DESKTOP, 'ja-JP')
    expect(await page.locator('html').getAttribute('lang')).toBe('ja')
    expect(await page.locator('.eyebrow').textContent()).toBe(say('ja', 'sign.eyebrow', { org: ORG }))
    await fillAndFinish(page, 'ja', '山田 花子')
    expect(await page.locator('html').getAttribute('lang')).toBe('ja')
    expect(problems).toEqual([])
    await page.context().close()

    const path = await signedPdf(id)
    expect(pdfText(path)).toContain('山田 花子')
    const [typed, signature] = inkIn(path, NAME, SIGNATURE)
    expect(typed).toBeGreaterThan(30)
    expect(signature).toBeGreaterThan(30)
  })

  it.each(SIGNER_LANGUAGES)('%s: the page at phone width is in its language, fits the screen and logs no errors', { timeout: 60_000 }, async (tag) => {
    const { email } = await send(tag)
    const { page, problems } = await open(email, PHONE)
    expect(await page.locator('html').getAttribute('lang')).toBe(tag)
    expect(await page.locator('html').getAttribute('dir')).toBe(tag === 'ar' ? 'rtl' : 'ltr')
    expect(await page.title()).toBe(say(tag, 'sign.pageTitle', { title: TITLE, org: ORG }))
    expect(await page.locator('.eyebrow').textContent()).toBe(say(tag, 'sign.eyebrow', { org: ORG }))
    expect(await page.locator('label[for="language-select"]').textContent()).toBe(say(tag, 'language.label'))
    for (const key of ['sign.finish', 'sign.nextField', 'sign.decline']) {
      await expect.poll(() => page.getByRole('button', { name: say(tag, key), exact: true }).isVisible()).toBe(true)
      if (tag !== 'en') expect(say(tag, key)).not.toBe(say('en', key)) // else this would not tell the languages apart
    }
    expect(await page.locator('.field--date .field-control').inputValue()).not.toBe('')
    expect(await page.locator('.field--dropdown option').allTextContents()).toEqual(expect.arrayContaining(['Berlin', 'Lisbon', 'Tokyo']))
    // Nothing wider than the phone: no sideways scrolling.
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(PHONE.width)
    if (tag !== 'de' && tag !== 'ar') await shoot(page, `signer-page-${tag}-phone`)
    // At the narrowest phones too, no button's label and no date spills out of its box.
    for (const width of [PHONE.width, 320]) {
      await page.setViewportSize({ width, height: PHONE.height })
      expect(await overflowing(page), `${tag} at ${width} px`).toEqual([])
    }
    expect(problems).toEqual([])
    await page.context().close()
  })
})
