import { execFileSync } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { uniqueEmail } from './helpers/api.ts'
import { launchChromium } from './helpers/browser.ts'
import {
  dashboardContext,
  linkFromMail,
  openDashboardPage,
  sendTestEvent,
  seriousAccessibilityViolations,
  signedInDashboardContext,
  takeShownSigningSecret,
} from './helpers/dashboard.ts'
import { makePdf } from './helpers/pdf.ts'
import { rgbaPng } from './helpers/png.ts'
import { postSeal } from './helpers/seals.ts'
import { createSignedInUser, sessionFetch, type SessionFetch, type SignedInUser } from './helpers/session.ts'
import { startTestServer, type TestServer } from './helpers/test-server.ts'
import { startWebhookReceiver, type WebhookReceiver } from './helpers/webhook-receiver.ts'
import { haveTools } from '../../../test-support/tools.ts'

/*
 * The proof, end to end, as one person uses the product: the real server with its
 * built dashboard and real CSP, real mail through the SMTP catcher, real signers on the
 * signer page, a real webhook receiver on loopback, Debian's Chromium. The steps share one
 * workspace and run in order; each waits for what a person would see, never for a fixed time.
 * The webhook is added before the document is sent so that the document's real events
 * (test events are not logged) fill the delivery log.
 */

const LETTER = { width: 612, height: 792 }
const person = { name: 'Maren Holt', email: uniqueEmail('maren'), password: 'a sturdy passphrase for maren', workspace: 'Harbour Freight Co-op' }
const signers = [
  { name: 'Ines Alvarez', email: uniqueEmail('ines') },
  { name: 'Tomasz Wiśniewski', email: uniqueEmail('tomasz') },
]

let server: TestServer
let browser: Browser
let context: BrowserContext
let page: Page
let problems: string[]
let operator: SignedInUser
let operatorContext: BrowserContext
let operatorProblems: string[]
let operatorPage: Page
let receiver: WebhookReceiver
let work: string
/** The person's session, as the browser holds it (for the API cross-checks). */
let asPerson: SessionFetch
let templateId: string
let documentId: string

