import { createRequire } from 'node:module'
import { chromium, type Browser, type Page } from 'playwright-core'
import { chromiumPath } from '../../../../test-support/tools.ts'

/** Debian's Chromium, headless, never a downloaded browser. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: chromiumPath,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run'],
  })
}

interface AxeViolation {
  id: string
  impact: string | null
  nodes: { target: string[] }[]
}

/**
 * axe-core's WCAG 2.1 A/AA violations of serious or critical impact on the page as it is now.
 * axe is injected as a script tag: open the page in a context with bypassCSP.
 */
export async function accessibilityViolations(page: Page): Promise<string[]> {
  await page.addScriptTag({ path: createRequire(import.meta.url).resolve('axe-core/axe.min.js') })
  const violations = await page.evaluate<AxeViolation[]>(
    "axe.run(document, { runOnly: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] }).then((r) => r.violations)",
  )
  return violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`)
}
