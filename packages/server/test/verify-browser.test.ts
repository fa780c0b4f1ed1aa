import { mkdirSync, writeFileSync } from 'node:fs'
import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { bodyOf, setupOrg, type Json, type TestOrg } from './helpers/api.ts'
import { accessibilityViolations, launchChromium } from './helpers/browser.ts'
import { makePdf } from './helpers/pdf.ts'
import { download, postSeal, verifyIdentity } from './helpers/seals.ts'
import { startTestServer, type TestServer } from './helpers/test-server.ts'
import { haveTools } from '../../../test-support/tools.ts'

/*
 * The public verification page in a real browser: the drop zone checks files with the
 * bundled @signet/verify library, in the page, against the published root. The page is
 * served from 127.0.0.1, a secure context, so Web Crypto is available as on HTTPS.
 */

/** SIGNET_SCREENSHOTS=1 also refreshes docs/screenshots/ (the page after a check, and the badge). */
const SCREENSHOTS = process.env.SIGNET_SCREENSHOTS === '1' ? new URL('../../../docs/screenshots/', import.meta.url).pathname : undefined

let server: TestServer
let org: TestOrg
let browser: Browser
let sealed: Json
let sealedFile: Uint8Array
let original: Uint8Array

describe.runIf(haveTools('chromium'))('the verification page in a browser', () => {
  beforeAll(async () => {
    server = await startTestServer()
    org = await setupOrg(server)
    await verifyIdentity(server, org.orgId, 'Contoso Pharmaceuticals GmbH')
    original = await makePdf(2)
    sealed = await bodyOf(await postSeal(server, org.apiKey, original, { title: 'Batch release certificate' }))
    sealedFile = await download(server, org.apiKey, `/api/v1/documents/${sealed.id as string}/signed-file`)
    browser = await launchChromium()
  })
  afterAll(async () => {
    await browser?.close()
    await server?.close()
  })

  async function checkFile(page: Page, name: string, bytes: Uint8Array): Promise<string> {
    await page.setInputFiles('#file', { name, mimeType: 'application/pdf', buffer: Buffer.from(bytes) })
    await page.waitForFunction(() => !/Checking/.test(document.getElementById('result')?.textContent ?? 'Checking'))
    return (await page.textContent('#result')) ?? ''
  }

  it('checks a dropped copy in the page: the sealed file is valid, a changed one is altered, the upload is told apart', async () => {
    const page = await browser.newPage()
    const problems: string[] = []
    page.on('console', (message) => {
      if (message.type() === 'error') problems.push(message.text())
    })
    page.on('pageerror', (error) => problems.push(error.message))
    await page.goto(`${server.url}/verify/${sealed.id as string}`)
    expect(await page.textContent('h1')).toBe('Batch release certificate')
    expect(await page.textContent('main')).toContain('Contoso Pharmaceuticals GmbH')

    const valid = await checkFile(page, 'sealed.pdf', sealedFile)
    expect(valid).toContain('Valid seal')
    expect(valid).toContain('This is exactly the file sealed here')
    expect(await page.getAttribute('#result', 'class')).toContain('tone-ok')
    if (SCREENSHOTS) {
      mkdirSync(SCREENSHOTS, { recursive: true })
      await page.screenshot({ path: `${SCREENSHOTS}verify-page.png`, fullPage: true })
      writeFileSync(`${SCREENSHOTS}verified-badge.png`, await download(server, org.apiKey, `/api/v1/documents/${sealed.id as string}/badge`))
    }

    const tampered = sealedFile.slice()
    tampered[200] = (tampered[200] as number) ^ 0x01
    const altered = await checkFile(page, 'tampered.pdf', tampered)
    expect(altered).toContain('Altered')
    expect(await page.getAttribute('#result', 'class')).toContain('tone-bad')

    const upload = await checkFile(page, 'original.pdf', original)
    expect(upload).toContain('No signature')
    expect(upload).toContain('This is the original upload')
    expect(problems).toEqual([])
    await page.close()
  })

  it('passes axe-core (WCAG 2.1 AA) at desktop and phone width', async () => {
    for (const viewport of [
      { width: 1280, height: 800 },
      { width: 375, height: 740 },
    ]) {
      const context = await browser.newContext({ viewport, bypassCSP: true })
      const page = await context.newPage()
      await page.goto(`${server.url}/verify/${sealed.id as string}`)
      await checkFile(page, 'sealed.pdf', sealedFile)
      expect(await accessibilityViolations(page)).toEqual([])
      await context.close()
    }
  })
})
