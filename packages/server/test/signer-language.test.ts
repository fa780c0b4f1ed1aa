import { execFileSync } from 'node:child_process'
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { IntlMessageFormat } from 'intl-messageformat'
import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { catalogOf } from '../src/signing/i18n/catalog.ts'
import { SIGNER_LANGUAGES } from '../src/signing/i18n/languages.ts'
import { haveTools } from '../../../test-support/tools.ts'
import { bodyOf, expectError, postDocument, setupOrg, uniqueEmail, type Json, type TestOrg } from './helpers/api.ts'
import { launchChromium } from './helpers/browser.ts'
import { SCREENSHOT_DIR } from './helpers/dashboard.ts'
import { makeTempDir } from './helpers/processes.ts'
import { richFields, SignerClient, tokenFromMail, valuesFor } from './helpers/signing.ts'
import { startTestServer, type TestServer } from './helpers/test-server.ts'

/*
 * Signer pages and e-mails in the signer's language (issue 22, an extension): the document's
 * `language`, else the signer's Accept-Language, else the workspace's default; e-mails the
 * document's, else the workspace's, else English; the page's language menu wins and is
 * remembered. And the catalogs: every language has exactly English's messages, each parses
 * and uses English's placeholders.
 */

let server: TestServer
let org: TestOrg
let templateId: string

beforeAll(async () => {
  server = await startTestServer()
  org = await setupOrg(server, { name: 'Acme Sprachen' })
  templateId = (await server.createTemplate(org.orgId, { fields: richFields([0]) })).id
})
afterAll(() => server?.close())

/** Sends a one-signer document; returns the signer's address, the invitation and the link's token. */
async function send(extra: Json = {}, signer: Json = {}) {
  const email = uniqueEmail('lang')
  const response = await postDocument(server, org.apiKey, {
    template_id: templateId,
    title: 'Mietvertrag 2026',
    signer: { email, name: 'Ada Lovelace', ...signer },
    ...extra,
  })
  expect(response.status).toBe(201)
  const [invitation] = await server.mail.waitFor(email)
  return { email, invitation, token: tokenFromMail(invitation?.text) }
}

const pageOf = async (token: string, headers: Record<string, string> = {}, query = '') => {
  const response = await server.request(`/sign/${token}${query}`, { headers })
  expect(response.status).toBe(200)
  return { html: await response.text(), cookie: response.headers.get('set-cookie') }
}

const setWorkspaceLanguage = (language: string | null) =>
  server.request('/api/v1/settings/signer-language', { method: 'PUT', key: org.apiKey, json: { language } })

