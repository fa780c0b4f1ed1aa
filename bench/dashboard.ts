/**
 * The dashboard's budgets (issue 13): its initial JavaScript (gzip, without the pdf.js worker
 * and the chunks loaded later), the time from navigation to the documents list rendered with
 * 1,000 documents in the org, and the sign-in request with argon2id.
 *
 * Each figure comes with a baseline measured in the same run: the initial JavaScript against
 * the issue's 250 KB budget; the documents list against an empty org's list in the same
 * browser (what rendering 1,000 documents' first page adds); the sign-in against a request
 * with the same session machinery but no password hash (GET /api/v1/me).
 */
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { gzipSync } from 'node:zlib'
import { launchChromium } from '../packages/server/test/helpers/browser.ts'
import { executeAdminCommand } from '../packages/server/src/admin/commands.ts'
import { createDocument } from '../packages/server/src/documents/create-document.ts'
import { operatorActor } from '../packages/server/src/actors/actor.ts'
import { makePdf } from '../packages/server/test/helpers/pdf.ts'
import { startSignet, type Backend } from './targets.ts'

const DIST = fileURLToPath(new URL('../packages/web/dist/', import.meta.url))
/** The budgets. */
export const INITIAL_JS_BUDGET_KB = 250
export const DOCUMENTS_LIST_BUDGET_MS = 1000
const DOCUMENTS = 1000
const PAGE_LOADS = 7
const SIGN_INS = 15
const PASSWORD = 'bench password for the dashboard'

export interface DashboardBenchResult {
  backend: string
  initial_js_gzip_kb: number
  initial_js_files: number
  documents_list_median_ms: number
  empty_list_median_ms: number
  sign_in_median_ms: number
  me_median_ms: number
}

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN
}
const round = (n: number, digits = 1): number => Math.round(n * 10 ** digits) / 10 ** digits

/** The scripts index.html loads before anything is shown: its module entry and the module preloads. */
export function initialJavaScript(): { gzipBytes: number; files: string[] } {
  const html = readFileSync(`${DIST}index.html`, 'utf8')
  const files = [...html.matchAll(/<(?:script[^>]*\bsrc|link[^>]*rel="modulepreload"[^>]*\bhref)="\/app\/([^"]+\.js)"/g)].map((m) => m[1] ?? '')
  const gzipBytes = files.reduce((sum, file) => sum + gzipSync(readFileSync(`${DIST}${file}`), { level: 9 }).byteLength, 0)
  return { gzipBytes, files }
}

interface BenchUser {
  email: string
  orgId: string
}

async function addUser(services: Parameters<typeof executeAdminCommand>[0], label: string): Promise<BenchUser> {
  const org = (await executeAdminCommand(services, { name: 'org.create', orgName: `Bench ${label}`, plan: 'business' })) as { org_id: string }
  const email = `${label}@bench.example`
  await executeAdminCommand(services, {
    name: 'user.create',
    email,
    userName: `Bench ${label}`,
    password: PASSWORD,
    orgId: org.org_id,
    role: 'owner',
    operator: false,
  })
  return { email, orgId: org.org_id }
}

async function signIn(url: string, email: string): Promise<{ cookie: string; ms: number }> {
  const t0 = performance.now()
  const response = await fetch(`${url}/api/v1/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: url },
    body: JSON.stringify({ email, password: PASSWORD }),
  })
  const ms = performance.now() - t0
  if (response.status !== 200) throw new Error(`sign-in answered ${response.status}: ${await response.text()}`)
  await response.arrayBuffer()
  const cookie = /signet_session=([^;]+)/.exec(response.headers.getSetCookie().join('\n'))?.[1]
  if (!cookie) throw new Error('sign-in set no session cookie')
  return { cookie, ms }
}

/** Milliseconds from navigation to the documents list's first row, in a fresh browser context each time. */
async function documentsListTimes(url: string, cookie: string, browser: Awaited<ReturnType<typeof launchChromium>>, expectRows: boolean): Promise<number[]> {
  const times: number[] = []
  for (let i = 0; i < PAGE_LOADS; i++) {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } })
    await context.addCookies([{ name: 'signet_session', value: cookie, url }])
    const page = await context.newPage()
    await page.goto(`${url}/app/documents`, { waitUntil: 'commit' })
    await page.waitForSelector(expectRows ? 'ul[aria-label="Documents"] > li' : 'text=/no documents/i', { timeout: 30_000 })
    times.push(await page.evaluate(() => performance.now()))
    await context.close()
  }
  // The first load also compiles the bundle in a cold browser: reported runs are the warm ones.
  return times.slice(1)
}

export async function measureDashboard(backend: Backend): Promise<DashboardBenchResult> {
  const target = await startSignet(backend, 'warn')
  const browser = await launchChromium()
  try {
    const { services, url } = target
    const full = await addUser(services, 'full')
    const empty = await addUser(services, 'empty')
    const template = (await executeAdminCommand(services, {
      name: 'template.create',
      orgId: full.orgId,
      templateName: 'Bench NDA',
      pdfBase64: Buffer.from(await makePdf(1)).toString('base64'),
    })) as { id: string }
    const actor = operatorActor({ orgId: full.orgId, orgName: 'Bench full', plan: 'business' })
    for (let i = 0; i < DOCUMENTS; i++) {
      await createDocument(services, actor, { template_id: template.id, signer: { email: `signer${i}@example.com`, name: `Signer ${i}` } })
    }

    const signIns: number[] = []
    let cookie = ''
    for (let i = 0; i < SIGN_INS; i++) {
      const signedIn = await signIn(url, full.email)
      signIns.push(signedIn.ms)
      cookie = signedIn.cookie
    }
    const me: number[] = []
    for (let i = 0; i < SIGN_INS; i++) {
      const t0 = performance.now()
      const response = await fetch(`${url}/api/v1/me`, { headers: { cookie: `signet_session=${cookie}` } })
      await response.arrayBuffer()
      me.push(performance.now() - t0)
    }
    const emptyCookie = (await signIn(url, empty.email)).cookie
    const list = await documentsListTimes(url, cookie, browser, true)
    const emptyList = await documentsListTimes(url, emptyCookie, browser, false)
    const js = initialJavaScript()
    return {
      backend: target.kind === 'postgres' ? 'PostgreSQL' : 'PGlite',
      initial_js_gzip_kb: round(js.gzipBytes / 1024),
      initial_js_files: js.files.length,
      documents_list_median_ms: round(median(list)),
      empty_list_median_ms: round(median(emptyList)),
      sign_in_median_ms: round(median(signIns)),
      me_median_ms: round(median(me)),
    }
  } finally {
    await browser.close()
    await target.close()
  }
}