describe.runIf(haveTools('chromium', 'qpdf', 'pdftotext'))('the dashboard, end to end', () => {
  beforeAll(async () => {
    // Loopback webhook receivers are allowed here (the SSRF guard has its own tests).
    server = await startTestServer({ env: { WEBHOOK_ALLOW_PRIVATE: 'true', JOB_POLL_MS: '100' } })
    receiver = await startWebhookReceiver()
    browser = await launchChromium()
    ;({ context, problems } = await dashboardContext(browser))
    context.setDefaultTimeout(15_000)
    page = await context.newPage()
    operator = await createSignedInUser(server, { name: 'Olive Operator', isOperator: true })
    ;({ context: operatorContext, problems: operatorProblems } = await signedInDashboardContext(browser, server, operator.cookie))
    operatorPage = await operatorContext.newPage()
    work = mkdtempSync(join(tmpdir(), 'signet-e2e-'))
  }, 60_000)

  afterAll(async () => {
    await browser?.close()
    await receiver?.close()
    await server?.close()
    if (work) rmSync(work, { recursive: true, force: true })
  })

  it('1. a new person signs up, opens the verification link from the e-mail and lands signed in', { timeout: 60_000 }, async () => {
    await page.goto(`${server.url}/app/signup`)
    await page.getByLabel('Your name').fill(person.name)
    await page.getByLabel('Work e-mail').fill(person.email)
    await page.getByLabel('Password').fill(person.password)
    await page.getByLabel('Workspace name').fill(person.workspace)
    await page.getByRole('button', { name: 'Create account' }).click()
    await shows(page, page.getByRole('heading', { name: 'Check your inbox' }))

    await page.goto(await linkFromMail(server, person.email, '/app/verify-email?token='))
    await page.waitForURL(`${server.url}/app/`)
    await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor()
    await page.getByText(`${person.workspace} · this month's usage`).waitFor()

    const cookie = (await context.cookies()).find((c) => c.name === 'signet_session')?.value
    expect(cookie).toBeTruthy()
    asPerson = sessionFetch(server.url, cookie!)
    const me = (await (await asPerson('/api/v1/me')).json()) as {
      user: { email: string; email_verified: boolean }
      workspace: { name: string; role: string; plan: string }
    }
    expect(me.user).toMatchObject({ email: person.email, email_verified: true })
    expect(me.workspace).toMatchObject({ name: person.workspace, role: 'owner', plan: 'free' })
  })

  it('2. uploads a 2-page PDF and places a signature and a date field for each of two roles on page 2', { timeout: 60_000 }, async () => {
    await nav('Templates')
    await page.getByRole('heading', { level: 1, name: 'Templates' }).waitFor()
    await page.getByText('No templates yet').waitFor()
    await page.getByLabel('PDF file').setInputFiles({ name: 'Freight contract.pdf', mimeType: 'application/pdf', buffer: Buffer.from(await makePdf(2)) })
    await expect.poll(() => page.getByLabel('Template name').inputValue()).toBe('Freight contract')
    await page.getByRole('button', { name: 'Upload' }).click()
    await page.waitForURL(/\/app\/templates\/[0-9a-f-]{36}$/)
    templateId = page.url().split('/').pop() ?? ''
    await page.getByRole('heading', { level: 1, name: 'Freight contract' }).waitFor()

    await place('Signature', 'Party 1', 72, 520)
    await place('Date', 'Party 1', 340, 530)
    await place('Signature', 'Party 2', 72, 640)
    await place('Date', 'Party 2', 340, 650)
    await page.getByRole('button', { name: 'Save fields' }).click()
    await shows(page, page.getByText('All changes saved.'))

    const stored = (await (await asPerson(`/api/v1/templates/${templateId}`)).json()) as {
      roles: number[]
      fields: { role: number; type: string; page: number; x: number; y: number }[]
    }
    expect(stored.roles).toEqual([0, 1])
    const summary = stored.fields.map((f) => ({ role: f.role, type: f.type, page: f.page, x: Math.round(f.x / 10), y: Math.round(f.y / 10) }))
    expect(summary).toEqual(
      expect.arrayContaining([
        { role: 0, type: 'signature', page: 2, x: 7, y: 52 },
        { role: 0, type: 'date', page: 2, x: 34, y: 53 },
        { role: 1, type: 'signature', page: 2, x: 7, y: 64 },
        { role: 1, type: 'date', page: 2, x: 34, y: 65 },
      ]),
    )
    expect(stored.fields).toHaveLength(4)
  })

  it('3. the operator moves the workspace to Pro; the person adds a webhook to a loopback receiver and a test event arrives', { timeout: 60_000 }, async () => {
    // Webhooks need Pro: the operator sets the plan on the Operator page.
    await openDashboardPage(operatorPage, server, '/operator', 'Operator')
    const orgRow = operatorPage.getByRole('row', { name: new RegExp(person.workspace) })
    await orgRow.getByRole('combobox', { name: `Plan of ${person.workspace}` }).click()
    await operatorPage.getByRole('option', { name: 'Pro' }).click()
    await operatorPage
      .getByRole('alertdialog', { name: `Move ${person.workspace} to the Pro plan?` })
      .getByRole('button', { name: 'Move to Pro' })
      .click()
    await expect.poll(() => orgRow.getByRole('combobox').textContent()).toBe('Pro')

    await page.goto(`${server.url}/app/`)
    await nav('Webhooks')
    await page.getByRole('heading', { level: 1, name: 'Webhooks' }).waitFor()
    await page.getByRole('button', { name: 'Add endpoint' }).first().click()
    const dialog = page.getByRole('dialog', { name: 'Add a webhook endpoint' })
    await dialog.getByLabel('Endpoint URL').fill(receiver.url)
    await dialog.getByRole('button', { name: 'Add endpoint' }).click()
    receiver.secret = await takeShownSigningSecret(page)

    const result = await sendTestEvent(page)
    await expect.poll(() => result.textContent()).toMatch(/^Delivered: your endpoint answered 200 in \d+ ms\./)
    const [test] = await receiver.waitFor(1)
    expect(test!.signatureValid).toBe(true)
    expect(JSON.parse(test!.body)).toMatchObject({ event: 'test' })
  })

  it(
    '4. sends the template to two signers, both sign on the signer page, and the completed document shows its audit trail and a signed PDF that passes qpdf --check',
    { timeout: 90_000 },
    async () => {
      await nav('Templates')
      await page.getByRole('link', { name: 'Send Freight contract' }).click()
      await page.getByRole('heading', { level: 1, name: 'Send a document' }).waitFor()
      for (const [index, signer] of signers.entries()) {
        const party = page.getByRole('group', { name: `Party ${index + 1}` })
        await party.getByRole('textbox', { name: 'E-mail' }).fill(signer.email)
        await party.getByRole('textbox', { name: 'Name' }).fill(signer.name)
      }
      await page.getByRole('button', { name: 'Send for signature' }).click()
      await shows(page, page.getByRole('heading', { name: 'Sent' }))
      await page.getByRole('link', { name: 'View the document' }).click()
      await page.waitForURL(/\/app\/documents\/[0-9a-f-]{36}$/)
      documentId = page.url().split('/').pop() ?? ''
      await page.getByRole('heading', { level: 1, name: 'Freight contract' }).waitFor()

      for (const signer of signers) await signOnSignerPage(signer)

      // The signed PDF is produced by a job after the last signature: the page, opened at once, shows Download
      // when it is ready without being reloaded (it reads the document again while the PDF is pending).
      let loads = 0
      page.on('load', () => loads++)
      await openDashboardPage(page, server, `/documents/${documentId}`, 'Freight contract')
      const signedPdf = page.getByRole('button', { name: 'Download', exact: true })
      await signedPdf.waitFor({ timeout: 30_000 })
      expect(loads).toBe(1)
      expect(await page.locator('h1 + p').textContent()).toMatch(/Completed \S/)
      await expect.poll(() => card('Status').textContent()).toContain('Completed')
      const signersCard = await card('Signers').textContent()
      for (const signer of signers) expect(signersCard).toContain(signer.email)
      expect(
        await card('Signers')
          .getByText(/^Party \d · Signed /)
          .count(),
      ).toBe(2)
      await page.getByText('Hash chain intact').waitFor()
      const events = await card('Audit trail').locator('li').allTextContents()
      expect(events.filter((e) => /^Signed(?! PDF)/.test(e))).toHaveLength(2)
      expect(events.filter((e) => /^(Completed|Signed PDF produced)/.test(e))).toHaveLength(2)
      const audit = (await (await asPerson(`/api/v1/documents/${documentId}/audit`)).json()) as { chain_valid: boolean }
      expect(audit.chain_valid).toBe(true)
      await expectAccessible(page, '/documents/$id (completed)')

      const [download] = await Promise.all([page.waitForEvent('download'), signedPdf.click()])
      // Without a title of its own, a document is called after its template and first signer.
      expect(download.suggestedFilename()).toBe(`Freight contract — ${signers[0]?.name}.pdf`)
      const pdfPath = join(work, 'signed.pdf')
      await download.saveAs(pdfPath)
      expect(execFileSync('qpdf', ['--check', pdfPath], { encoding: 'utf8' })).toContain('No syntax or stream encoding errors')
      // The certificate page (a legal record) names each signer's party as the dashboard does: Party 1 is the first signer.
      const certificateLines = execFileSync('pdftotext', ['-layout', '-enc', 'UTF-8', pdfPath, '-'], { encoding: 'utf8' }).split('\n')
      for (const [index, signer] of signers.entries()) {
        const onCertificate = certificateLines.find((line) => line.includes(signer.name) && /Party \d+/.test(line))?.match(/Party \d+/)?.[0]
        const onPage = (await card('Signers').locator('li', { hasText: signer.email }).textContent())?.match(/Party \d+/)?.[0]
        expect({ onCertificate, onPage }).toEqual({ onCertificate: `Party ${index + 1}`, onPage: `Party ${index + 1}` })
      }

      // The document's real events reached the receiver and fill the endpoint's delivery log.
      await nav('Webhooks')
      await page.getByRole('heading', { level: 1, name: 'Webhooks' }).waitFor()
      await expect
        .poll(() => receiver.received.map((r) => (JSON.parse(r.body) as { event: string }).event).sort(), { timeout: 20_000 })
        .toEqual(['document.completed', 'document.signed', 'document.signed', 'document.viewed', 'document.viewed', 'test'])
      expect(receiver.received.every((r) => r.signatureValid)).toBe(true)
      // The server records each answer just after the receiver sends it: open the log once all are recorded.
      const { webhooks } = (await (await asPerson('/api/v1/webhooks')).json()) as { webhooks: { id: string }[] }
      await expect
        .poll(async () =>
          ((await (await asPerson(`/api/v1/webhooks/${webhooks[0]?.id ?? ''}/deliveries`)).json()) as { deliveries: { status: string }[] }).deliveries.map(
            (d) => d.status,
          ),
        )
        .toEqual(['delivered', 'delivered', 'delivered', 'delivered', 'delivered'])
      await page.getByRole('button', { name: 'Deliveries' }).click()
      const log = page.getByRole('region', { name: 'Delivery log' })
      const completed = log.getByRole('row', { name: /document\.completed/ })
      await completed.waitFor()
      expect(await completed.textContent()).toMatch(/delivered/i)
      await completed.getByRole('button', { name: 'Details' }).click()
      await log
        .getByText(/Attempt 1 · .* · HTTP 200 · \d+ ms/)
        .first()
        .waitFor()
      await expectAccessible(page, '/settings/webhooks (delivery log)')
    },
  )

  it(
    '4b. a document whose expiry passed shows as Expired, one its sender voided as Voided; the API says why in voided_reason',
    { timeout: 30_000 },
    async () => {
      const send = async (title: string, expiresInMs?: number) => {
        const expires = expiresInMs ? { expires_at: new Date(Date.now() + expiresInMs).toISOString() } : {}
        const json = { template_id: templateId, title, signers: signers.map((signer, role) => ({ role, email: signer.email })), ...expires }
        const response = await asPerson('/api/v1/documents', { method: 'POST', json })
        expect(response.status).toBe(201)
        return ((await response.json()) as { id: string }).id
      }
      const readDocument = async (id: string) => (await (await asPerson(`/api/v1/documents/${id}`)).json()) as { status: string; voided_reason: string | null }
      const lapsed = await send('Lapsed freight quote', 1500)
      const withdrawn = await send('Withdrawn freight quote')
      expect((await asPerson(`/api/v1/documents/${withdrawn}/void`, { method: 'POST' })).status).toBe(200)
      // The server's expiry job (every 100 ms here) voids the lapsed one once its expiry passes.
      await expect.poll(() => readDocument(lapsed), { timeout: 10_000 }).toEqual(expect.objectContaining({ status: 'voided', voided_reason: 'expired' }))
      expect(await readDocument(withdrawn)).toMatchObject({ status: 'voided', voided_reason: 'sender' })

      await openDashboardPage(page, server, `/documents/${lapsed}`, 'Lapsed freight quote')
      await expect.poll(() => card('Status').textContent()).toContain('Expired')
      await card('Audit trail').getByText('Expired', { exact: true }).waitFor()
      await openDashboardPage(page, server, `/documents/${withdrawn}`, 'Withdrawn freight quote')
      await expect.poll(() => card('Status').textContent()).toContain('Voided')
      expect(await card('Status').textContent()).not.toContain('Expired')
    },
  )

  it(
    '4c. the documents list says who each document is for and how far it got, with a tab per status, and stacks its rows on a phone',
    { timeout: 30_000 },
    async () => {
      await nav('Documents')
      await page.getByRole('heading', { level: 1, name: 'Documents' }).waitFor()
      const rows = page.getByRole('list', { name: 'Documents' }).getByRole('listitem')
      const freight = rows.filter({ hasText: 'Freight contract — Ines Alvarez' })
      await freight.waitFor()
      const names = signers.map((signer) => signer.name).join(', ')
      expect(await freight.textContent()).toContain(names)
      expect(await freight.textContent()).toContain('2 of 2 signed')
      expect(await rows.filter({ hasText: 'Withdrawn freight quote' }).textContent()).toContain('0 of 2 signed')
      const tabs = page.getByRole('navigation', { name: 'Document status' })
      expect((await tabs.getByRole('link').allTextContents()).slice(0, 5)).toEqual([
        'All3',
        'Waiting for signatures0',
        'Completed1',
        'Declined0',
        'Voided or expired2',
      ])

      await tabs.getByRole('link', { name: /^Voided or expired/ }).click()
      await expect.poll(() => rows.count()).toBe(2)
      expect(new URL(page.url()).searchParams.get('status')).toBe('voided')
      // Search as one types: the address and the rows follow once typing pauses.
      await page.getByRole('searchbox', { name: 'Search documents' }).fill('lapsed')
      await expect.poll(() => new URL(page.url()).searchParams.get('search')).toBe('lapsed')
      await expect.poll(() => rows.allTextContents()).toEqual([expect.stringContaining('Lapsed freight quote')])
      await page.screenshot({ path: '/tmp/documents-list-1280.png', fullPage: true })

      await page.setViewportSize({ width: 390, height: 844 })
      await page.goto(`${server.url}/app/documents`)
      await freight.waitFor()
      expect(await page.evaluate(() => (document.scrollingElement?.scrollWidth ?? 0) <= window.innerWidth)).toBe(true)
      // A card: the title, then the status and progress under it, not beside it.
      const title = await freight.getByRole('link', { name: /^Freight contract/ }).boundingBox()
      const progress = await freight.getByText('2 of 2 signed').boundingBox()
      expect(progress!.y).toBeGreaterThan(title!.y + title!.height)
      await page.screenshot({ path: '/tmp/documents-list-390.png', fullPage: true })
      await page.setViewportSize({ width: 1280, height: 800 })
    },
  )

  it('5. creates an API key that is shown once and works, revokes it, and the revoked key gets 401 at once', { timeout: 60_000 }, async () => {
    const apiKey = await createKeyInDashboard('Warehouse system')
    const listed = await server.request('/api/v1/documents', { key: apiKey })
    expect(listed.status).toBe(200)
    expect(((await listed.json()) as { documents: { id: string }[] }).documents.map((d) => d.id)).toContain(documentId)

    const row = page.getByRole('row', { name: /Warehouse system/ })
    expect(await row.textContent()).not.toContain(apiKey)
    await row.getByRole('button', { name: 'Revoke Warehouse system' }).click()
    const confirm = page.getByRole('alertdialog', { name: /Revoke “Warehouse system”/ })
    await confirm.getByRole('button', { name: 'Revoke key' }).click()
    await confirm.waitFor({ state: 'detached' })
    await row.getByText('revoked').waitFor()

    const refused = await server.request('/api/v1/documents', { key: apiKey })
    expect(refused.status).toBe(401)
    expect(await refused.json()).toEqual({ error: 'Invalid API key.', code: 'invalid_api_key' })
  })

  it('6. invites a member by e-mail, who signs up from the link in a second browser and is in the workspace', { timeout: 60_000 }, async () => {
    const invitee = { name: 'Kofi Mensah', email: uniqueEmail('kofi') }
    await nav('Members')
    await page.getByRole('heading', { level: 1, name: 'Members' }).waitFor()
    await page.getByLabel('E-mail').fill(invitee.email)
    await page.getByRole('button', { name: 'Send invitation' }).click()
    await shows(page, page.getByRole('row', { name: new RegExp(invitee.email) }))

    const { context: second, problems: secondProblems } = await dashboardContext(browser)
    second.setDefaultTimeout(15_000)
    const inviteePage = await second.newPage()
    await inviteePage.goto(await linkFromMail(server, invitee.email, '/app/invite/'))
    await inviteePage.getByText(new RegExp(`${person.name} invited ${invitee.email} to ${person.workspace}`)).waitFor()
    await inviteePage.getByLabel('Your name').fill(invitee.name)
    await inviteePage.getByLabel('Password').fill('the invitee picks a long passphrase')
    await inviteePage.getByRole('button', { name: 'Create account and join' }).click()
    await shows(inviteePage, inviteePage.getByRole('heading', { level: 1, name: 'Overview' }))
    await inviteePage.getByText(`${person.workspace} · this month's usage`).waitFor()
    expect(secondProblems).toEqual([])
    await second.close()

    await openDashboardPage(page, server, '/settings/members', 'Members')
    const member = page.getByRole('row', { name: new RegExp(invitee.name) })
    await expect.poll(() => member.textContent()).toContain(invitee.email)
    const members = (await (await asPerson('/api/v1/members')).json()) as { members: { email: string; role: string }[]; invitations: unknown[] }
    expect(members.members.find((m) => m.email === invitee.email)?.role).toBe('member')
    expect(members.invitations).toEqual([])
  })

  it('7. sets a spend cap on the Billing page, and the API reports it stored', { timeout: 30_000 }, async () => {
    await nav('Billing')
    await page.getByRole('heading', { level: 1, name: 'Billing' }).waitFor()
    await page.getByLabel('New cap (US$)').fill('125')
    await page.getByRole('button', { name: 'Set cap' }).click()
    await expect.poll(() => page.getByTestId('spend-cap').textContent()).toBe('$125.00')
    expect(await (await asPerson('/api/v1/billing/spend-cap')).json()).toEqual({ spend_cap_cents: 12_500 })
  })

  it('8. submits the identity check, the operator approves it, and sealing then works', { timeout: 60_000 }, async () => {
    const sealKey = await createKeyInDashboard('Sealing robot')
    const original = await makePdf(1)
    const before = await postSeal(server, sealKey, original, { title: 'Bill of lading' })
    expect(before.status).toBe(412)
    expect(((await before.json()) as { error: string }).error).toMatch(/identity check/)

    await nav('Identity check')
    await page.getByRole('heading', { level: 1, name: 'Identity check' }).waitFor()
    await page.getByLabel('Legal name').fill('Harbour Freight Cooperative Ltd')
    const png = rgbaPng(
      2,
      2,
      Buffer.alloc(2 * (1 + 2 * 4), 0x7f)
        .fill(0, 0, 1)
        .fill(0, 9, 10),
    )
    await page.getByLabel('ID document').setInputFiles({ name: 'register-extract.png', mimeType: 'image/png', buffer: png })
    await page.getByRole('button', { name: 'Submit for review' }).click()
    await shows(page, page.getByText(/Submitted .* for Harbour Freight Cooperative Ltd\. It is waiting for a decision/))

    await openDashboardPage(operatorPage, server, '/operator', 'Operator')
    await operatorPage.getByRole('tab', { name: 'Identity checks' }).click()
    const row = operatorPage.getByRole('row', { name: /Harbour Freight Cooperative Ltd/ })
    await row.getByRole('button', { name: 'Decide' }).click()
    const decision = operatorPage.getByRole('dialog', { name: /Identity check of/ })
    await decision.getByRole('button', { name: 'Approve' }).click()
    await decision.waitFor({ state: 'detached' })
    await operatorPage.getByText('No pending identity checks').waitFor()

    await openDashboardPage(page, server, '/settings/identity', 'Identity check')
    await page.getByText(/Harbour Freight Cooperative Ltd was approved .* Valid until/).waitFor()

    const sealed = await postSeal(server, sealKey, original, { title: 'Bill of lading' })
    expect([201, 202]).toContain(sealed.status)
    expect(await sealed.json()).toMatchObject({ title: 'Bill of lading', status: 'completed' })
    expect(problems).toEqual([])
    expect(operatorProblems).toEqual([])
  })
})

