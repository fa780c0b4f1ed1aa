import { execFileSync } from 'node:child_process'
import { readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { AUTH_METHOD_LABELS, AUTH_METHODS } from '@signet/vocabulary'
import { IntlMessageFormat } from 'intl-messageformat'
import type { Browser } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { catalogOf, translator, type MessageKey } from '../src/signing/i18n/catalog.ts'
import { signerTextIn } from '../src/signing/i18n/error-texts.ts'
import type { SignerLanguage } from '../src/signing/i18n/languages.ts'
import { CODE_SCRIPT_MESSAGES, SIGNING_SCRIPT_MESSAGES } from '../src/signing/web/pages.ts'
import { AppError } from '../src/errors.ts'
import { parseFieldValues } from '../src/signing/field-values.ts'
import { haveTools } from '../../../test-support/tools.ts'
import { bodyOf, postDocument, setupOrg, uniqueEmail, type Json, type TestOrg } from './helpers/api.ts'
import { launchChromium } from './helpers/browser.ts'
import { makeTempDir } from './helpers/processes.ts'
import { pngDataUrl, richFields, tokenFromMail } from './helpers/signing.ts'
import { startTestServer, type TestServer } from './helpers/test-server.ts'

/*
 * The signer's texts that were still English on a page in another language (issue 22, an
 * extension): the words of the typed fields' controls, the script's own messages, the errors of
 * the signing endpoints (written in the page's language, with the same code and field as in
 * English), and the certificate's authentication and sender rows. Real HTTP through the test
 * server; pdftotext reads the certificate.
 */

let server: TestServer
let org: TestOrg
let templateId: string

const ORG = 'Acme Texte'
const box = (y: number, width = 200, height = 20) => ({ page: 1, x: 72, y, width, height })
/** One field of each kind the tests need; their index is their id on the page. */
const FIELDS = [
  { role: 0, type: 'signature', ...box(40, 180, 40) },
  { role: 0, type: 'dropdown', name: 'city', label: 'Stadt', options: ['Berlin', 'Lisbon', 'Tokyo'], ...box(100) },
  { role: 0, type: 'number', name: 'rent', label: 'Loyer', min: 100, max: 5000, ...box(140) },
  { role: 0, type: 'number', required: false, ...box(180) },
  { role: 0, type: 'date', ...box(220) },
]
const [SIGNATURE, CITY, RENT, DEPOSIT] = ['0', '1', '2', '3'] as const
const goodValues = () => ({ [SIGNATURE]: pngDataUrl(), [CITY]: 'Lisbon', [RENT]: 1200 })

beforeAll(async () => {
  server = await startTestServer({ env: { JOB_POLL_MS: '100' } })
  org = await setupOrg(server, { name: ORG })
  templateId = (await server.createTemplate(org.orgId)).id
  const put = await server.request(`/api/v1/templates/${templateId}/fields`, { method: 'PUT', key: org.apiKey, json: { fields: FIELDS } })
  expect(put.status).toBe(200)
})
afterAll(() => server?.close())

/** A catalog's message formatted as the server does (plain text). */
const say = (language: SignerLanguage, key: MessageKey, values: Record<string, string | number> = {}) => translator(language).text(key, values)

/** Sends a one-signer document of `template`; returns its id, the signer's address and their link's token. */
async function send(body: Json = {}, signer: Json = {}, template = templateId) {
  const email = uniqueEmail('texts')
  const response = await postDocument(server, org.apiKey, {
    template_id: template,
    title: 'Bail 2026',
    signer: { email, name: 'Ada Lovelace', ...signer },
    ...body,
  })
  expect(response.status).toBe(201)
  const { id } = await bodyOf<{ id: string }>(response)
  const [invitation] = await server.mail.waitFor(email)
  return { id, email, token: tokenFromMail(invitation?.text) }
}

const post = (token: string, path: string, json: unknown, headers: Record<string, string> = {}) =>
  server.request(`/sign/${token}/${path}`, { method: 'POST', json, headers })

describe("the typed fields' words on the page", () => {
  test('a German page shows the dropdown’s empty choice and a locked field’s name in German, and the date field in German', async () => {
    const { token } = await send({ language: 'de', fields: [{ name: 'rent', value: 950, read_only: true }] })
    const response = await server.request(`/sign/${token}`, { headers: { 'accept-language': 'en-US' } })
    expect(response.status).toBe(200)
    const html = await response.text()
    expect(html).toContain('<html lang="de" dir="ltr">')
    expect(html).toContain('<option value="">Bitte wählen …</option>')
    expect(html).toContain('aria-label="Loyer (Pflichtfeld), Seite 1 (vom Absender ausgefüllt, nicht änderbar)"')
    expect(html).not.toContain('Choose…')
    expect(html).not.toContain('filled in by the sender')
    // The date field shows the server's day in German before any script runs.
    const today = new Date()
    const day = new Intl.DateTimeFormat('de', { dateStyle: 'long', timeZone: 'UTC' }).format(today)
    expect(html).toContain(`readonly value="${day}"`)
    // The script's validation and connection messages travel in German (the browser's own would be in its language).
    const boot = JSON.parse(/<script type="application\/json" id="signet-boot">(.*?)<\/script>/s.exec(html)?.[1] ?? '{}') as { messages: Json }
    for (const key of ['client.numberAbove', 'client.invalidEmail', 'client.unreachable', 'client.httpError'] as const) {
      expect(boot.messages[key]).toBe(catalogOf('de')[key])
    }
  })
})

describe('the errors of the signing endpoints, in the page’s language', () => {
  test('a forged finish with a number out of range on a French page gets the French error, with the code and field English has', async () => {
    const { token } = await send()
    const values = { ...goodValues(), [RENT]: 5001 }
    const english = await post(token, 'finish', { values })
    expect(english.status).toBe(400)
    const englishBody = await bodyOf(english)
    expect(englishBody).toEqual({ error: 'Field 2 (Loyer, page 1) must be at most 5000 (5001 is not).', code: 'invalid_request', field: `/values/${RENT}` })

    const french = await post(token, 'finish', { values }, { 'accept-language': 'fr-FR,fr;q=0.9,en;q=0.5' })
    expect(french.status).toBe(400)
    const thousands = (n: number) => new Intl.NumberFormat('fr').format(n)
    expect(await bodyOf(french)).toEqual({
      error: `Champ 2 (Loyer, page 1) : la valeur doit être au plus égale à ${thousands(5000)} (${thousands(5001)} ne l’est pas).`,
      code: englishBody.code,
      field: englishBody.field,
    })
    // A field without a label is named by its type, as on the page; a required one left out says so.
    const untyped = await post(token, 'finish', { values: { ...goodValues(), [DEPOSIT]: 'beaucoup' } }, { 'accept-language': 'fr' })
    expect(await bodyOf(untyped)).toMatchObject({ error: 'Champ 3 (Nombre, page 1) : un nombre est attendu.', field: `/values/${DEPOSIT}` })
    expect(await bodyOf(await post(token, 'finish', { values: { ...goodValues(), [DEPOSIT]: 'beaucoup' } }))).toMatchObject({
      error: 'Field 3 (number, page 1) needs a number.',
    })
    const missing = await post(token, 'finish', { values: { [SIGNATURE]: pngDataUrl(), [RENT]: 1200 } }, { 'accept-language': 'fr' })
    expect(await bodyOf(missing)).toMatchObject({ error: 'Champ 1 (Stadt, page 1) : ce champ est obligatoire.', field: `/values/${CITY}` })
    // The signer can still sign.
    expect((await post(token, 'finish', { values: goodValues() }, { 'accept-language': 'fr' })).status).toBe(200)
    // The only signer has signed: finishing again is a 409 in French, the same code as in English.
    const again = await post(token, 'finish', { values: goodValues() }, { 'accept-language': 'fr' })
    expect(again.status).toBe(409)
    expect(await bodyOf(again)).toEqual({ error: 'Ce document est déjà finalisé : tout le monde l’a signé.', code: 'conflict' })
    const againInEnglish = await post(token, 'finish', { values: goodValues() })
    expect(await bodyOf(againInEnglish)).toEqual({ error: 'This document is already complete: everyone has signed it.', code: 'conflict' })
  })

  test('a wrong code on a Japanese page gets the Japanese error; the code step’s other errors follow the page too', async () => {
    const { email, token } = await send({}, { auth_required: true }, (await server.createTemplate(org.orgId, { fields: richFields([0]) })).id)
    // The signer picks Japanese in the page's menu; the cookie remembers it for the page's calls.
    const chosen = await server.request(`/sign/${token}?lang=ja`)
    expect(await chosen.text()).toContain('<html lang="ja" dir="ltr">')
    const cookie = chosen.headers.get('set-cookie')?.split(';')[0] ?? ''
    expect(cookie).toBe('signet_language=ja')
    const japanese = { cookie }

    // Before any code: "ask for one first".
    const first = await post(token, 'code/verify', { code: '123456' }, japanese)
    expect(await bodyOf(first)).toEqual({ error: say('ja', 'error.codeFirst'), code: 'invalid_request' })
    expect(say('ja', 'error.codeFirst')).toBe('先にコードを請求してください。「コードをメールで受け取る」を選択します。')

    expect((await post(token, 'code', {}, japanese)).status).toBe(200)
    const [, codeMail] = await server.mail.waitFor(email, 2)
    const code = /(?<!\d)(\d{6})(?!\d)/.exec(codeMail?.text ?? '')?.[1] ?? ''
    expect(code).toMatch(/^\d{6}$/)
    const wrong = String((Number(code) + 1) % 1_000_000).padStart(6, '0')

    const english = await post(token, 'code/verify', { code: wrong })
    expect(english.status).toBe(400)
    expect(await bodyOf(english)).toEqual({ error: 'That code is not correct. 4 attempts left.', code: 'invalid_request' })
    const answer = await post(token, 'code/verify', { code: wrong }, japanese)
    expect(answer.status).toBe(400)
    expect(await bodyOf(answer)).toEqual({ error: 'コードが正しくありません。あと3回入力できます。', code: 'invalid_request' })
    // Asking again at once: the wait, in Japanese, still a 429.
    const soon = await post(token, 'code', {}, japanese)
    expect(soon.status).toBe(429)
    expect((await bodyOf<{ error: string }>(soon)).error).toMatch(/^コードを送信したばかりです。新しいコードを請求するまで\d+秒お待ちください。$/)
    // The document, without the code: the 403 in Japanese.
    const view = await post(token, 'view', {}, japanese)
    expect(view.status).toBe(403)
    expect(await bodyOf(view)).toEqual({ error: 'この文書を開く前に、メールでお送りしたコードを入力してください。', code: 'forbidden' })

    expect((await post(token, 'code/verify', { code }, japanese)).status).toBe(200)
  })

  test('an unknown link answers in the browser’s language; a voided document in the document’s', async () => {
    const unknown = await post('A'.repeat(43), 'view', {}, { 'accept-language': 'nl' })
    expect(unknown.status).toBe(404)
    expect(await bodyOf(unknown)).toEqual({ error: say('nl', 'status.invalidLink.message'), code: 'not_found' })

    const { id, token } = await send({ language: 'es' })
    expect((await server.request(`/api/v1/documents/${id}/void`, { method: 'POST', key: org.apiKey, json: {} })).status).toBe(200)
    const voided = await post(token, 'finish', { values: goodValues() }, { 'accept-language': 'de' })
    expect(voided.status).toBe(409)
    expect(await bodyOf(voided)).toEqual({ error: 'El remitente canceló esta solicitud de firma, por lo que ya no se puede firmar.', code: 'conflict' })
  })

  test('each message of the catalogs that mirrors an English error says what the domain says', () => {
    const en = translator('en')
    const fields = [
      { id: 2, role: 0, type: 'number' as const, label: 'Rent', min: 100, max: 500, page: 1, x: 0, y: 0, width: 10, height: 10, required: true },
      { id: 4, role: 0, type: 'dropdown' as const, label: 'City', options: ['Berlin', 'Lisbon'], page: 2, x: 0, y: 0, width: 10, height: 10, required: true },
      {
        id: 5,
        role: 0,
        type: 'text' as const,
        label: 'Note',
        page: 1,
        x: 0,
        y: 0,
        width: 10,
        height: 10,
        required: false,
        prefill: { value: 'Fixed', readOnly: true },
      },
    ]
    const cases: Record<string, string | number>[] = [
      { 2: 99, 4: 'Berlin' },
      { 2: 501, 4: 'Berlin' },
      { 2: 'x', 4: 'Berlin' },
      { 2: 200 },
      { 2: 200, 4: 'Paris' },
      { 2: 200, 4: 'Berlin', 5: 'Changed' },
      { 2: 200, 4: 'Berlin', 9: 'x' },
      { 2: 200, 4: 'Berlin', 5: 7 },
    ]
    for (const values of cases) {
      let raised: unknown
      try {
        parseFieldValues(fields, values, '2026-06-01')
      } catch (error) {
        raised = error
      }
      if (!(raised instanceof AppError) || !raised.translatable) throw new Error(`no translatable error for ${JSON.stringify(values)}`)
      expect(signerTextIn(en, raised.translatable)).toBe(raised.message)
    }
  })
})

describe('the script’s texts', () => {
  test('every message the page script formats travels in the boot JSON of the page that runs it', () => {
    const folder = new URL('../src/signing/web/client/', import.meta.url)
    const english = catalogOf('en')
    /** The catalog keys a file names (as string literals). */
    const used = (file: string) =>
      [...readFileSync(new URL(file, folder), 'utf8').matchAll(/'([a-zA-Z]+\.[\w.+]+)'/g)].flatMap((m) => (m[1] && m[1] in english ? [m[1]] : []))
    // The code page runs code-page.ts and what it imports; the signing page everything else.
    const codePage = new Set(['code-page.ts', 'post-json.ts', 'main.ts', 'dom.ts', 'boot.ts', 'i18n.ts'])
    const keys: string[] = []
    for (const file of readdirSync(folder).filter((name) => name.endsWith('.ts'))) {
      for (const key of used(file)) {
        keys.push(key)
        if (file !== 'code-page.ts') expect(SIGNING_SCRIPT_MESSAGES, `${file}: ${key}`).toContain(key)
        if (codePage.has(file)) expect(CODE_SCRIPT_MESSAGES, `${file}: ${key}`).toContain(key)
      }
    }
    for (const key of ['client.numberAbove', 'client.numberBelow', 'client.notNumber', 'client.invalidEmail', 'client.unreachable', 'client.httpError']) {
      expect(keys).toContain(key)
    }
    // The texts that replace the browser's own validation messages, with locale numbers.
    expect(new IntlMessageFormat(catalogOf('de')['client.numberAbove'] ?? '', 'de').format({ max: 5000 })).toBe('Geben Sie eine Zahl von höchstens 5.000 ein.')
  })
})

describe.runIf(haveTools('chromium'))('the page script in a browser whose language is not the page’s', () => {
  let browser: Browser
  beforeAll(async () => {
    browser = await launchChromium()
  })
  afterAll(() => browser?.close())

  test('an out-of-range number on a German page is explained in German, not in the browser’s English', { timeout: 60_000 }, async () => {
    const { token } = await send({ language: 'de' })
    const context = await browser.newContext({ locale: 'en-US' })
    const page = await context.newPage()
    await page.goto(`${server.url}/sign/${token}`)
    await page.locator('body[data-ready]').waitFor()
    const rent = page.locator(`[data-field-id="${RENT}"]`)
    await rent.locator('input').fill('6000')
    await expect.poll(() => rent.getAttribute('title')).toBe(say('de', 'client.numberAbove', { max: 5000 }))
    await rent.locator('input').fill('50')
    await expect.poll(() => rent.getAttribute('title')).toBe(say('de', 'client.numberBelow', { min: 100 }))
    await context.close()
  })
})

describe.runIf(haveTools('pdftotext'))('the certificate in the document’s language', () => {
  test('a document signed with an e-mail code in German: the authentication and sender rows are German words', { timeout: 60_000 }, async () => {
    const { id, email, token } = await send({ language: 'de' }, { auth_required: true })
    expect((await post(token, 'code', {})).status).toBe(200)
    const [, codeMail] = await server.mail.waitFor(email, 2)
    const code = /(?<!\d)(\d{6})(?!\d)/.exec(codeMail?.text ?? '')?.[1]
    const verified = await post(token, 'code/verify', { code })
    expect(verified.status).toBe(200)
    const session = verified.headers.get('set-cookie')?.split(';')[0] ?? ''
    expect((await post(token, 'finish', { values: goodValues() }, { cookie: session })).status).toBe(200)

    let pdf: Buffer | undefined
    for (let i = 0; i < 300 && !pdf; i++) {
      const response = await server.request(`/api/v1/documents/${id}/signed-file`, { key: org.apiKey })
      if (response.status === 200) pdf = Buffer.from(await response.arrayBuffer())
      else await new Promise((resolve) => setTimeout(resolve, 100))
    }
    if (!pdf) throw new Error('the signed PDF never appeared')
    const path = join(makeTempDir('texts-pdf'), 'signed.pdf')
    writeFileSync(path, pdf)
    const text = execFileSync('pdftotext', ['-enc', 'UTF-8', path, '-'], { encoding: 'utf8' })
    expect(text).toContain('Authentifizierung')
    expect(text).toContain('E-Mail-Link + einmaliger E-Mail-Code')
    expect(text).toContain(`${ORG} · API-Schlüssel`)
    expect(text).not.toContain('E-mail link')
    expect(text).not.toContain('email_link')
    expect(text).not.toContain('API key')
  })
})

test('in English the certificate’s method words are the vocabulary’s, as before', () => {
  for (const method of AUTH_METHODS) expect(say('en', `cert.auth.${method}`)).toBe(AUTH_METHOD_LABELS[method])
})
