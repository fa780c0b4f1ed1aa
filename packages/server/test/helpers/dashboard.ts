import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { AxeBuilder } from '@axe-core/playwright'
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core'
import { expect } from 'vitest'
import type { TestServer } from './test-server.ts'

export const DESKTOP = { width: 1280, height: 800 }
export const PHONE = { width: 390, height: 844 }

/** SIGNET_SCREENSHOTS=1 refreshes docs/screenshots/ (CI leaves them as committed). */
export const SCREENSHOT_DIR = process.env.SIGNET_SCREENSHOTS === '1' ? new URL('../../../../docs/screenshots/', import.meta.url).pathname : undefined

/**
 * A browser context for the dashboard that records what the page itself complains about:
 * uncaught errors and Content-Security-Policy violations (the real CSP applies: no bypass).
 */
export async function dashboardContext(browser: Browser, viewport = DESKTOP): Promise<{ context: BrowserContext; problems: string[] }> {
  const context = await browser.newContext({ viewport })
  const problems: string[] = []
  context.on('weberror', (error) => problems.push(`page error: ${error.error().message}`))
  context.on('console', (message) => {
    if (message.type() === 'error' && /Content Security Policy|Refused to/i.test(message.text())) problems.push(`CSP: ${message.text()}`)
  })
  return { context, problems }
}

/** dashboardContext already signed in with a session cookie (helpers/session.ts), waiting up to 15 s for what a person would see. */
export async function signedInDashboardContext(
  browser: Browser,
  server: TestServer,
  sessionCookie: string,
): Promise<{ context: BrowserContext; problems: string[] }> {
  const { context, problems } = await dashboardContext(browser)
  context.setDefaultTimeout(15_000)
  await context.addCookies([{ name: 'signet_session', value: sessionCookie, url: server.url, httpOnly: true, sameSite: 'Lax' }])
  return { context, problems }
}

/** Opens an /app/ path and waits for its h1 (every page has one). */
export async function openDashboardPage(page: Page, server: TestServer, path: string, heading?: string | RegExp): Promise<void> {
  await page.goto(`${server.url}/app${path}`)
  try {
    const h1 = page.locator('h1').first()
    if (heading) await expect.poll(() => h1.textContent({ timeout: 20_000 }), { timeout: 20_000 }).toMatch(heading)
    else await h1.waitFor({ timeout: 20_000 })
    // Let queries settle: no "Loading…" status left.
    await page.waitForFunction(() => !document.querySelector('[role="status"] svg.animate-spin'), undefined, { timeout: 20_000 })
  } catch (error) {
    // Say what the page shows instead (an error state, the login page…): a bare timeout explains nothing.
    const shown = (
      await page
        .locator('body')
        .innerText()
        .catch(() => '')
    )
      .replace(/\s+/g, ' ')
      .slice(0, 600)
    throw new Error(`${path} did not show ${String(heading ?? 'its heading')} (at ${page.url()}); the page shows: ${shown}`, { cause: error })
  }
}

/** axe-core's WCAG 2.1 A/AA findings of serious or critical impact, as "rule: targets" lines. */
export async function seriousAccessibilityViolations(page: Page): Promise<string[]> {
  const results = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']).analyze()
  return results.violations
    .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
    .map((violation) => `${violation.id}: ${violation.nodes.map((node) => node.target.join(' ')).join(', ')}`)
}

/**
 * With SIGNET_SCREENSHOTS=1: docs/screenshots/dashboard-<name>-desktop.png and -phone.png of
 * the page at `path`, in the session of `context` (the phone shot uses a copy of its cookies).
 */
export async function screenshotDashboardPage(browser: Browser, context: BrowserContext, server: TestServer, path: string, name: string): Promise<void> {
  if (!SCREENSHOT_DIR) return
  mkdirSync(SCREENSHOT_DIR, { recursive: true })
  const storageState = await context.storageState()
  for (const [label, viewport] of [
    ['desktop', DESKTOP],
    ['phone', PHONE],
  ] as const) {
    const shot = await browser.newContext({ viewport, storageState })
    const page = await shot.newPage()
    await openDashboardPage(page, server, path)
    await page.screenshot({ path: join(SCREENSHOT_DIR, `dashboard-${name}-${label}.png`) })
    await shot.close()
  }
}

/**
 * With SIGNET_SCREENSHOTS=1: docs/screenshots/dashboard-<name>-desktop.png and -phone.png of
 * `page` as it is now (a form filled in, which screenshotDashboardPage would open afresh), no
 * control focused, with `focus.on` scrolled up below the sticky top bar on a phone only (where the
 * cards stack) or at both widths (what is below the fold even on a desktop).
 */
export async function screenshotPageAsIs(page: Page, name: string, focus?: { on: Locator; widths: 'phone' | 'both' }): Promise<void> {
  if (!SCREENSHOT_DIR) return
  mkdirSync(SCREENSHOT_DIR, { recursive: true })
  await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur())
  for (const [label, viewport] of [
    ['desktop', DESKTOP],
    ['phone', PHONE],
  ] as const) {
    await page.setViewportSize(viewport)
    await page.evaluate(() => window.scrollTo(0, 0))
    if (focus && (focus.widths === 'both' || label === 'phone'))
      await focus.on.evaluate((element) => {
        element.scrollIntoView({ block: 'start' })
        window.scrollBy(0, -80) // below the sticky top bar
      })
    await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))))
    await page.screenshot({ path: join(SCREENSHOT_DIR, `dashboard-${name}-${label}.png`) })
  }
  await page.setViewportSize(DESKTOP)
}

/** The link of the last mail to `to` whose text contains `pathPart`, moved onto the test server's origin. */
export async function linkFromMail(server: TestServer, to: string, pathPart: string, count = 1): Promise<string> {
  const messages = await server.mail.waitFor(to, count)
  const text = messages.map((message) => message.text ?? '').join('\n')
  const links = [...text.matchAll(/https?:\/\/\S+/g)].map(([link]) => link).filter((link) => link.includes(pathPart))
  const link = links.at(-1)
  if (!link) throw new Error(`no ${pathPart} link in the mail to ${to}:\n${text}`)
  const url = new URL(link)
  return `${server.url}${url.pathname}${url.search}`
}

/** Reads the signing secret the Webhooks page shows once after an endpoint is added, then closes that dialog. */
export async function takeShownSigningSecret(page: Page): Promise<string> {
  const shown = page.getByRole('dialog', { name: "Your endpoint's signing secret" })
  const secret = (await shown.getByTestId('shown-secret').textContent())?.trim() ?? ''
  expect(secret).toMatch(/^whsec_/)
  await shown.getByRole('button', { name: 'Done' }).first().click()
  return secret
}

/** Presses the Webhooks page's "Send test event"; the returned line reads "Delivered: …" or "Not delivered: …" once the endpoint answered. */
export async function sendTestEvent(page: Page): Promise<Locator> {
  await page.getByRole('button', { name: 'Send test event' }).click()
  return page.getByRole('status').filter({ hasText: /Delivered|Not delivered/ })
}
