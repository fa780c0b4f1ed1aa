import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Browser, BrowserContext, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { launchChromium } from './helpers/browser.ts'
import { PHONE, DESKTOP, SCREENSHOT_DIR, seriousAccessibilityViolations, signedInDashboardContext } from './helpers/dashboard.ts'
import { makePdf } from './helpers/pdf.ts'
import { createSignedInUser } from './helpers/session.ts'
import { richFields, sendForSigning, valuesFor } from './helpers/signing.ts'
import type { TestOrg } from './helpers/api.ts'
import { startTestServer, type TestServer } from './helpers/test-server.ts'

/*
 * The templates, send, documents and bulk-send pages in real Chromium against the real server,
 * its built dashboard and its CSP: the field editor places, moves, resizes and nudges fields by
 * pointer and keyboard, and the API then holds them in PDF points where they were put (also on
 * a rotated, cropped page). SIGNET_SCREENSHOTS=1 also refreshes docs/screenshots/dashboard-*.png.
 */
const LETTER = { width: 612, height: 792 }

let server: TestServer
let browser: Browser
let context: BrowserContext
let problems: string[]
let orgId: string
let apiKey: string

beforeAll(async () => {
  server = await startTestServer()
  ;({ orgId, apiKey } = await server.createOrg('team', 'Editor Org'))
  const owner = await createSignedInUser(server, { orgId, name: 'Ada Editor' })
  browser = await launchChromium()
  ;({ context, problems } = await signedInDashboardContext(browser, server, owner.cookie))
}, 120_000)

afterAll(async () => {
  // Nothing the pages did tripped the CSP or threw.
  expect(problems).toEqual([])
  await browser?.close()
  await server?.close()
})

async function expectAccessible(page: Page, what: string): Promise<void> {
  expect(await seriousAccessibilityViolations(page), what).toEqual([])
}

/** With SIGNET_SCREENSHOTS=1: docs/screenshots/dashboard-<name>-desktop.png and -phone.png of the page as it is. */
async function shoot(page: Page, name: string): Promise<void> {
  if (!SCREENSHOT_DIR) return
  for (const [label, viewport] of [
    ['desktop', DESKTOP],
    ['phone', PHONE],
  ] as const) {
    await page.setViewportSize(viewport)
    await page.waitForTimeout(300) // pages redraw their canvases at the new width
    await page.screenshot({ path: join(SCREENSHOT_DIR, `dashboard-${name}-${label}.png`) })
  }
  await page.setViewportSize(DESKTOP)
}

/** Clicks on page `page` of the editor at a point given in PDF points from the page's top-left. */
async function clickAtPoints(p: Page, page: number, x: number, y: number): Promise<void> {
  const overlay = p.locator(`[data-page-overlay="${page}"]`)
  await overlay.scrollIntoViewIfNeeded()
  const box = await overlay.boundingBox()
  if (!box) throw new Error(`page ${page} is not on screen`)
  const scale = box.width / LETTER.width
  expect(box.height / scale).toBeCloseTo(LETTER.height, 0)
  await p.mouse.click(box.x + x * scale, box.y + y * scale)
}

/** The side panel's number for the selected field, within 1 pt (the pointer moves in whole pixels). */
async function expectPanel(p: Page, label: string, points: number): Promise<void> {
  await expect.poll(async () => Math.abs(Number(await p.getByLabel(label, { exact: true }).inputValue()) - points)).toBeLessThanOrEqual(1)
}

/** A card of the page, by its heading. */
const card = (p: Page, heading: string) => p.locator('section', { has: p.getByRole('heading', { name: heading, exact: true }) })

async function chooseParty(p: Page, party: string): Promise<void> {
  await p.getByRole('combobox', { name: 'For' }).click()
  await p.getByRole('option', { name: party, exact: true }).click()
}

