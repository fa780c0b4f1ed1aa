import { randomUUID } from 'node:crypto'
import { and, eq, isNull } from 'drizzle-orm'
import type { Actor } from '../actors/actor.ts'
import type { Principal } from '../actors/principal.ts'
import { startAuditTrails } from '../audit/audit-trail.ts'
import { assertBulkAllowed, quoteUsage } from '../billing/metering.ts'
import type { Db } from '../db/client.ts'
import { insertMany } from '../db/bulk-insert.ts'
import { bulkRequests, documents, signers, type ReminderSchedule, type TemplateRole } from '../db/schema.ts'
import { AppError, invalid } from '../errors.ts'
import { sha256Hex } from '../lib/crypto.ts'
import { roleNameIn } from '../templates/roles.ts'
import { enqueueMail } from '../mail/outbox.ts'
import type { Services } from '../services.ts'
import { defaultDocumentTitle, findTemplateToSend, sentEvent } from './create-document.ts'
import type { BulkRecipient, BulkSendInput, BulkSendResult } from './documents.schemas.ts'
import { invitationMessage, issueSigningLink } from './invitations.ts'
import { firstReminderAt, scheduleForSend } from './reminders.ts'
import { mailLanguageFor } from '../signing/i18n/signer-language-setting.ts'

/** Recipients per transaction: each batch commits whole (documents, signers, invitations, usage, audit) or not at all. */
const BATCH_SIZE = 250

type BulkServices = Pick<Services, 'db' | 'clock' | 'mail' | 'config'>

/**
 * Sends one single-signer document per recipient, in batches, within the time budget.
 * Recipients the plan or spend cap does not allow come back in skipped_cap_reached,
 * those the budget leaves no time for in skipped_timeout_reached (never created).
 * With an Idempotency-Key the request can be repeated safely: a finished one is
 * replayed, an interrupted one resumes without sending anyone twice.
 */
export async function bulkSend(
  services: BulkServices,
  actor: Actor,
  input: BulkSendInput,
  options: { idempotencyKey?: string | undefined } = {},
): Promise<BulkSendResult> {
  const startedAt = performance.now()
  const { db, config } = services
  await assertBulkAllowed(db, actor, services.clock.now())
  const template = await findTemplateToSend(db, actor, input.template_id)
  if (template.roles.length !== 1 || template.roles[0] !== 0) {
    throw invalid(`Bulk-send needs a template with one signer (Party 1); "${template.name}" has fields for ${template.roles.length} parties.`)
  }
  const { unique, duplicates } = dedupe(input.recipients)
  const request = await openBulkRequest(db, actor, options.idempotencyKey, sha256Hex(JSON.stringify(input)), services.clock.now(), config.bulkBudgetMs)
  if (request.replay) return request.replay

  // Bulk-sent documents are the workspace's like any other: its default reminder schedule, read once for the request.
  const reminders = await scheduleForSend(db, actor.orgId, undefined)
  const sent = new Map(request.alreadySent)
  const skippedCap: string[] = []
  const skippedTimeout: string[] = []
  const pending = unique.filter((r) => !sent.has(r.email.toLowerCase()))
  let slowestBatchMs = 0
  for (let start = 0; start < pending.length; start += BATCH_SIZE) {
    const batch = pending.slice(start, start + BATCH_SIZE)
    // Start a batch only if even the slowest one so far would still end inside the budget.
    if (performance.now() - startedAt + 2 * Math.max(slowestBatchMs, 50) > config.bulkBudgetMs) {
      skippedTimeout.push(...pending.slice(start).map((r) => r.email))
      break
    }
    // PGlite runs queries synchronously in this thread, so awaiting them never lets the event
    // loop read sockets: yield between batches, or every other request waits for the whole send.
    await new Promise((resolve) => setImmediate(resolve))
    const batchStart = performance.now()
    const created = await sendBatch(services, actor, template, request.id, batch, reminders)
    slowestBatchMs = Math.max(slowestBatchMs, performance.now() - batchStart)
    services.mail.kick()
    for (const document of created) sent.set(document.email.toLowerCase(), document.documentId)
    if (created.length < batch.length) {
      skippedCap.push(...pending.slice(start + created.length).map((r) => r.email))
      break
    }
  }

  const documentsSent = unique.flatMap((r) => {
    const documentId = sent.get(r.email.toLowerCase())
    return documentId ? [{ documentId, email: r.email }] : []
  })
  const result: BulkSendResult = {
    sent: documentsSent.length,
    documents: documentsSent,
    ...(skippedCap.length > 0 ? { skipped_cap_reached: skippedCap } : {}),
    ...(skippedTimeout.length > 0 ? { skipped_timeout_reached: skippedTimeout } : {}),
  }
  const note = noteFor(result, duplicates, request.alreadySent.size)
  if (note) result.note = note
  await db.update(bulkRequests).set({ response: result }).where(eq(bulkRequests.id, request.id))
  return result
}

