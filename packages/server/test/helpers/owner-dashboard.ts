import type { Browser, BrowserContext, Locator, Page } from 'playwright-core'
import { expect } from 'vitest'
import { launchChromium } from './browser.ts'
import { seriousAccessibilityViolations, signedInDashboardContext } from './dashboard.ts'
import { createSignedInUser } from './session.ts'
import { richFields } from './signing.ts'
import { startTestServer, type TestServer } from './test-server.ts'

/** A walk through a few pages with axe on each, on a busy 2-core machine. */
export const BROWSER_WALK = { timeout: 120_000 }

/** A Pro workspace with one template, and its owner signed in to the dashboard in Debian's Chromium. */
export interface OwnerDashboard {
  server: TestServer
  orgId: string
  apiKey: string
  templateId: string
  browser: Browser
  context: BrowserContext
  page: Page
  /** Console errors and page errors seen so far. */
  problems: string[]
  /** The page's section under the heading `heading`. */
  card(heading: string): Locator
  /** No serious or critical axe-core violation on the page as it is now. */
  expectAccessible(what: string): Promise<void>
  close(): Promise<void>
}

/**
 * Starts a test server with the workspace `orgName` (Pro) holding the template `templateName`,
 * whose rich fields (helpers/signing.ts) are for `parties` parties, and opens a page signed in as
 * its owner Maren Holt.
 */
export async function openOwnerDashboard(orgName: string, templateName: string, parties: number): Promise<OwnerDashboard> {
  const server = await startTestServer()
  const { orgId, apiKey } = await server.createOrg('pro', orgName)
  const templateId = (await server.createTemplate(orgId, { name: templateName, fields: richFields(Array.from({ length: parties }, (_, role) => role)) })).id
  const owner = await createSignedInUser(server, { orgId, role: 'owner', name: 'Maren Holt' })
  const browser = await launchChromium()
  const { context, problems } = await signedInDashboardContext(browser, server, owner.cookie)
  const page = await context.newPage()
  return {
    server,
    orgId,
    apiKey,
    templateId,
    browser,
    context,
    page,
    problems,
    card: (heading) => page.locator('section', { has: page.getByRole('heading', { name: heading, exact: true }) }),
    expectAccessible: async (what) => expect(await seriousAccessibilityViolations(page), what).toEqual([]),
    close: async () => {
      await browser.close()
      await server.close()
    },
  }
}