async function place(p: Page, type: string, party: string, x: number, y: number): Promise<void> {
  await chooseParty(p, party)
  await p.getByRole('group', { name: 'Field to place' }).getByRole('button', { name: type, exact: true }).click()
  await clickAtPoints(p, 2, x, y)
  await expect.poll(() => p.evaluate(() => document.activeElement?.getAttribute('aria-label'))).toBe(`${type} field, ${party}, page 2`)
}

describe('the template field editor', () => {
  it('places, nudges and saves fields for two signers on page 2, stored in PDF points', { timeout: 90_000 }, async () => {
    const page = await context.newPage()
    await page.goto(`${server.url}/app/templates`)
    await page.getByRole('heading', { name: 'Templates', level: 1 }).waitFor()
    await page.getByText('No templates yet').waitFor()
    await expectAccessible(page, '/templates (empty)')
    await page.getByLabel('PDF file').setInputFiles({ name: 'Two-page agreement.pdf', mimeType: 'application/pdf', buffer: Buffer.from(await makePdf(2)) })
    await expect.poll(() => page.getByLabel('Template name').inputValue()).toBe('Two-page agreement')
    await page.getByRole('button', { name: 'Upload' }).click()

    await page.waitForURL(/\/app\/templates\/[0-9a-f-]{36}$/)
    const templateId = page.url().split('/').pop() ?? ''
    await page.getByRole('heading', { name: 'Two-page agreement', level: 1 }).waitFor()
    await page.locator('[data-page-overlay="2"]').waitFor()

    await place(page, 'Signature', 'Party 1', 72, 500)
    await place(page, 'Date', 'Party 1', 320, 510)
    await place(page, 'Signature', 'Party 2', 72, 620)
    await place(page, 'Date', 'Party 2', 320, 630)
    // The last one, still focused: 3 pt right, 10 pt down (Shift), 1 pt up.
    await page.keyboard.press('ArrowRight')
    await page.keyboard.press('ArrowRight')
    await page.keyboard.press('ArrowRight')
    await page.keyboard.press('Shift+ArrowDown')
    await page.keyboard.press('ArrowUp')
    await expect.poll(() => page.getByLabel('X', { exact: true }).inputValue()).toBe('323')
    await expect.poll(() => page.getByLabel('Y', { exact: true }).inputValue()).toBe('639')
    await expectAccessible(page, '/templates/$id')
    await shoot(page, 'template-editor')

    await page.getByRole('button', { name: 'Save fields' }).click()
    await page.getByText('All changes saved.').waitFor()

    await page.reload()
    for (const name of ['Signature field, Party 1, page 2', 'Date field, Party 1, page 2', 'Signature field, Party 2, page 2', 'Date field, Party 2, page 2']) {
      await page.getByRole('button', { name, exact: true }).waitFor()
    }

    const response = await server.request(`/api/v1/templates/${templateId}`, { key: apiKey })
    expect(response.status).toBe(200)
    const stored = (await response.json()) as {
      roles: number[]
      fields: { role: number; type: string; page: number; x: number; y: number; width: number; height: number }[]
    }
    expect(stored.roles).toEqual([0, 1])
    const expected = [
      { role: 0, type: 'signature', page: 2, x: 72, y: 500, width: 180, height: 40 },
      { role: 0, type: 'date', page: 2, x: 320, y: 510, width: 120, height: 24 },
      { role: 1, type: 'signature', page: 2, x: 72, y: 620, width: 180, height: 40 },
      { role: 1, type: 'date', page: 2, x: 323, y: 639, width: 120, height: 24 },
    ]
    expect(stored.fields).toHaveLength(expected.length)
    for (const want of expected) {
      const got = stored.fields.find((f) => f.role === want.role && f.type === want.type)
      expect(got, `${want.type} for role ${want.role}`).toMatchObject({ page: 2, width: want.width, height: want.height })
      expect(Math.abs((got?.x ?? NaN) - want.x), `x of ${want.type} for role ${want.role}`).toBeLessThanOrEqual(1)
      expect(Math.abs((got?.y ?? NaN) - want.y), `y of ${want.type} for role ${want.role}`).toBeLessThanOrEqual(1)
    }

    await page.goto(`${server.url}/app/templates`)
    await page.getByRole('link', { name: 'Edit the fields of Two-page agreement' }).waitFor()
    await expectAccessible(page, '/templates')
    await shoot(page, 'templates')
    await page.close()
  })

  it('drags a field onto another page and resizes it from its corner', { timeout: 60_000 }, async () => {
    const page = await context.newPage()
    const { id } = await server.createTemplate(orgId, {
      name: 'Drag test',
      pages: 2,
      fields: [{ role: 0, type: 'signature', page: 1, x: 100, y: 100, width: 180, height: 40 }],
    })
    await page.goto(`${server.url}/app/templates/${id}`)
    const field = page.getByRole('button', { name: 'Signature field, Party 1, page 1' })
    await field.waitFor()
    const from = await field.boundingBox()
    const target = page.locator('[data-page-overlay="2"]')
    if (!from) throw new Error('no field box')
    // Grab the box's middle and drop it on page 2, 200 pt down from its top-left, scrolling as a person would.
    await page.mouse.move(from.x + from.width / 2, from.y + from.height / 2)
    await page.mouse.down()
    await page.mouse.move(from.x + from.width / 2 + 5, from.y + from.height / 2 + 5)
    await target.scrollIntoViewIfNeeded()
    const box = await target.boundingBox()
    if (!box) throw new Error('no page 2')
    const scale = box.width / LETTER.width
    await page.mouse.move(box.x + (150 + 90) * scale, box.y + (200 + 20) * scale, { steps: 5 })
    await page.mouse.up()
    const moved = page.getByRole('button', { name: 'Signature field, Party 1, page 2' })
    await moved.waitFor()
    await expectPanel(page, 'X', 150)
    await expectPanel(page, 'Y', 200)

    // Resize from the corner handle to 240 × 60 pt.
    const handle = moved.locator('[data-resize-handle]')
    const corner = await handle.boundingBox()
    if (!corner) throw new Error('no resize handle')
    await page.mouse.move(corner.x + corner.width / 2, corner.y + corner.height / 2)
    await page.mouse.down()
    const movedBox = await moved.boundingBox()
    if (!movedBox) throw new Error('no moved box')
    await page.mouse.move(movedBox.x + 240 * scale, movedBox.y + 60 * scale, { steps: 4 })
    await page.mouse.up()
    await expectPanel(page, 'Width', 240)
    await expectPanel(page, 'Height', 60)

    // Numbers typed into the panel are kept on the page.
    await page.getByLabel('X', { exact: true }).fill('9999')
    await page.getByLabel('X', { exact: true }).press('Enter')
    await expect
      .poll(async () => Number(await page.getByLabel('X', { exact: true }).inputValue()) + Number(await page.getByLabel('Width', { exact: true }).inputValue()))
      .toBeCloseTo(612, 1)
    await page.close()
  })
})

