/**
 * Sealing and verifying, in one run on one machine:
 *  - seal: applying the instance seal (PAdES B-T, built-in TSA) to a 10-page PDF, and a
 *    whole self-seal request (certificate appended + standalone certificate, both sealed);
 *  - verify: checking a sealed 50 MB PDF, with a DSS update after the seal, with @signet/verify,
 *    against `openssl dgst -sha256` hashing the same file (the floor: any verifier must hash it)
 *    and poppler's `pdfsig`.
 *
 *   node --import tsx bench/seal.ts      (also run by `npm run bench`)
 */
import { execFileSync } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { PDF } from '@libpdf/core'
import { verifyPdf } from '@signet/verify'
import { executeAdminCommand } from '../packages/server/src/admin/commands.ts'
import { loadConfig } from '../packages/server/src/config.ts'
import { openDatabase } from '../packages/server/src/db/client.ts'
import { operatorActor } from '../packages/server/src/actors/actor.ts'
import { requestSeal } from '../packages/server/src/seal/request-seal.ts'
import { createServices } from '../packages/server/src/compose-services.ts'
import { makePdf } from '../packages/server/test/helpers/pdf.ts'
import { isInstalled } from '../test-support/tools.ts'
import { benchLogger, noopMailer } from './targets.ts'

export interface SealBenchResult {
  runs: number
  pages: number
  seal_median_ms: number
  seal_p95_ms: number
  request_median_ms: number
  request_p95_ms: number
}

export interface VerifyBenchResult {
  file_mb: number
  runs: number
  verdict: string
  /** in-process: verifyPdf on the bytes in memory (as the browser page has them) */
  verify_median_ms: number
  /** the same, on the sealed file before its DSS update: no change analysis to do */
  verify_before_update_median_ms: number
  /** in-process: reading the file, then verifyPdf */
  read_verify_median_ms: number
  /** `npx signet-verify` as a process, like the tools it is compared with */
  cli_median_ms: number
  openssl_median_ms: number
  pdfsig_median_ms: number | null
}

const PAGES = 10
const WARMUPS = 3
const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? NaN
const round = (ms: number) => Math.round(ms * 10) / 10
const median = (samples: number[]) =>
  round(
    percentile(
      [...samples].sort((a, b) => a - b),
      0.5,
    ),
  )
const p95 = (samples: number[]) =>
  round(
    percentile(
      [...samples].sort((a, b) => a - b),
      0.95,
    ),
  )

async function time<T>(work: () => Promise<T> | T): Promise<[number, T]> {
  const start = performance.now()
  const result = await work()
  return [performance.now() - start, result]
}

/** A default instance (generated PKI, built-in TSA) on an in-memory database, with a verified org. */
async function sealingInstance() {
  const config = loadConfig({ LOG_LEVEL: 'silent', PUBLIC_URL: 'http://bench.test', RATE_LIMITS: 'off' })
  const services = await createServices(config, await openDatabase({ inMemory: true }), benchLogger('silent'), { mailer: noopMailer })
  const { org_id: orgId } = (await executeAdminCommand(services, { name: 'org.create', orgName: 'Bench', plan: 'business' })) as { org_id: string }
  await executeAdminCommand(services, { name: 'org.verify-identity', orgId, legalName: 'Bench Ltd' })
  return { services, actor: operatorActor({ orgId, orgName: 'Bench', plan: 'business' }) }
}

export async function measureSeal(runs: number): Promise<SealBenchResult> {
  const { services, actor } = await sealingInstance()
  try {
    const pdf = await makePdf(PAGES)
    const seals: number[] = []
    const requests: number[] = []
    for (let i = 0; i < WARMUPS + runs; i++) {
      // Each call hands its bytes over to a PDF worker: give each its own copy, made outside the timing.
      const [toSeal, upload] = [new Uint8Array(pdf), new Uint8Array(pdf)]
      const [sealMs] = await time(() => services.sealer.seal(toSeal, { reason: 'bench' }))
      const [requestMs] = await time(() => requestSeal(services, actor, { pdf: upload, title: `Bench ${i}` }))
      if (i >= WARMUPS) {
        seals.push(sealMs)
        requests.push(requestMs)
      }
    }
    return { runs, pages: PAGES, seal_median_ms: median(seals), seal_p95_ms: p95(seals), request_median_ms: median(requests), request_p95_ms: p95(requests) }
  } finally {
    await services.close()
  }
}