/** One e-mail address gets one document per request: later repeats (any letter case) are dropped. */
function dedupe(recipients: BulkRecipient[]): { unique: BulkRecipient[]; duplicates: number } {
  const seen = new Set<string>()
  const unique = recipients.filter((r) => {
    const key = r.email.toLowerCase()
    if (seen.has(key)) return false
    seen.add(key)
    return true
  })
  return { unique, duplicates: recipients.length - unique.length }
}

function noteFor(result: BulkSendResult, duplicates: number, resumed: number): string | undefined {
  const notes = [
    duplicates > 0 ? `${duplicates} repeated e-mail address${duplicates === 1 ? ' was' : 'es were'} sent once.` : '',
    resumed > 0
      ? `${resumed} recipient${resumed === 1 ? ' was' : 's were'} already sent by an earlier attempt with this Idempotency-Key and were not sent again.`
      : '',
    result.skipped_cap_reached
      ? `Your plan allowance or spend cap was reached: ${result.skipped_cap_reached.length} recipient${result.skipped_cap_reached.length === 1 ? ' was' : 's were'} not sent.`
      : '',
    result.skipped_timeout_reached
      ? `The request's time budget ran out: resubmit the ${result.skipped_timeout_reached.length} recipient${result.skipped_timeout_reached.length === 1 ? '' : 's'} in skipped_timeout_reached (with a new Idempotency-Key).`
      : '',
  ].filter(Boolean)
  return notes.length > 0 ? notes.join(' ') : undefined
}

/** One transaction: the plan's allowance for the batch, then its documents, signers, invitations, usage and audit trails. */
async function sendBatch(
  services: BulkServices,
  actor: Actor,
  template: { id: string; name: string; roleNames: TemplateRole[] | null },
  bulkRequestId: string,
  batch: BulkRecipient[],
  reminders: ReminderSchedule | null,
): Promise<{ documentId: string; email: string }[]> {
  const now = services.clock.now()
  const roleName = roleNameIn(template.roleNames, 0)
  return services.db.transaction(async (tx) => {
    const usage = await quoteUsage(tx, actor, { kind: 'send', channel: 'bulk', wanted: batch.length, now })
    const allowed = batch.slice(0, usage.allowed).map((r) => ({
      ...r,
      documentId: randomUUID(),
      title: defaultDocumentTitle(template.name, r),
      ...issueSigningLink(services.config.publicUrl),
    }))
    if (allowed.length === 0) return []
    await insertMany(
      tx,
      documents,
      allowed.map((r) => ({
        id: r.documentId,
        orgId: actor.orgId,
        templateId: template.id,
        title: r.title,
        status: 'sent' as const,
        bulkRequestId,
        bulkRecipient: r.email.toLowerCase(),
        reminders,
        createdAt: now,
        updatedAt: now,
      })),
    )
    await insertMany(
      tx,
      signers,
      allowed.map((r) => ({
        documentId: r.documentId,
        role: 0,
        roleName,
        position: 0,
        email: r.email,
        name: r.name ?? null,
        tokenHash: r.tokenHash,
        invitedAt: now,
        nextReminderAt: firstReminderAt(reminders, now),
      })),
    )
    await startAuditTrails(
      tx,
      allowed.map((r) => ({
        document: { id: r.documentId, orgId: actor.orgId },
        events: [{ ...sentEvent(actor, template.id, 1, now), data: { template_id: template.id, signers: 1, bulk_request_id: bulkRequestId } }],
      })),
    )
    // A bulk send has no language of its own: the workspace's default, else English.
    const language = await mailLanguageFor(tx, actor.orgId, null)
    await enqueueMail(
      tx,
      allowed.map((r) =>
        invitationMessage(actor, {
          documentId: r.documentId,
          to: r.email,
          signerName: r.name ?? null,
          roleName,
          link: r.link,
          title: r.title,
          expiresAt: null,
          language,
        }),
      ),
    )
    await usage.record(allowed.map((r) => r.documentId))
    return allowed.map((r) => ({ documentId: r.documentId, email: r.email }))
  })
}