describe('the language of signer pages and e-mails', () => {
  test('a document sent with language "de" gives a German invitation, code page, code e-mail and signing page', async () => {
    const { email, invitation, token } = await send({ language: 'de' }, { auth_required: true })
    expect(invitation?.subject).toBe('Acme Sprachen hat Ihnen „Mietvertrag 2026“ zur Unterschrift gesendet')
    expect(invitation?.text).toMatch(/^Guten Tag Ada Lovelace,/)
    expect(invitation?.text).toContain('Dieser Link ist persönlich: Bitte leiten Sie ihn nicht weiter.')
    expect(invitation?.html).toContain('<html lang="de" dir="ltr">')
    expect(invitation?.html).toContain('>Prüfen und unterschreiben</a>')

    // Even a browser asking for English gets the document's language.
    const code = await pageOf(token, { 'accept-language': 'en-US,en;q=0.9' })
    expect(code.html).toContain('<html lang="de" dir="ltr">')
    expect(code.html).toContain('<h1>Bestätigen Sie Ihre Identität</h1>')
    expect(code.html).toContain('>Code per E-Mail senden</button>')
    expect(code.html).not.toContain('Email me a code')

    const sent = await server.request(`/sign/${token}/code`, { method: 'POST', json: {} })
    expect(sent.status).toBe(200)
    const [, codeMail] = await server.mail.waitFor(email, 2)
    expect(codeMail?.subject).toBe('Ihr Code zum Öffnen von „Mietvertrag 2026“')
    expect(codeMail?.text).toContain('Er gilt einmalig für 10 Minuten.')
    const digits = /\b(\d{6})\b/.exec(codeMail?.text ?? '')?.[1]
    const verified = await server.request(`/sign/${token}/code/verify`, { method: 'POST', json: { code: digits } })
    expect(verified.status).toBe(200)
    const session = verified.headers.get('set-cookie')?.split(';')[0] ?? ''

    const { html } = await pageOf(token, { cookie: session })
    expect(html).toContain('<html lang="de" dir="ltr">')
    expect(html).toContain('<title>Unterschreiben: Mietvertrag 2026 – Acme Sprachen</title>')
    expect(html).toContain('Acme Sprachen hat Ihnen ein Dokument zur Unterschrift gesendet')
    expect(html).toContain('Sie unterschreiben als <strong>Ada Lovelace</strong>')
    expect(html).toContain('>Abschließen</button>')
    expect(html).toContain('aria-label="Unterschreiben: Signature 0 (Pflichtfeld), Seite 1"')
    // The script's own texts travel in the boot JSON, in German.
    const boot = JSON.parse(/<script type="application\/json" id="signet-boot">(.*?)<\/script>/s.exec(html)?.[1] ?? '{}') as {
      language: string
      messages: Json
    }
    expect(boot.language).toBe('de')
    expect(boot.messages['client.allDone']).toBe('Alle Pflichtfelder sind ausgefüllt. Wählen Sie „Abschließen“, um zu unterschreiben.')

    const view = await bodyOf(await server.request(`/api/v1/documents?limit=1`, { key: org.apiKey }))
    expect(JSON.stringify(view)).not.toContain('"language"') // the list stays the spec's
  })

  test("without a document language, the signer's Accept-Language decides the page (French); the e-mail stays English", async () => {
    const { invitation, token } = await send()
    expect(invitation?.subject).toBe('Acme Sprachen sent you "Mietvertrag 2026" to sign')
    const { html } = await pageOf(token, { 'accept-language': 'fr-CH, fr;q=0.9, en;q=0.8' })
    expect(html).toContain('<html lang="fr" dir="ltr">')
    expect(html).toContain('Acme Sprachen vous a envoyé un document à signer')
    expect(html).toContain('>Terminer</button>')
    // A language we do not have falls through to the next the browser names, then English.
    expect((await pageOf(token, { 'accept-language': 'sv-SE, pt;q=0.5' })).html).toContain('<html lang="pt-BR" dir="ltr">')
    expect((await pageOf(token, { 'accept-language': 'sv-SE' })).html).toContain('<html lang="en" dir="ltr">')
  })

  test("the workspace's default applies to e-mails, and to pages when the browser names none of ours", async () => {
    expect(await bodyOf(await server.request('/api/v1/settings/signer-language', { key: org.apiKey }))).toEqual({ language: null })
    expect(await bodyOf(await setWorkspaceLanguage('es'))).toEqual({ language: 'es' })
    try {
      expect(await bodyOf(await server.request('/api/v1/settings/signer-language', { key: org.apiKey }))).toEqual({ language: 'es' })
      const { invitation, token } = await send()
      expect(invitation?.subject).toBe('Acme Sprachen le ha enviado «Mietvertrag 2026» para firmar')
      expect(invitation?.text).toMatch(/^Hola, Ada Lovelace:/)
      expect((await pageOf(token)).html).toContain('<html lang="es" dir="ltr">')
      expect((await pageOf(token, { 'accept-language': 'it' })).html).toContain('<html lang="it" dir="ltr">')
      // The document's own language still comes first.
      const german = await send({ language: 'de' })
      expect(german.invitation?.subject).toContain('zur Unterschrift gesendet')
    } finally {
      expect((await setWorkspaceLanguage(null)).status).toBe(200)
    }
  })

  test('an unknown language is a 400 naming the field, on create and in the settings', async () => {
    const bad = await postDocument(server, org.apiKey, { template_id: templateId, signer: { email: uniqueEmail() }, language: 'xx' })
    expect(bad.status).toBe(400)
    expect(await bodyOf(bad)).toMatchObject({ field: '/language' })
    await expectError(await setWorkspaceLanguage('klingon'), 400)
    const setting = await bodyOf(await setWorkspaceLanguage('klingon'))
    expect(setting).toMatchObject({ field: '/language' })
  })

  test('an Arabic page is right-to-left, while the document pages keep their own geometry', async () => {
    const { invitation, token } = await send({ language: 'ar' })
    expect(invitation?.html).toContain('<html lang="ar" dir="rtl">')
    expect(invitation?.subject).toBe('أرسلت إليك Acme Sprachen «Mietvertrag 2026» لتوقيعه')
    const { html } = await pageOf(token)
    expect(html).toContain('<html lang="ar" dir="rtl">')
    expect(html).toContain('>إنهاء</button>')
    expect(html).toMatch(/<section class="page" id="page-1" data-page="1" data-size="[\d.]+,[\d.]+" dir="ltr"/)
  })

  test("the page's language menu wins over everything and is remembered in a cookie", async () => {
    const { token } = await send({ language: 'de' })
    const chosen = await pageOf(token, {}, '?lang=ja')
    expect(chosen.html).toContain('<html lang="ja" dir="ltr">')
    expect(chosen.html).toContain('<option value="ja" lang="ja" selected>日本語</option>')
    const cookie = chosen.cookie?.split(';')[0] ?? ''
    expect(cookie).toBe('signet_language=ja')
    expect(chosen.cookie).toContain('Path=/sign')
    expect((await pageOf(token, { cookie })).html).toContain('<html lang="ja" dir="ltr">')
    // An unknown choice is ignored: the document's language again.
    expect((await pageOf(token, {}, '?lang=xx')).html).toContain('<html lang="de" dir="ltr">')
  })

  test('a link that does not work says so in the browser’s language', async () => {
    const response = await server.request(`/sign/${'A'.repeat(43)}`, { headers: { 'accept-language': 'nl' } })
    expect(response.status).toBe(404)
    const html = await response.text()
    expect(html).toContain('<html lang="nl" dir="ltr">')
    expect(html).toContain('Deze link werkt niet')
  })
})

