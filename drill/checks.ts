/**
 * What the drill proves, from the database, the receivers, HAProxy's log and the clients'
 * outcomes, as rows of a table: check, expected, actual, pass or FAIL.
 */
import { spawnSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import pg from 'pg'
import type { MailReceiver } from './receivers.ts'
import type { WebhookReceiver } from './receivers.ts'
import { sleep } from './cluster.ts'
import type { FaultWindow } from './faults.ts'
import type { KeyedCreate, LoadState } from './load.ts'
import { isError, type Recorder } from './recorder.ts'

export interface Row {
  check: string
  expected: string
  actual: string
  pass: boolean
}

const row = (check: string, expected: string | number, actual: string | number, pass: boolean): Row => ({
  check,
  expected: String(expected),
  actual: String(actual),
  pass,
})

const INVITATION_LINK = /\/sign\/([A-Za-z0-9_-]{43})/

async function query<T extends pg.QueryResultRow>(databaseUrl: string, text: string, values: unknown[] = []): Promise<T[]> {
  const client = new pg.Client({ connectionString: databaseUrl })
  await client.connect()
  try {
    return (await client.query<T>(text, values)).rows
  } finally {
    await client.end()
  }
}

/**
 * Waits (at most `ms`) until the outbox, the webhook queue and the signed-PDF renderer have nothing
 * left due; says what is still waiting every 15 s (a lease held by a node that died shows here).
 */
export async function settle(databaseUrl: string, orgId: string, ms: number, say: (text: string) => void): Promise<number> {
  const started = Date.now()
  let saidAt = started
  for (;;) {
    const [left] = await query<{ mail: number; hooks: number; pdfs: number }>(
      databaseUrl,
      `select (select count(*) from outbound_emails where status = 'pending')::int as mail,
              (select count(*) from webhook_deliveries where status = 'pending')::int as hooks,
              (select count(*) from documents where org_id = $1 and status = 'completed' and (signed_pdf_sha256 is null or sealed_at is null) and render_failed_at is null)::int as pdfs`,
      [orgId],
    )
    if (!left || left.mail + left.hooks + left.pdfs === 0 || Date.now() - started > ms) return Date.now() - started
    if (Date.now() - saidAt >= 15_000) {
      saidAt = Date.now()
      say(`still waiting: ${left.mail} e-mails, ${left.hooks} webhook deliveries, ${left.pdfs} signed PDFs`)
    }
    await sleep(500)
  }
}

/** Documents per title (keyed and MCP creates carry a unique title). */
async function countByTitle(databaseUrl: string, orgId: string): Promise<Map<string, number>> {
  const rows = await query<{ title: string; n: number }>(databaseUrl, `select title, count(*)::int as n from documents where org_id = $1 group by title`, [
    orgId,
  ])
  return new Map(rows.map((r) => [r.title, r.n]))
}

/** How long before a crash a request may have been sent and still be in flight when it came. */
const IN_FLIGHT_MS = 15_000

export async function documentChecks(databaseUrl: string, orgId: string, state: LoadState, faults: FaultWindow[]): Promise<Row[]> {
  const byTitle = await countByTitle(databaseUrl, orgId)
  const answered = state.keyed.filter((k) => k.lastStatus === 201)
  // A create whose node died with it holds its key unanswered (the server reports it as interrupted
  // after two minutes: whether it took effect is unknown, so it is never run again).
  const crashes = faults.filter((f) => f.name !== 'rolling restart')
  const cutByCrash = (k: KeyedCreate) => crashes.some((f) => k.firstSentAt >= f.startedAt - IN_FLIGHT_MS && k.firstSentAt <= f.endedAt)
  const unanswered = state.keyed.filter((k) => k.lastStatus !== 201 && !cutByCrash(k))
  const interrupted = state.keyed.filter((k) => k.lastStatus !== 201 && cutByCrash(k))
  const twice = [...state.keyed, ...state.mcp].filter((k) => (byTitle.get(k.title) ?? 0) > 1)
  const answeredOnce = answered.filter((k) => byTitle.get(k.title) === 1).length
  const mcpOk = state.mcp.filter((m) => m.outcome === 'ok')
  const mcpOnce = mcpOk.filter((m) => byTitle.get(m.title) === 1).length
  const bulkRows = await query<{ bulk_recipient: string; n: number }>(
    databaseUrl,
    `select bulk_recipient, count(*)::int as n from documents where org_id = $1 and bulk_recipient is not null group by bulk_recipient`,
    [orgId],
  )
  const bulkCount = new Map(bulkRows.map((r) => [r.bulk_recipient, r.n]))
  const bulkAnswered = state.bulks.filter((b) => b.lastStatus === 201).flatMap((b) => b.recipients)
  const bulkOnce = bulkAnswered.filter((email) => bulkCount.get(email) === 1).length
  const bulkTwice = bulkRows.filter((r) => r.n > 1).length
  const unansweredBulks = state.bulks.filter((b) => b.lastStatus !== 201).map((b) => b.lastStatus)
  const stuck = unanswered.map((k) => `${k.lastStatus}→${byTitle.get(k.title) ?? 0} doc`)
  return [
    row('REST creates answered 201: exactly one document each', answered.length, answeredOnce, answeredOnce === answered.length && answered.length > 0),
    row('documents created twice (same Idempotency-Key or MCP call)', 0, twice.length, twice.length === 0),
    row(
      'REST creates never answered 201, no crash in flight (last status → documents)',
      0,
      unanswered.length === 0 ? 0 : stuck.join(', '),
      unanswered.length === 0,
    ),
    row('REST creates cut in flight by a crash, never answered (info)', 'info', interrupted.length, true),
    row('MCP creates answered: exactly one document each', mcpOk.length, mcpOnce, mcpOnce === mcpOk.length && mcpOk.length > 0),
    row('MCP creates answered 5xx or not at all (a fault hit them)', 'info', state.mcp.filter((m) => m.outcome === 'unknown').length, true),
    row(
      'bulk-send recipients (answered 201): exactly one document each',
      bulkAnswered.length,
      bulkOnce,
      bulkOnce === bulkAnswered.length && bulkAnswered.length > 0,
    ),
    row('bulk-send recipients with two documents', 0, bulkTwice, bulkTwice === 0),
    row('bulk-sends never answered 201 (last statuses)', 0, unansweredBulks.length === 0 ? 0 : unansweredBulks.join(', '), unansweredBulks.length === 0),
  ]
}

/** Every finished signing: the document completed, its signed PDF sealed, served identically by the balancer, and verified by pdfsig. */
export async function signedPdfChecks(
  databaseUrl: string,
  orgId: string,
  balancer: string,
  state: LoadState,
  workDir: string,
  verifyAtMost: number,
): Promise<Row[]> {
  const finished = state.signings.filter((s) => s.finished)
  const rows = await query<{ id: string; status: string; signed_pdf_sha256: string | null; sealed_at: Date | null }>(
    databaseUrl,
    `select id, status, signed_pdf_sha256, sealed_at from documents where org_id = $1 and status = 'completed'`,
    [orgId],
  )
  const completed = new Map(rows.map((r) => [r.id, r]))
  const unsealed = rows.filter((r) => !r.signed_pdf_sha256 || !r.sealed_at).length
  const notCompleted = finished.filter((s) => !completed.has(s.documentId)).length
  let verified = 0
  let sameBytes = 0
  const sample = finished.filter((s) => completed.get(s.documentId)?.signed_pdf_sha256).slice(0, verifyAtMost)
  for (const signing of sample) {
    const response = await fetch(`${balancer}/sign/${signing.token}/signed.pdf`)
    const bytes = Buffer.from(await response.arrayBuffer())
    if (createHash('sha256').update(bytes).digest('hex') === completed.get(signing.documentId)?.signed_pdf_sha256) sameBytes++
    const file = join(workDir, 'signed.pdf')
    writeFileSync(file, bytes)
    const pdfsig = spawnSync('pdfsig', ['-no-ocsp', file], { encoding: 'utf8', timeout: 30_000 })
    if (pdfsig.status === 0 && /Signature Validation: Signature is Valid/.test(pdfsig.stdout)) verified++
  }
  return [
    row('signers who finished: document completed', finished.length, finished.length - notCompleted, notCompleted === 0 && finished.length > 0),
    row('completed documents without a sealed signed PDF', 0, unsealed, unsealed === 0),
    row(`signed PDFs: one file (bytes = documents.signed_pdf_sha256), ${sample.length} sampled`, sample.length, sameBytes, sameBytes === sample.length),
    row('signed PDFs verified by pdfsig -no-ocsp', sample.length, verified, verified === sample.length && sample.length > 0),
  ]
}

export async function webhookChecks(databaseUrl: string, orgId: string, receiver: WebhookReceiver): Promise<Row[]> {
  const deliveries = await query<{ id: string; status: string }>(databaseUrl, `select id::text, status from webhook_deliveries where org_id = $1`, [orgId])
  const received = new Map<string, number>()
  for (const request of receiver.received) {
    const id = String(request.headers['webhook-id'])
    received.set(id, (received.get(id) ?? 0) + 1)
  }
  const delivered = deliveries.filter((d) => received.has(d.id)).length
  const notDelivered = deliveries.filter((d) => d.status !== 'delivered').length
  const moreThanTwice = [...received.values()].filter((n) => n > 2).length
  const twice = [...received.values()].filter((n) => n === 2).length
  return [
    row('webhook events (database) received by the receiver', deliveries.length, delivered, delivered === deliveries.length && deliveries.length > 0),
    row('webhook deliveries not marked delivered', 0, notDelivered, notDelivered === 0),
    row('webhook events received more than twice (beyond one retry)', 0, moreThanTwice, moreThanTwice === 0),
    row('webhook events received twice (one retry, allowed)', 'info', twice, true),
  ]
}

/** Every signer of a document that is not voided got exactly one invitation; nobody got two. */
export async function mailChecks(databaseUrl: string, orgId: string, mail: MailReceiver): Promise<Row[]> {
  const signers = await query<{ email: string; status: string }>(
    databaseUrl,
    `select s.email, d.status from signers s join documents d on d.id = s.document_id where d.org_id = $1`,
    [orgId],
  )
  // Per address, the Message-IDs of the invitations it received, and how often each arrived.
  const invitations = new Map<string, Map<string, number>>()
  for (const message of mail.messages) {
    if (!INVITATION_LINK.test(message.text ?? '')) continue
    for (const to of message.to ?? []) {
      if (!to.address) continue
      const received = invitations.get(to.address) ?? new Map<string, number>()
      // A message without one counts as a message of its own.
      const id = message.messageId ?? `(none ${received.size})`
      received.set(id, (received.get(id) ?? 0) + 1)
      invitations.set(to.address, received)
    }
  }
  const live = signers.filter((s) => s.status !== 'voided')
  const once = live.filter((s) => invitations.get(s.email)?.size === 1).length
  const twoMessages = [...invitations.values()].filter((received) => received.size > 1).length
  const resent = [...invitations.values()].flatMap((received) => [...received.values()]).filter((n) => n > 1).length
  return [
    row('signers (documents not voided): exactly one invitation (one Message-ID)', live.length, once, once === live.length && live.length > 0),
    row('addresses sent two different invitations', 0, twoMessages, twoMessages === 0),
    // At least once: a node that dies between the SMTP send and recording it sends that message again, with the same Message-ID.
    row(`invitations transmitted again after a crash, same Message-ID (info; ${mail.droppedSessions} SMTP sessions cut)`, 'info', resent, true),
  ]
}

export interface HaproxyLine {
  at: number
  server: string
  status: number
  termination: string
  line: string
}

export function readHaproxyLog(file: string): HaproxyLine[] {
  return readFileSync(file, 'utf8')
    .split('\n')
    .map((line) => {
      const [seconds, ms, server, status, termination] = line.split(' ')
      return { at: Number(seconds) * 1000 + Number(ms), server: server ?? '', status: Number(status), termination: termination ?? '', line }
    })
    .filter((l) => Number.isFinite(l.at) && Number.isFinite(l.status))
}

/** An answer the balancer gave that the client did not cause: a 5xx, or none (the client's own aborts, C…, excluded). */
const balancerError = (l: HaproxyLine) => (l.status >= 500 || l.status === -1) && !l.termination.startsWith('C')

export function faultChecks(faults: FaultWindow[], recorder: Recorder, balancerLog: HaproxyLine[], loadWindow: { from: number; to: number }): Row[] {
  const rows: Row[] = []
  const inWindow = (w: FaultWindow) => (l: HaproxyLine) => l.at >= w.startedAt && l.at <= w.endedAt
  for (const fault of faults) {
    const errors = balancerLog.filter(inWindow(fault)).filter(balancerError)
    const clientErrors = recorder.during(fault.startedAt, fault.endedAt).filter(isError)
    const requests = recorder.during(fault.startedAt, fault.endedAt).length
    if (fault.name === 'rolling restart') {
      rows.push(row(`rolling restart: errors at the balancer (${requests} requests)`, 0, errors.length, errors.length === 0))
      rows.push(row('rolling restart: failed requests seen by the clients', 0, clientErrors.length, clientErrors.length === 0))
    } else if (fault.name === 'kill -9') {
      // A request the killed node had accepted before it died may fail; any other may not.
      const allowed = errors.filter((l) => l.server === fault.node && l.at <= (fault.killedAt ?? 0))
      rows.push(
        row(
          `kill -9 ${fault.node}: balancer errors, all in flight on it at the kill`,
          `${errors.length} of ${errors.length}`,
          `${allowed.length} of ${errors.length}`,
          allowed.length === errors.length,
        ),
      )
      rows.push(row('kill -9: failed requests seen by the clients (info)', 'info', `${clientErrors.length} of ${requests}`, true))
    } else {
      rows.push(row(`PostgreSQL restart: failed requests (info) of ${requests}`, 'info', `${clientErrors.length} (balancer ${errors.length})`, true))
    }
  }
  const outside = recorder.outcomes
    .filter((o) => o.startedAt >= loadWindow.from && o.endedAt <= loadWindow.to)
    .filter((o) => !faults.some((w) => o.endedAt >= w.startedAt && o.startedAt <= w.endedAt))
  const outsideErrors = outside.filter(isError)
  rows.push(row(`failed requests outside the fault windows (of ${outside.length})`, 0, outsideErrors.length, outsideErrors.length === 0))
  return rows
}

export function printTable(rows: Row[]): string {
  const header: Row = { check: 'check', expected: 'expected', actual: 'actual', pass: true }
  const width = (key: 'check' | 'expected' | 'actual') => Math.max(...[header, ...rows].map((r) => r[key].length))
  const line = (r: Row, verdict: string) =>
    `| ${r.check.padEnd(width('check'))} | ${r.expected.padEnd(width('expected'))} | ${r.actual.padEnd(width('actual'))} | ${verdict.padEnd(4)} |`
  return [
    line(header, 'pass'),
    `|${'-'.repeat(width('check') + 2)}|${'-'.repeat(width('expected') + 2)}|${'-'.repeat(width('actual') + 2)}|------|`,
    ...rows.map((r) => line(r, r.pass ? 'pass' : 'FAIL')),
  ].join('\n')
}