/** Pages of the large file: enough objects that the change analysis has a page tree, fonts and contents to map. */
export const LARGE_PDF_PAGES = 50

/**
 * A PDF of about `megabytes` MB (pages of text and an incompressible attachment) sealed by the
 * instance, then extended by a validation-data (DSS) update as a B-LT upgrade does — so the
 * verifier's change analysis maps the signed revision and checks the update. Also returns
 * the sealed file before that update.
 */
async function largeSealedPdf(megabytes: number): Promise<{ sealed: Uint8Array; updated: Uint8Array }> {
  const { services } = await sealingInstance()
  try {
    const pdf = await PDF.load(await makePdf(LARGE_PDF_PAGES))
    pdf.addAttachment('payload.bin', randomBytes(megabytes * 1024 * 1024))
    const sealed = (await services.sealer.seal(await pdf.save(), { reason: 'bench' })).bytes
    const offline = { getOCSP: () => Promise.resolve(null), getCRL: () => Promise.resolve(null) }
    const updated = (await (await PDF.load(sealed)).addValidationData({ revocationProvider: offline })).bytes
    return { sealed, updated }
  } finally {
    await services.close()
  }
}

function timeProcess(command: string, args: string[]): number {
  const start = performance.now()
  try {
    execFileSync(command, args, { stdio: 'ignore' })
  } catch {
    // pdfsig and signet-verify report verdicts through exit codes; only the time matters here.
  }
  return performance.now() - start
}

export async function measureVerify(megabytes: number, runs: number): Promise<VerifyBenchResult> {
  const dir = mkdtempSync(join(tmpdir(), 'signet-bench-verify-'))
  try {
    const file = join(dir, 'sealed.pdf')
    const beforeUpdate = join(dir, 'sealed-before-update.pdf')
    const { sealed, updated } = await largeSealedPdf(megabytes)
    writeFileSync(file, updated)
    writeFileSync(beforeUpdate, sealed)
    const cli = join(import.meta.dirname, '../packages/verify/bin/signet-verify.mjs')
    // Each tool in its own batch (the first run of each only warms the page cache and the JIT), so
    // one tool's garbage and cache churn does not land on another's measurements.
    const samples = async (measure: () => Promise<number> | number): Promise<number[]> => {
      const times: number[] = []
      for (let i = 0; i < 1 + runs; i++) times.push(await measure())
      return times.slice(1)
    }
    let verdict = ''
    const inMemory = async (path: string): Promise<number> => {
      const bytes = readFileSync(path)
      const [ms, result] = await time(() => verifyPdf(bytes))
      verdict = result.verdict
      return ms
    }
    const withoutUpdate = await samples(() => inMemory(beforeUpdate))
    const ours = await samples(() => inMemory(file))
    const readAndOurs = await samples(async () => (await time(async () => verifyPdf(readFileSync(file))))[0])
    const ourCli = await samples(() => timeProcess(process.execPath, [cli, file]))
    const openssl = await samples(() => timeProcess('openssl', ['dgst', '-sha256', file]))
    const pdfsig = isInstalled('pdfsig') ? await samples(() => timeProcess('pdfsig', ['-no-ocsp', file])) : null
    return {
      file_mb: megabytes,
      runs,
      verdict,
      verify_median_ms: median(ours),
      verify_before_update_median_ms: median(withoutUpdate),
      read_verify_median_ms: median(readAndOurs),
      cli_median_ms: median(ourCli),
      openssl_median_ms: median(openssl),
      pdfsig_median_ms: pdfsig ? median(pdfsig) : null,
    }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  console.log(JSON.stringify({ seal: await measureSeal(20), verify: await measureVerify(50, 5) }, null, 2))
}