/** Waits for `locator`; when it does not come, the error says what the page showed instead (its alerts first). */
async function shows(p: Page, locator: Locator): Promise<void> {
  try {
    await locator.waitFor()
  } catch (error) {
    const alerts = await p.getByRole('alert').allInnerTexts()
    const body = await p
      .locator('body')
      .innerText()
      .catch(() => '(no page)')
    throw new Error(`${(error as Error).message.split('\n')[0]}\nat ${p.url()}\nalerts: ${JSON.stringify(alerts)}\npage text:\n${body.slice(0, 1500)}`)
  }
}

/** Follows a link of the sidebar, as a person finds a page. */
async function nav(name: string): Promise<void> {
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name, exact: true }).click()
}

async function expectAccessible(p: Page, what: string): Promise<void> {
  expect(await seriousAccessibilityViolations(p), what).toEqual([])
}

/** A card of the page, by its heading. */
const card = (heading: string) => page.locator('section', { has: page.getByRole('heading', { name: heading, exact: true }) })

/** Places a field of `type` for `party` by clicking page 2 of the editor at (x, y) PDF points from its top-left. */
async function place(type: string, party: string, x: number, y: number): Promise<void> {
  await page.getByRole('combobox', { name: 'For' }).click()
  await page.getByRole('option', { name: party, exact: true }).click()
  await page.getByRole('group', { name: 'Field to place' }).getByRole('button', { name: type, exact: true }).click()
  const overlay = page.locator('[data-page-overlay="2"]')
  await overlay.scrollIntoViewIfNeeded()
  const box = await overlay.boundingBox()
  if (!box) throw new Error('page 2 is not on screen')
  const scale = box.width / LETTER.width
  await page.mouse.click(box.x + x * scale, box.y + y * scale)
  await page.getByRole('button', { name: `${type} field, ${party}, page 2`, exact: true }).waitFor()
}

