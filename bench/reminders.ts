/**
 * The reminder sweep at scale (issue 22): 100,000 documents out for signature, one signer each,
 * a reminder schedule on all of them and `due` of them due now. Measures the sweep that sends the
 * due reminders (each document in its own transaction, locked with SKIP LOCKED), and how long a
 * signer's finish takes on a due document while that sweep runs, against the same on an idle
 * database: the sweep must not hold a lock that makes signing wait.
 *
 *   node --import tsx bench/reminders.ts      (also run by `npm run bench`)
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { sql } from 'drizzle-orm'
import { executeAdminCommand } from '../packages/server/src/admin/commands.ts'
import { operatorActor } from '../packages/server/src/actors/actor.ts'
import { createServices, type RunningServices } from '../packages/server/src/compose-services.ts'
import { loadConfig } from '../packages/server/src/config.ts'
import { openDatabase } from '../packages/server/src/db/client.ts'
import { createDocument } from '../packages/server/src/documents/create-document.ts'
import { sendDueReminders } from '../packages/server/src/documents/reminders.ts'
import { randomToken, sha256Hex } from '../packages/server/src/lib/crypto.ts'
import { loadSignerContext } from '../packages/server/src/signing/signer-context.ts'
import { finishSigning } from '../packages/server/src/signing/transitions.ts'
import { makePdf } from '../packages/server/test/helpers/pdf.ts'
import { pngDataUrl } from '../packages/server/test/helpers/signing.ts'
import { benchLogger, noopMailer, type Backend } from './targets.ts'

export interface ReminderSweepResult {
  backend: string
  open_documents: number
  due: number
  sweep_seconds: number
  reminders_per_second: number
  /** finishSigning on a document whose reminder is due, while the sweep runs / on an idle database (median ms) */
  finish_during_sweep_ms: number
  finish_idle_ms: number
}

const DAY_MS = 86_400_000
const SIGNINGS = 15
const meta = { ip: '203.0.113.7', userAgent: 'Mozilla/5.0 (bench)' }
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN

/** `count` open documents of the template with one invited signer each, made in SQL; `due` of them due at `now`. */
async function seedOpenDocuments(services: RunningServices, orgId: string, templateId: string, count: number, due: number, now: Date) {
  const schedule = JSON.stringify({ first_after_days: 1, every_days: 1, max: 3 })
  const sent = new Date(now.getTime() - DAY_MS).toISOString()
  const dueAt = new Date(now.getTime() - 60_000).toISOString()
  const later = new Date(now.getTime() + DAY_MS).toISOString()
  await services.db.execute(sql`
    insert into documents (id, org_id, template_id, title, status, reminders, created_at, updated_at)
    select md5('bench-doc-' || i)::uuid, ${orgId}::uuid, ${templateId}::uuid, 'Bench ' || i, 'sent', ${schedule}::jsonb, ${sent}::timestamptz, ${sent}::timestamptz
    from generate_series(1, ${count}::int) as i`)
  await services.db.execute(sql`
    insert into signers (document_id, role, position, email, token_hash, invited_at, next_reminder_at)
    select md5('bench-doc-' || i)::uuid, 0, 0, 'signer' || i || '@example.com', md5('bench-token-' || i) || md5('bench-token2-' || i),
      ${sent}::timestamptz, case when i <= ${due}::int then ${dueAt}::timestamptz else ${later}::timestamptz end
    from generate_series(1, ${count}::int) as i`)
}

export async function measureReminderSweep(backend: Backend, openDocuments = 100_000, due = 1_000): Promise<ReminderSweepResult> {
  const dir = mkdtempSync(join(tmpdir(), 'signet-bench-'))
  const database = await openDatabase(backend.kind === 'postgres' ? { databaseUrl: backend.databaseUrl } : { pgliteDir: join(dir, 'pgdata') })
  // The loops stay idle: only the sweeps this bench runs may send.
  const config = loadConfig({ LOG_LEVEL: 'warn', JOB_POLL_MS: '3600000', MAIL_POLL_MS: '3600000', PUBLIC_URL: 'http://signet.bench' })
  const services = await createServices(config, database, benchLogger('warn'), { mailer: noopMailer })
  try {
    const org = (await executeAdminCommand(services, { name: 'org.create', orgName: 'Bench Org', plan: 'business' })) as { org_id: string }
    const template = (await executeAdminCommand(services, {
      name: 'template.create',
      orgId: org.org_id,
      templateName: 'Bench Agreement',
      pdfBase64: Buffer.from(await makePdf(1)).toString('base64'),
    })) as { id: string }
    const now = new Date()
    await seedOpenDocuments(services, org.org_id, template.id, openDocuments, due, now)

    // Documents signed during the sweep: sent like any other, their reminders due now too.
    const actor = operatorActor({ orgId: org.org_id, orgName: 'Bench Org', plan: 'business' })
    const signingContexts = async () => {
      const contexts = []
      for (let i = 0; i < SIGNINGS; i++) {
        const created = await createDocument(services, actor, { template_id: template.id, signer: { email: `late${i}@example.com` } })
        const token = randomToken(32)
        const dueAt = new Date(now.getTime() - 60_000).toISOString()
        await services.db.execute(
          sql`update signers set token_hash = ${sha256Hex(token)}, next_reminder_at = ${dueAt}::timestamptz where document_id = ${created.id}::uuid`,
        )
        await services.db.execute(
          sql`update documents set reminders = ${JSON.stringify({ first_after_days: 1, every_days: 1, max: 3 })}::jsonb where id = ${created.id}::uuid`,
        )
        contexts.push(await loadSignerContext(services.db, token))
      }
      return contexts
    }
    const finishAll = async (contexts: Awaited<ReturnType<typeof signingContexts>>) => {
      const times: number[] = []
      for (const context of contexts) {
        const t0 = performance.now()
        await finishSigning(services, context, { values: { '0': pngDataUrl() } }, meta)
        times.push(performance.now() - t0)
      }
      return times
    }

    await finishAll(await signingContexts()) // warm-up
    const idle = await finishAll(await signingContexts())
    const during = await signingContexts()
    const clock = { now: () => now }
    const t0 = performance.now()
    const sweep = sendDueReminders({ db: services.db, clock, config })
    const [sent, busy] = await Promise.all([sweep, finishAll(during)])
    const seconds = (performance.now() - t0) / 1000
    return {
      backend: database.kind === 'postgres' ? 'PostgreSQL' : 'PGlite',
      open_documents: openDocuments + SIGNINGS,
      due: sent,
      sweep_seconds: Math.round(seconds * 100) / 100,
      reminders_per_second: Math.round(sent / seconds),
      finish_during_sweep_ms: Math.round(median(busy) * 10) / 10,
      finish_idle_ms: Math.round(median(idle) * 10) / 10,
    }
  } finally {
    await services.close()
    rmSync(dir, { recursive: true, force: true })
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const databaseUrl = process.env.DATABASE_URL
  const result = await measureReminderSweep(databaseUrl ? { kind: 'postgres', databaseUrl } : { kind: 'pglite' })
  process.stdout.write(`${JSON.stringify(result, null, 2)}\n`)
}
