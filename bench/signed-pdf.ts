/**
 * `node --import tsx bench/signed-pdf.ts`: time to render the final signed PDF of a 10-page
 * template signed by 2 signers (signature, initials, date and text each), certificate included.
 * Prints JSON: median and p95 over `runs` renders, after 3 warm-ups, in one process.
 */
import { createHash } from 'node:crypto'
import { pathToFileURL } from 'node:url'
import type { TemplateField } from '../packages/server/src/db/schema.ts'
import { renderSignedPdf, type RenderedFieldValue, type SignedPdfInput } from '../packages/server/src/signing/signed-pdf.ts'
import { makePdf } from '../packages/server/test/helpers/pdf.ts'
import { rgbaPng } from '../packages/server/test/helpers/png.ts'

export interface SignedPdfBenchResult {
  median_ms: number
  p95_ms: number
  runs: number
  pages: number
  signers: number
  output_bytes: number
}

const PAGES = 10
const SIGNERS = 2
const WARMUPS = 3

/** A signature-pad sized RGBA PNG: a wavy ink stroke on transparency, as a browser canvas exports it. */
function signaturePng(seed: number, width: number, height: number): Uint8Array {
  const raw = Buffer.alloc((width * 4 + 1) * height)
  for (let x = 0; x < width; x++) {
    const center = height / 2 + height * 0.3 * Math.sin(x / (25 + seed * 5))
    for (let y = Math.max(0, Math.round(center - 3)); y <= Math.min(height - 1, Math.round(center + 3)); y++) {
      raw.set([20, 30, 90, 255], y * (width * 4 + 1) + 1 + x * 4)
    }
  }
  return rgbaPng(width, height, raw)
}

async function benchInput(): Promise<SignedPdfInput> {
  const originalPdf = await makePdf(PAGES)
  const fields: TemplateField[] = []
  const values: RenderedFieldValue[] = []
  const signers = Array.from({ length: SIGNERS }, (_, i) => {
    const role = i + 1
    // Each signer draws a signature and, separately, initials: four distinct images in all.
    const signature = signaturePng(role, 600, 200)
    const initials = signaturePng(role + SIGNERS, 300, 150)
    const at = (x: number, y: number, width: number, height: number, page = PAGES) => ({ role, page, x, y, width, height, required: true })
    fields.push(
      { ...at(72 + i * 260, 600, 200, 60), type: 'signature' },
      { ...at(500, 720 - i * 40, 50, 30, 1 + i), type: 'initials' },
      { ...at(72 + i * 260, 670, 120, 20), type: 'date' },
      { ...at(72 + i * 260, 700, 200, 20), type: 'text' },
    )
    values.push(
      { type: 'signature', png: signature },
      { type: 'initials', png: initials },
      { type: 'date', text: '2025-03-01' },
      { type: 'text', text: `Signer ${role}, Director` },
    )
    return {
      name: `Signer ${role}`,
      email: `signer${role}@example.com`,
      role,
      authMethod: 'E-mail link + one-time e-mail code',
      ip: `203.0.113.${role}`,
      userAgent: 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36',
      viewedAt: new Date(Date.UTC(2025, 2, 1, 9, role)),
      signedAt: new Date(Date.UTC(2025, 2, 1, 10, role)),
    }
  })
  const types = [
    'document.sent',
    'document.viewed',
    'document.signed',
    'document.viewed',
    'document.signed',
    'document.completed',
    'signed_pdf.created',
  ] as const
  return {
    originalPdf,
    fields,
    values,
    certificate: {
      documentId: '7c9e6679-7425-40de-944b-e07fc1f90ae7',
      title: 'Master services agreement',
      orgName: 'Acme Corp',
      sentBy: 'Acme Corp · API key',
      copiesTo: [],
      originalSha256: createHash('sha256').update(originalPdf).digest('hex'),
      completedAt: new Date(Date.UTC(2025, 2, 1, 10, 3)),
      signers,
      auditTrail: types.map((type, i) => ({
        seq: i + 1,
        type,
        occurredAt: new Date(Date.UTC(2025, 2, 1, 9, i)),
        actor: i < 2 ? null : (signers[(i - 2) % 2]?.email ?? null),
        ip: i < 2 ? null : '203.0.113.1',
      })),
      auditHeadHash: createHash('sha256').update('head').digest('hex'),
    },
  }
}

const percentile = (sorted: number[], p: number): number => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? NaN
const round = (ms: number): number => Math.round(ms * 100) / 100

export async function measureSignedPdfRender(runs = 50): Promise<SignedPdfBenchResult> {
  const input = await benchInput()
  let output: Uint8Array = new Uint8Array()
  for (let i = 0; i < WARMUPS; i++) output = await renderSignedPdf(input)
  const times: number[] = []
  for (let i = 0; i < runs; i++) {
    const start = performance.now()
    output = await renderSignedPdf(input)
    times.push(performance.now() - start)
  }
  times.sort((a, b) => a - b)
  return {
    median_ms: round(percentile(times, 50)),
    p95_ms: round(percentile(times, 95)),
    runs,
    pages: PAGES,
    signers: SIGNERS,
    output_bytes: output.length,
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  console.log(JSON.stringify(await measureSignedPdfRender()))
}
