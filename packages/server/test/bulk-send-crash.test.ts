import { randomUUID } from 'node:crypto'
import { join } from 'node:path'
import { eq, inArray, sql } from 'drizzle-orm'
import { afterAll, describe, expect, it } from 'vitest'
import { openDatabase } from '../src/db/client.ts'
import { bulkRequests, documents, outboundEmails, signers } from '../src/db/schema.ts'
import { cleanUpProcesses, makeTempDir, runCliJson, startServer, usingPostgres, writePdf, type CreatedOrg, type CreatedTemplate } from './helpers/processes.ts'

afterAll(cleanUpProcesses)

const RECIPIENTS = 3000
/** Long enough for every recipient; the lease on an interrupted request is this plus 5 s. */
const BUDGET_MS = 12_000

/** Counts, straight from the database, of the documents an Idempotency-Key's request created and what hangs off them, and when the server registered the request. */
async function countsFor(dataDir: string, orgId: string, key: string) {
  const database = await openDatabase(usingPostgres ? { databaseUrl: process.env.DATABASE_URL ?? '' } : { pgliteDir: join(dataDir, 'pgdata') })
  try {
    const { db } = database
    const [request] = await db.select({ id: bulkRequests.id, createdAt: bulkRequests.createdAt }).from(bulkRequests).where(eq(bulkRequests.idempotencyKey, key))
    if (!request) return { documents: 0, signers: 0, invitations: 0, orgDocuments: 0, distinctRecipients: 0, registeredAt: undefined }
    const ids = (await db.select({ id: documents.id }).from(documents).where(eq(documents.bulkRequestId, request.id))).map((d) => d.id)
    const count = sql<number>`count(*)::int`
    const [signerCount] = ids.length ? await db.select({ n: count }).from(signers).where(inArray(signers.documentId, ids)) : [{ n: 0 }]
    const [mailCount] = ids.length ? await db.select({ n: count }).from(outboundEmails).where(inArray(outboundEmails.documentId, ids)) : [{ n: 0 }]
    const [org] = await db
      .select({ documents: count, recipients: sql<number>`count(distinct ${documents.bulkRecipient})::int` })
      .from(documents)
      .where(eq(documents.orgId, orgId))
    return {
      documents: ids.length,
      signers: signerCount?.n ?? 0,
      invitations: mailCount?.n ?? 0,
      orgDocuments: org?.documents ?? 0,
      distinctRecipients: org?.recipients ?? 0,
      registeredAt: request.createdAt,
    }
  } finally {
    await database.close()
  }
}

describe('kill -9 during a bulk-send', () => {
  it('leaves every recipient whole or absent, and the same request resumed with its Idempotency-Key sends everyone exactly once', async () => {
    const dataDir = makeTempDir('bulk-crash')
    const env = { BULK_BUDGET_MS: String(BUDGET_MS), LOG_LEVEL: 'warn' }
    const pdf = await writePdf(dataDir, 'letter.pdf', 1)
    const org = await runCliJson<CreatedOrg>(dataDir, ['org', 'create', '--name', `Bulk crash ${randomUUID().slice(0, 8)}`, '--plan', 'business'])
    const template = await runCliJson<CreatedTemplate>(dataDir, ['template', 'create', '--org', org.org_id, '--name', 'Notice', '--pdf', pdf])
    const key = `crash-${randomUUID()}`
    const body = {
      template_id: template.id,
      recipients: Array.from({ length: RECIPIENTS }, (_, i) => ({ email: `crash.${i}.${key}@example.com`, name: `Recipient ${i}` })),
    }
    const send = (url: string, idempotencyKey = key, payload = body) =>
      fetch(`${url}/api/v1/documents/bulk-send`, {
        method: 'POST',
        headers: { authorization: `Bearer ${org.api_key}`, 'content-type': 'application/json', 'idempotency-key': idempotencyKey },
        body: JSON.stringify(payload),
      })

    let server = await startServer({ dataDir, env })
    const inFlight = send(server.url).catch((error: unknown) => error)
    // Kill once some batches have committed but (at this size) well before the request ends.
    const deadline = Date.now() + 30_000
    for (;;) {
      const list = await server.request('/api/v1/documents?limit=1', { key: org.api_key })
      const { total } = (await list.json()) as { total: number }
      if (total > 0 || Date.now() > deadline) break
      await new Promise((resolve) => setTimeout(resolve, 20))
    }
    await server.stop('SIGKILL')
    expect(await inFlight).toBeInstanceOf(Error)

    const afterCrash = await countsFor(dataDir, org.org_id, key)
    expect(afterCrash.documents).toBeGreaterThan(0)
    expect(afterCrash.documents).toBeLessThan(RECIPIENTS)
    expect(afterCrash.signers).toBe(afterCrash.documents)
    expect(afterCrash.invitations).toBe(afterCrash.documents)

    server = await startServer({ dataDir, env })
    // Until the interrupted request's lease runs out (its budget plus 5 s from when the server
    // registered it), a repeat is told it is still in progress; then it is taken over.
    const leaseEndsAt = (afterCrash.registeredAt?.getTime() ?? Number.NaN) + BUDGET_MS + 5_000
    const early = await send(server.url)
    if (Date.now() <= leaseEndsAt) expect(early.status).toBe(409)
    await early.body?.cancel()
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, leaseEndsAt + 500 - Date.now())))
    const resumed = await send(server.url)
    expect(resumed.status).toBe(201)
    type Result = { sent: number; documents: unknown[]; skipped_timeout_reached?: string[]; note?: string }
    const result = (await resumed.json()) as Result
    expect(result.note).toContain(`${afterCrash.documents} recipients were already sent`)
    expect(result.sent + (result.skipped_timeout_reached?.length ?? 0)).toBe(RECIPIENTS)
    const resumedCounts = await countsAfterStop()
    expect(resumedCounts).toMatchObject({ documents: result.sent, signers: result.sent, invitations: result.sent })

    // On a slow machine the budget may end first: the skipped ones are resubmitted as the note says.
    let skipped = result.skipped_timeout_reached ?? []
    let total = result.sent
    while (skipped.length > 0) {
      server = await startServer({ dataDir, env })
      const retry = await send(server.url, randomUUID(), { template_id: template.id, recipients: skipped.map((email) => ({ email, name: 'Resubmitted' })) })
      const next = (await retry.json()) as Result
      total += next.sent
      skipped = next.skipped_timeout_reached ?? []
      await server.stop()
    }
    expect(total).toBe(RECIPIENTS)
    const final = await countsFor(dataDir, org.org_id, key)
    expect(final).toMatchObject({ orgDocuments: RECIPIENTS, distinctRecipients: RECIPIENTS })

    async function countsAfterStop() {
      await server.stop()
      return countsFor(dataDir, org.org_id, key)
    }
  }, 180_000)
})
