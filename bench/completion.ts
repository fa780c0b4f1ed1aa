/**
 * Completion → signed PDF: for a 10-page template signed by 2 signers (signature, initials,
 * date and text each), or by 5 in a signing order (1 to 5, each step invited when the one before
 * has signed), the time from the last signer's completing transaction returning to the
 * flattened signed PDF being stored (rendered by the background job the completion kicks), and
 * the last signer's own finish time. In-process through the domain functions, on PGlite (on
 * disk) and PostgreSQL; median and p95 over `runs` documents after 3 warm-ups.
 *
 *   node --import tsx bench/completion.ts      (also run by `npm run bench`)
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { and, desc, eq } from 'drizzle-orm'
import { executeAdminCommand } from '../packages/server/src/admin/commands.ts'
import { loadConfig } from '../packages/server/src/config.ts'
import { openDatabase } from '../packages/server/src/db/client.ts'
import { documents, outboundEmails } from '../packages/server/src/db/schema.ts'
import { operatorActor } from '../packages/server/src/actors/actor.ts'
import { createDocument } from '../packages/server/src/documents/create-document.ts'
import { createServices, type RunningServices } from '../packages/server/src/compose-services.ts'
import { loadSignerContext } from '../packages/server/src/signing/signer-context.ts'
import { finishSigning } from '../packages/server/src/signing/transitions.ts'
import { makePdf } from '../packages/server/test/helpers/pdf.ts'
import { makePng, pngDataUrl } from '../packages/server/test/helpers/signing.ts'
import { benchLogger, noopMailer, type Backend } from './targets.ts'

/** Who signs: how many signers, and whether one after another (orders 1…n) or all at once. */
export interface SignerShape {
  signers: number
  sequential: boolean
}

export interface CompletionBenchResult {
  backend: string
  shape: SignerShape
  runs: number
  /** completion committed → signed PDF stored */
  render_median_ms: number
  render_p95_ms: number
  /** the last signer's finishSigning call, which completes the document */
  finish_median_ms: number
  finish_p95_ms: number
  signed_pdf_bytes: number
}

const PAGES = 10
const WARMUPS = 3
const meta = { ip: '203.0.113.7', userAgent: 'Mozilla/5.0 (bench)' }

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? NaN
const round = (ms: number) => Math.round(ms * 10) / 10

/** Each role's four fields: two columns of signature blocks on the last page (rows of 130 pt), initials on an earlier page. */
function fieldsFor(role: number) {
  const at = (page: number, x: number, y: number, width: number, height: number) => ({ role, page, x, y, width, height })
  const x = 72 + (role % 2) * 260
  const y = 60 + Math.floor(role / 2) * 130
  return [
    { ...at(PAGES, x, y, 200, 60), type: 'signature' },
    { ...at(1 + role, 500, 700, 50, 30), type: 'initials' },
    { ...at(PAGES, x, y + 70, 120, 20), type: 'date' },
    { ...at(PAGES, x, y + 100, 200, 20), type: 'text' },
  ]
}

/** The newest signing link mailed to `email` for the document (the no-op mailer's outbox keeps the links). */
async function signingTokenOf(services: RunningServices, documentId: string, email: string): Promise<string> {
  const mails = await services.db
    .select({ text: outboundEmails.textBody })
    .from(outboundEmails)
    .where(and(eq(outboundEmails.documentId, documentId), eq(outboundEmails.toAddress, email)))
    .orderBy(desc(outboundEmails.createdAt))
  const token = /\/sign\/([A-Za-z0-9_-]{43})/.exec(mails[0]?.text ?? '')?.[1]
  if (!token) throw new Error(`no signing link for ${email}`)
  return token
}