describe.runIf(haveTools('pdftotext'))("the completed mail and the certificate page in the document's language", () => {
  test('a Japanese document: the completed mail and the certificate’s fixed texts are Japanese, drawn with the bundled fonts', async () => {
    const { email, token } = await send({ language: 'ja' })
    const signer = new SignerClient(server, token, email)
    expect((await signer.finish(valuesFor(0))).status).toBe(200)
    const [, completed] = await server.mail.waitFor(email, 2, 30_000)
    expect(completed?.subject).toBe('「Mietvertrag 2026」が完了しました')
    expect(completed?.text).toContain('署名証明書付きの署名済みPDFを添付しています。')

    const list = await bodyOf<{ documents: { id: string; title: string }[] }>(await server.request('/api/v1/documents?limit=100', { key: org.apiKey }))
    const documents = await Promise.all(list.documents.map(async (d) => bodyOf<Json>(await server.request(`/api/v1/documents/${d.id}`, { key: org.apiKey }))))
    const document = documents.find((d) => (d.signers as { email: string }[]).some((s) => s.email === email))
    expect(document?.language).toBe('ja')
    const pdf = Buffer.from(await (await server.request(`/api/v1/documents/${String(document?.id)}/signed-file`, { key: org.apiKey })).arrayBuffer())
    const path = join(makeTempDir('lang-pdf'), 'signed.pdf')
    writeFileSync(path, pdf)
    const text = execFileSync('pdftotext', ['-enc', 'UTF-8', path, '-'], { encoding: 'utf8' })
    for (const words of ['署名証明書', '監査証跡', '署名依頼を送信', '当事者 1', 'Acme Sprachen']) expect(text).toContain(words)
    expect(text).not.toContain('Signing certificate')
  })
})

/** Every argument and tag an ICU message uses, by name, sorted: a translation must use the same. */
function placeholdersOf(message: string, language: string): string[] {
  const names = new Set<string>()
  const walk = (elements: unknown[]) => {
    for (const element of elements as { type: number; value?: unknown; options?: Record<string, { value: unknown[] }>; children?: unknown[] }[]) {
      if (element.type === 0 || element.type === 7) continue // literal text, the plural's #
      if (typeof element.value === 'string') names.add(element.type === 8 ? `<${element.value}>` : element.value)
      for (const option of Object.values(element.options ?? {})) walk(option.value)
      if (element.children) walk(element.children)
    }
  }
  walk(new IntlMessageFormat(message, language).getAst())
  return [...names].sort()
}

describe('the message catalogs', () => {
  const english = catalogOf('en')

  test.each(SIGNER_LANGUAGES.filter((l) => l !== 'en'))(
    '%s has exactly the keys English has, and each message parses with English’s placeholders',
    (language) => {
      const catalog = catalogOf(language)
      expect(Object.keys(catalog).filter((key) => !(key in english))).toEqual([])
      expect(Object.keys(english).filter((key) => !(key in catalog))).toEqual([])
      const differing = Object.entries(english).flatMap(([key, message]) => {
        const translated = catalog[key] ?? ''
        const [theirs, ours] = [placeholdersOf(translated, language), placeholdersOf(message, 'en')]
        return theirs.join() === ours.join() ? [] : [`${key}: ${theirs.join()} ≠ ${ours.join()}`]
      })
      expect(differing).toEqual([])
    },
  )

  test('the check finds a missing placeholder and a message that does not parse', () => {
    expect(placeholdersOf('Hallo {name}, <strong>{org}</strong>', 'de')).toEqual(['<strong>', 'name', 'org'])
    expect(placeholdersOf('{count, plural, one {# Feld} other {{done} von #}}', 'de')).toEqual(['count', 'done'])
    expect(() => placeholdersOf('Hallo {name', 'de')).toThrow()
  })
})