interface OpenedRequest {
  id: string
  /** The stored 201 body of a finished request with this key. */
  replay?: BulkSendResult
  /** Recipients (lower-cased e-mail → document id) an interrupted attempt with this key already sent. */
  alreadySent: Map<string, string>
}

/** A repeat of a request still running: the codes and Retry-After of every Idempotency-Key route (http/idempotency.ts). */
const RETRY_SOON = { 'retry-after': '1' }

/**
 * Registers the request, or finds the earlier one with the same Idempotency-Key. An
 * unfinished earlier request is taken over once it has been silent for longer than
 * a whole budget (it crashed); before that, a repeat is told to wait.
 */
async function openBulkRequest(
  db: Db,
  principal: Principal,
  idempotencyKey: string | undefined,
  requestHash: string,
  now: Date,
  budgetMs: number,
): Promise<OpenedRequest> {
  const [inserted] = await db
    .insert(bulkRequests)
    .values({ orgId: principal.orgId, idempotencyKey: idempotencyKey ?? null, requestHash, createdAt: now })
    .onConflictDoNothing()
    .returning({ id: bulkRequests.id })
  if (inserted) return { id: inserted.id, alreadySent: new Map() }
  if (idempotencyKey === undefined) throw new Error('a bulk request without a key cannot conflict')

  const [earlier] = await db
    .select()
    .from(bulkRequests)
    .where(and(eq(bulkRequests.orgId, principal.orgId), eq(bulkRequests.idempotencyKey, idempotencyKey)))
  if (!earlier) throw new AppError('idempotency_key_in_progress', 'A request with this Idempotency-Key is being registered; retry in a moment.', {}, RETRY_SOON)
  if (earlier.requestHash !== requestHash) {
    throw new AppError('idempotency_key_reused', 'This Idempotency-Key was already used with a different request body. Use a new key for a new request.')
  }
  if (earlier.response) return { id: earlier.id, replay: earlier.response as BulkSendResult, alreadySent: new Map() }
  const stale = now.getTime() - earlier.createdAt.getTime() > budgetMs + 5_000
  const [taken] = stale
    ? await db
        .update(bulkRequests)
        .set({ createdAt: now })
        .where(and(eq(bulkRequests.id, earlier.id), eq(bulkRequests.createdAt, earlier.createdAt), isNull(bulkRequests.response)))
        .returning({ id: bulkRequests.id })
    : []
  if (!taken)
    throw new AppError('idempotency_key_in_progress', 'A request with this Idempotency-Key is still in progress. Retry after it has finished.', {}, RETRY_SOON)
  const rows = await db.select({ email: documents.bulkRecipient, id: documents.id }).from(documents).where(eq(documents.bulkRequestId, earlier.id))
  return { id: earlier.id, alreadySent: new Map(rows.flatMap((r) => (r.email ? [[r.email, r.id] as const] : []))) }
}