export async function measureCompletion(backend: Backend, runs = 50, shape: SignerShape = { signers: 2, sequential: false }): Promise<CompletionBenchResult> {
  const dir = mkdtempSync(join(tmpdir(), 'signet-bench-'))
  const cleanup = () => rmSync(dir, { recursive: true, force: true })
  const database = await openDatabase(backend.kind === 'postgres' ? { databaseUrl: backend.databaseUrl } : { pgliteDir: join(dir, 'pgdata') })
  // Only the completion's kick may start the renderer: the poll would blur the timing.
  const config = loadConfig({ LOG_LEVEL: 'warn', JOB_POLL_MS: '3600000', MAIL_POLL_MS: '3600000', PUBLIC_URL: 'http://signet.bench' })
  const services = await createServices(config, database, benchLogger('warn'), { mailer: noopMailer })
  try {
    const roles = Array.from({ length: shape.signers }, (_, role) => role)
    const org = (await executeAdminCommand(services, { name: 'org.create', orgName: 'Bench Org', plan: 'business' })) as { org_id: string }
    const template = (await executeAdminCommand(services, {
      name: 'template.create',
      orgId: org.org_id,
      templateName: 'Bench Agreement',
      pdfBase64: Buffer.from(await makePdf(PAGES)).toString('base64'),
      fields: roles.flatMap(fieldsFor),
    })) as { id: string }
    const actor = operatorActor({ orgId: org.org_id, orgName: 'Bench Org', plan: 'business' })
    const signature = pngDataUrl(makePng(600, 200))
    const valuesFor = (role: number): Record<string, string> => ({
      [String(role * 4)]: signature,
      [String(role * 4 + 1)]: signature,
      [String(role * 4 + 3)]: `Signer ${role + 1}, Director`,
    })

    const render: number[] = []
    const finish: number[] = []
    let bytes = 0
    for (let i = 0; i < runs + WARMUPS; i++) {
      const created = await createDocument(services, actor, {
        template_id: template.id,
        signers: roles.map((role) => ({
          role,
          email: `signer${role}@example.com`,
          name: `Signer ${role + 1}`,
          ...(shape.sequential ? { order: role + 1 } : {}),
        })),
      })
      // Everyone but the last signs in role order; in a signing order each link exists only once the step before has signed.
      const signerOf = async (role: number) => loadSignerContext(services.db, await signingTokenOf(services, created.id, `signer${role}@example.com`))
      for (const role of roles.slice(0, -1)) await finishSigning(services, await signerOf(role), { values: valuesFor(role) }, meta)
      const lastRole = roles.length - 1
      const last = await signerOf(lastRole)
      const t0 = performance.now()
      const result = await finishSigning(services, last, { values: valuesFor(lastRole) }, meta)
      const t1 = performance.now()
      await services.finalPdfs.drain()
      const t2 = performance.now()
      const [stored] = await services.db.select({ sha: documents.signedPdfSha256 }).from(documents).where(eq(documents.id, created.id))
      if (result.document_status !== 'completed' || !stored?.sha) throw new Error('the document was not completed and rendered')
      if (i >= WARMUPS) {
        finish.push(t1 - t0)
        render.push(t2 - t1)
        bytes = (await services.blobs.get(stored.sha))?.byteLength ?? 0
      }
    }
    render.sort((a, b) => a - b)
    finish.sort((a, b) => a - b)
    return {
      backend: database.kind === 'postgres' ? 'PostgreSQL' : 'PGlite',
      shape,
      runs,
      render_median_ms: round(percentile(render, 0.5)),
      render_p95_ms: round(percentile(render, 0.95)),
      finish_median_ms: round(percentile(finish, 0.5)),
      finish_p95_ms: round(percentile(finish, 0.95)),
      signed_pdf_bytes: bytes,
    }
  } finally {
    await services.close()
    cleanup()
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const databaseUrl = process.env.DATABASE_URL
  const result = await measureCompletion(databaseUrl ? { kind: 'postgres', databaseUrl } : { kind: 'pglite' })
  process.stdout.write(`${JSON.stringify(result, null, 2)}\n`)
}