describe.runIf(haveTools('chromium'))('the signer page in a browser, right to left and switched by the signer', () => {
  let browser: Browser
  beforeAll(async () => {
    browser = await launchChromium()
  })
  afterAll(() => browser?.close())

  async function open(token: string, width: number, height: number): Promise<Page> {
    const page = await (await browser.newContext({ viewport: { width, height }, locale: 'en-US' })).newPage()
    await page.goto(`${server.url}/sign/${token}`)
    await page.locator('body[data-ready]').waitFor()
    return page
  }

  /** Where the signature field sits on its page, as fractions of the page's box. */
  const fieldPlace = (page: Page) =>
    page.evaluate(() => {
      const field = document.querySelector<HTMLElement>('.field--signature')
      const sheet = field?.closest('.page')
      if (!field || !sheet) throw new Error('no signature field')
      const [f, s] = [field.getBoundingClientRect(), sheet.getBoundingClientRect()]
      return { left: (f.left - s.left) / s.width, top: (f.top - s.top) / s.height }
    })

  test('an Arabic page mirrors, its fields stay where they are on the PDF, and the signer signs', async () => {
    const english = await open((await send()).token, 1280, 900)
    const expected = await fieldPlace(english)
    await english.context().close()

    const { token } = await send({ language: 'ar' })
    const page = await open(token, 1280, 900)
    expect(await page.evaluate(() => getComputedStyle(document.body).direction)).toBe('rtl')
    // The masthead's line of text starts at the right: mirrored.
    const gaps = await page.evaluate(() => {
      const line = document.querySelector('.masthead .eyebrow')
      if (!line) throw new Error('no eyebrow')
      const range = document.createRange()
      range.selectNodeContents(line)
      const [text, box] = [range.getBoundingClientRect(), line.getBoundingClientRect()]
      return { right: box.right - text.right, left: text.left - box.left }
    })
    expect(gaps.right).toBeLessThan(2)
    expect(gaps.left).toBeGreaterThan(100)
    const place = await fieldPlace(page)
    expect(Math.abs(place.left - expected.left)).toBeLessThan(0.002)
    expect(Math.abs(place.top - expected.top)).toBeLessThan(0.002)
    await screenshot(page, 'signer-page-ar-desktop')

    await page.getByRole('button', { name: /^التوقيع:/ }).click()
    await page.getByRole('tab', { name: 'كتابة' }).click()
    await page.getByLabel('اكتب اسمك').fill('Ada Lovelace')
    await page.getByRole('button', { name: 'تطبيق' }).click()
    await page.getByRole('textbox', { name: /^Job title/ }).fill('Mathematician')
    await expect.poll(() => page.locator('#progress-text').textContent()).toMatch(/^اكتمل/)
    await page.getByRole('button', { name: 'إنهاء' }).click()
    await page.getByRole('heading', { name: 'وقّع الجميع' }).waitFor() // the only signer: everyone has signed
    expect(await page.locator('html').getAttribute('dir')).toBe('rtl')
    await page.context().close()
  })

  test('the German page at desktop and phone width, and switching the language on the page', async () => {
    const { token } = await send({ language: 'de' })
    const page = await open(token, 1280, 900)
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Mietvertrag 2026')
    await page.getByRole('button', { name: 'Abschließen' }).waitFor()
    await screenshot(page, 'signer-page-de-desktop')
    await page.setViewportSize({ width: 390, height: 844 })
    await screenshot(page, 'signer-page-de-phone')

    await page.getByLabel('Sprache').selectOption('ar')
    await page.getByRole('button', { name: 'Wechseln' }).click()
    await page.locator('html[lang="ar"]').waitFor()
    await page.locator('body[data-ready]').waitFor()
    await screenshot(page, 'signer-page-ar-phone')
    await page.getByLabel('اللغة').selectOption('fr')
    await page.getByRole('button', { name: 'تغيير' }).click()
    await page.locator('html[lang="fr"]').waitFor()
    // Remembered: the link alone opens in French now.
    await page.goto(`${server.url}/sign/${token}`)
    expect(await page.locator('html').getAttribute('lang')).toBe('fr')
    await page.getByRole('button', { name: 'Terminer' }).waitFor()
    await page.context().close()
  })
})

async function screenshot(page: Page, name: string): Promise<void> {
  if (!SCREENSHOT_DIR) return
  mkdirSync(SCREENSHOT_DIR, { recursive: true })
  await page.screenshot({ path: join(SCREENSHOT_DIR, `${name}.png`) })
}