/** A one-page PDF whose page is cropped (CropBox inside an offset MediaBox) and turned by /Rotate 90. */
function rotatedCroppedPdf(): Uint8Array<ArrayBuffer> {
  const content = 'BT /F1 24 Tf 100 400 Td (Rotated page) Tj ET'
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [-20 30 592 822] /CropBox [36 72 576 720] /Rotate 90 /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>',
    `<< /Length ${content.length} >>\nstream\n${content}\nendstream`,
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
  ]
  let out = '%PDF-1.7\n'
  const offsets: number[] = []
  objects.forEach((object, i) => {
    offsets.push(out.length)
    out += `${i + 1} 0 obj\n${object}\nendobj\n`
  })
  const xref = out.length
  out += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n${offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`).join('')}`
  out += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`
  return new TextEncoder().encode(out)
}

describe('a rotated page with a CropBox', () => {
  it('shows the page as displayed and stores a clicked field in the same points the server measures', { timeout: 60_000 }, async () => {
    const upload = await server.request('/api/v1/templates?name=Rotated', {
      method: 'POST',
      key: apiKey,
      headers: { 'content-type': 'application/pdf' },
      body: rotatedCroppedPdf(),
    })
    expect(upload.status).toBe(201)
    const template = (await upload.json()) as { id: string; pages: { width: number; height: number }[] }
    // The visible box is 540 × 648 points; turned a quarter, it is displayed 648 wide and 540 high.
    expect(template.pages).toEqual([{ width: 648, height: 540 }])

    const page = await context.newPage()
    await page.goto(`${server.url}/app/templates/${template.id}`)
    const overlay = page.locator('[data-page-overlay="1"]')
    await overlay.waitFor()
    await page.getByRole('group', { name: 'Field to place' }).getByRole('button', { name: 'Initials', exact: true }).click()
    // The toolbar (ten field types) and the Roles card push the page down: bring it into view before clicking on it.
    await overlay.scrollIntoViewIfNeeded()
    const box = await overlay.boundingBox()
    if (!box) throw new Error('no page')
    expect(box.width / box.height).toBeCloseTo(648 / 540, 2)
    const scale = box.width / 648
    await page.mouse.click(box.x + 500 * scale, box.y + 400 * scale)
    await page.getByRole('button', { name: 'Initials field, Party 1, page 1' }).waitFor()
    await page.getByRole('button', { name: 'Save fields' }).click()
    await page.getByText('All changes saved.').waitFor()

    const stored = (await (await server.request(`/api/v1/templates/${template.id}`, { key: apiKey })).json()) as {
      fields: { x: number; y: number; width: number; height: number }[]
    }
    expect(stored.fields).toHaveLength(1)
    const [field] = stored.fields
    expect(Math.abs((field?.x ?? NaN) - 500)).toBeLessThanOrEqual(1)
    expect(Math.abs((field?.y ?? NaN) - 400)).toBeLessThanOrEqual(1)
    expect(field).toMatchObject({ width: 60, height: 40 })
    await shoot(page, 'template-editor-rotated')
    await page.close()
  })
})

describe('sending, the documents pages and bulk send', () => {
  it(
    'places an error under the control its field points at, in words for people; sends, then finds, resends and voids the document',
    { timeout: 90_000 },
    async () => {
      const page = await context.newPage()
      const { id: templateId } = await server.createTemplate(orgId, {
        name: 'Two-party lease',
        fields: [
          { role: 0, type: 'signature', page: 1, x: 72, y: 600, width: 180, height: 40 },
          { role: 1, type: 'signature', page: 1, x: 320, y: 600, width: 180, height: 40 },
        ],
      })
      await page.goto(`${server.url}/app/send?template=${templateId}`)
      const party1 = page.getByRole('group', { name: 'Party 1' })
      const party2 = page.getByRole('group', { name: 'Party 2' })
      await party1.getByRole('textbox', { name: 'E-mail' }).fill('not-an-address')
      await party2.getByRole('textbox', { name: 'E-mail' }).fill('tenant.two@example.com')
      await party2.getByRole('textbox', { name: 'Name' }).fill('Tenant Two')
      const refusal = page.waitForResponse((r) => r.request().method() === 'POST' && new URL(r.url()).pathname === '/api/v1/documents')
      await page.getByRole('button', { name: 'Send for signature' }).click()
      // Placed from the body's field, in people's words rather than the API's text.
      expect(await (await refusal).json()).toEqual({
        error: 'signers[0].email must be a valid e-mail address',
        code: 'validation_failed',
        field: '/signers/0/email',
      })
      await expect.poll(() => party1.getByRole('alert').textContent()).toBe('Enter a valid email address')
      expect(await page.getByText('signers[0]').count()).toBe(0)
      expect(await party1.getByRole('textbox', { name: 'E-mail' }).getAttribute('aria-invalid')).toBe('true')
      expect(await party2.getByRole('textbox', { name: 'E-mail' }).getAttribute('aria-invalid')).toBeNull()
      await expectAccessible(page, '/send (with an error)')
      await party1.scrollIntoViewIfNeeded()
      await shoot(page, 'send')

      await party1.getByRole('textbox', { name: 'E-mail' }).fill('landlord.one@example.com')
      await page.getByRole('button', { name: 'Send for signature' }).click()
      await page.getByRole('heading', { name: 'Sent' }).waitFor()
      await page.getByRole('link', { name: 'View the document' }).click()

      await page.getByRole('heading', { name: 'Two-party lease', level: 1 }).waitFor()
      await card(page, 'Signers')
        .getByText(/^landlord\.one@example\.com/)
        .waitFor()
      await page.getByText('Hash chain intact').waitFor()
      expect(await card(page, 'Audit trail').locator('li').first().textContent()).toMatch(/^Sent/)
      await page.getByRole('button', { name: 'Resend the invitation to tenant.two@example.com' }).click()
      await page.getByText('Invitation sent again to tenant.two@example.com', { exact: true }).waitFor()
      await expectAccessible(page, '/documents/$id')
      await shoot(page, 'document')

      await page.goto(`${server.url}/app/documents`)
      await page.getByLabel('Search documents').fill('TENANT.two@')
      await page.waitForURL(/search=TENANT/)
      await page.getByRole('link', { name: 'Two-party lease' }).waitFor()
      await expectAccessible(page, '/documents')
      await shoot(page, 'documents')
      await page.getByLabel('Search documents').fill('nobody-like-this@example.com')
      await page.getByText('No documents match').waitFor()

      // Typing replaces the address (no Back step per pause): clearing the search lists it again.
      await page.getByLabel('Search documents').fill('')
      await page.getByRole('link', { name: 'Two-party lease' }).click()
      await page.getByRole('button', { name: 'More actions' }).click()
      await page.getByRole('menuitem', { name: 'Void document…' }).click()
      await page.getByRole('alertdialog').getByRole('button', { name: 'Void document' }).click()
      await page.getByText('Document voided', { exact: true }).waitFor()
      await expect.poll(() => card(page, 'Status').textContent()).toContain('Voided')
      await page.close()
    },
  )

  it('offers the signed PDF, the certificate and the verification link once a document is completed', { timeout: 90_000 }, async () => {
    const org: TestOrg = { orgId, apiKey, templateId: (await server.createTemplate(orgId, { name: 'Consulting agreement', fields: richFields([0]) })).id }
    const { documentId, signers } = await sendForSigning(server, org, { templateId: org.templateId })
    const [signer] = signers
    if (!signer) throw new Error('no signer')
    expect((await signer.finish(valuesFor(0))).status).toBe(200)
    await expect
      .poll(
        async () =>
          ((await (await server.request(`/api/v1/documents/${documentId}`, { key: apiKey })).json()) as { signed_pdf_status: string }).signed_pdf_status,
        { timeout: 30_000 },
      )
      .toBe('ready')

    const page = await context.newPage()
    await page.goto(`${server.url}/app/documents/${documentId}`)
    await card(page, 'Status').getByText('Completed').waitFor()
    expect(await card(page, 'Signers').textContent()).toMatch(/Signed /)
    // The completed document's primary action, in the header.
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download', exact: true }).click()])
    const bytes = readFileSync(await download.path())
    expect(bytes.subarray(0, 5).toString()).toBe('%PDF-')
    expect(download.suggestedFilename()).toMatch(/^Consulting agreement — .+\.pdf$/)
    // Signed by its signer, not self-sealed: no standalone certificate or badge is offered.
    const files = card(page, 'Files and verification')
    expect(await files.getByRole('button').allTextContents()).toEqual(['Copy verification link'])
    await page.getByText(`${server.url}/verify/${documentId}`).waitFor()
    await page.getByRole('button', { name: 'Copy verification link' }).waitFor()
    await expectAccessible(page, '/documents/$id (completed)')
    await shoot(page, 'document-completed')
    await page.close()
  })

  it('checks a CSV row by row, sends the good rows with progress and counts the result', { timeout: 90_000 }, async () => {
    const page = await context.newPage()
    const { id: templateId } = await server.createTemplate(orgId, { name: 'Newsletter consent' })
    await page.goto(`${server.url}/app/bulk-send?template=${templateId}`)
    const csv = ['email,name', 'ann@example.com,Ann', 'not an address,Bob', 'ANN@example.com,Ann again', 'cy@example.com,"Cy, Jr."'].join('\n')
    await page.getByLabel('CSV file').setInputFiles({ name: 'people.csv', mimeType: 'text/csv', buffer: Buffer.from(csv) })
    await page.getByText('2 ready to send').waitFor()
    await page.getByText('2 with problems (not sent)').waitFor()
    await page.getByText('“not an address” is not a valid e-mail address.').waitFor()
    await page.getByText('Duplicate of line 2: each address is sent one document.').waitFor()
    await expectAccessible(page, '/bulk-send (rows checked)')
    await shoot(page, 'bulk-send')

    await page.getByRole('button', { name: 'Send to 2 recipients' }).click()
    await page.getByText('Done: 2 of 2 processed').waitFor()
    const counts = page.locator('dl[role="status"]')
    expect((await counts.textContent())?.replace(/\s+/g, ' ')).toBe('Sent2Skipped for cap0Skipped for time0Not sent (error)0')
    const listed = (await (await server.request('/api/v1/documents?status=sent&search=cy@example.com', { key: apiKey })).json()) as {
      documents: { title: string }[]
    }
    expect(listed.documents.map((d) => d.title)).toEqual(['Newsletter consent — Cy, Jr.'])
    // The same file cannot be sent twice by a second click: every recipient would get two documents.
    expect(await page.getByRole('button', { name: 'Send to 2 recipients' }).isDisabled()).toBe(true)
    await page.getByText('This file has been sent. Choose another file to send again.').waitFor()
    await page.close()
  })
})

describe('on the Free plan', () => {
  it('shows the one-template rule with its upgrade path, and bulk send as a Team feature', { timeout: 60_000 }, async () => {
    const free = await createSignedInUser(server, { name: 'Fay Free' })
    const { context: freeContext, problems: freeProblems } = await signedInDashboardContext(browser, server, free.cookie)
    const page = await freeContext.newPage()
    await page.goto(`${server.url}/app/templates`)
    for (const name of ['First', 'Second']) {
      await page.getByLabel('PDF file').setInputFiles({ name: `${name}.pdf`, mimeType: 'application/pdf', buffer: Buffer.from(await makePdf(1)) })
      await page.getByLabel('Template name').fill(name)
      await page.getByRole('button', { name: 'Upload' }).click()
      if (name === 'First') {
        await page.waitForURL(/\/app\/templates\/[0-9a-f-]{36}$/)
        await page.goto(`${server.url}/app/templates`)
      }
    }
    const refusal = page.getByRole('alert').filter({ hasText: 'The PDF was not uploaded' })
    await expect.poll(() => refusal.textContent()).toContain('A Free org can have one template; upgrade the plan to add more.')
    expect(await refusal.getByRole('link', { name: 'Buy credits' }).getAttribute('href')).toMatch(/^http/)
    await refusal.getByRole('link', { name: 'See plans and billing' }).waitFor()
    await expectAccessible(page, '/templates (402)')

    await page.goto(`${server.url}/app/bulk-send`)
    await page.getByText('Bulk send comes with the Team plan').waitFor()
    await page.getByRole('link', { name: 'See plans' }).waitFor()
    await expectAccessible(page, '/bulk-send (Free plan)')
    await shoot(page, 'bulk-send-free')
    expect(freeProblems).toEqual([])
    await freeContext.close()
  })
})