/** One signer, in their own browser, from the link in their invitation e-mail: types a signature and finishes. */
async function signOnSignerPage(signer: { name: string; email: string }): Promise<void> {
  const [invitation] = await server.mail.waitFor(signer.email)
  const link = /https?:\/\/\S+\/sign\/[A-Za-z0-9_-]{43}/.exec(invitation?.text ?? '')?.[0]
  if (!link) throw new Error(`no signing link in the mail to ${signer.email}`)
  const signerContext = await browser.newContext({ viewport: { width: 1280, height: 800 } })
  signerContext.setDefaultTimeout(15_000)
  const signerPage = await signerContext.newPage()
  const errors: string[] = []
  signerPage.on('pageerror', (error) => errors.push(error.message))
  await signerPage.goto(server.url + new URL(link).pathname)
  await signerPage.waitForSelector('body[data-ready]')
  await signerPage.getByRole('button', { name: /^Sign: Signature \(required\), page 2/ }).click()
  await signerPage.getByRole('tab', { name: 'Type' }).click()
  expect(await signerPage.getByLabel('Type your name').inputValue()).toBe(signer.name)
  await signerPage.getByRole('button', { name: 'Apply' }).click()
  await signerPage.getByRole('button', { name: 'Finish' }).click()
  await shows(signerPage, signerPage.getByText(/You have signed|Everyone has signed/).first())
  expect(errors).toEqual([])
  await signerContext.close()
}

/** Creates a key on Settings → Integration and API and returns it as shown, once. */
async function createKeyInDashboard(name: string): Promise<string> {
  await nav('Integration and API')
  await page.getByRole('heading', { level: 1, name: 'Integration and API' }).waitFor()
  await page.getByRole('button', { name: 'Create key' }).first().click()
  const createDialog = page.getByRole('dialog', { name: 'Create an API key' })
  await createDialog.getByLabel('Name').fill(name)
  await createDialog.getByRole('button', { name: 'Create key' }).click()
  const shown = page.getByRole('dialog', { name: 'Copy your new key' })
  const apiKey = (await shown.getByTestId('new-api-key').textContent())?.trim() ?? ''
  expect(apiKey).toMatch(/^sgn_live_[0-9a-f]+/)
  await shown.getByRole('button', { name: 'Done' }).first().click()
  await shown.waitFor({ state: 'detached' })
  await expect.poll(() => page.getByRole('row', { name: new RegExp(name) }).textContent()).toContain(apiKey.slice(0, 17))
  return apiKey
}
