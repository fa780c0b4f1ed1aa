import { execFileSync } from 'node:child_process'
import { existsSync } from 'node:fs'

/*
 * External oracles (qpdf, poppler, Chromium, OpenSSL, NSS's certutil) come from Debian's packages, which a
 * user's fresh machine may lack: there their tests are skipped with a note. CI
 * installs them and sets SIGNET_REQUIRE_TOOLS=1, which turns a missing tool into a
 * failure so the oracles can never be skipped silently there.
 */

export type ExternalTool = 'qpdf' | 'pdftotext' | 'pdftoppm' | 'pdffonts' | 'pdfsig' | 'chromium' | 'openssl' | 'certutil' | 'pk12util'

const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'

/** Whether the tool is on this machine (benchmarks use this directly: they skip a comparison, never fail). */
export function isInstalled(tool: ExternalTool): boolean {
  if (tool === 'chromium') return existsSync(CHROMIUM_PATH)
  try {
    execFileSync(tool, [tool === 'openssl' ? 'version' : '-v'], { stdio: 'ignore' })
    return true
  } catch (error) {
    // poppler's tools print their version and exit 0 or 99; only "not found" means absent.
    return (error as NodeJS.ErrnoException).code !== 'ENOENT'
  }
}

/** True when every tool is present; false (tests should skip) when one is missing outside CI; throws in CI. */
export function haveTools(...tools: ExternalTool[]): boolean {
  const missing = tools.filter((tool) => !isInstalled(tool))
  if (missing.length === 0) return true
  const message = `missing ${missing.join(', ')} (Debian: apt-get install -y qpdf poppler-utils chromium libnss3-tools openssl)`
  if (process.env.SIGNET_REQUIRE_TOOLS === '1') throw new Error(`SIGNET_REQUIRE_TOOLS=1 but ${message}`)
  console.warn(`skipping tests that need external tools: ${message}`)
  return false
}

export const chromiumPath = CHROMIUM_PATH
