import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { executeAdminCommand } from '../src/admin/commands.ts'
import { bodyOf, postDocument, setupOrg, uniqueEmail, type Json, type TestOrg } from './helpers/api.ts'
import { callOk, connectAgent } from './helpers/mcp.ts'
import { makeTempDir, runCliJson, usingPostgres } from './helpers/processes.ts'
import { richFields, SignerClient, tokenFromMail, valuesFor } from './helpers/signing.ts'
import { startTestServer, type TestServer } from './helpers/test-server.ts'

/*
 * Reminders (issue 22, an extension): a schedule per workspace (Settings) or per document; the
 * sweep runs at instants the test chooses, as `admin jobs run --now <time>` does.
 */

let server: TestServer
let org: TestOrg
let templateId: string

beforeAll(async () => {
  server = await startTestServer()
  org = await setupOrg(server, { name: 'Acme Reminders' })
  templateId = (await server.createTemplate(org.orgId, { fields: richFields([0, 1]) })).id
})
afterAll(() => server.close())

const DAY = 86_400_000
const runJobs = async (at: number) => (await executeAdminCommand(server.services, { name: 'jobs.run', now: new Date(at).toISOString() })) as Json
const mailsTo = (email: string) => server.mail.messages.filter((m) => m.to?.some((to) => to.address === email))
const settle = () => new Promise((resolve) => setTimeout(resolve, 700))

async function send(body: Json, orders?: number[]) {
  const emails = [uniqueEmail('a'), uniqueEmail('b')]
  const response = await postDocument(server, org.apiKey, {
    template_id: templateId,
    signers: emails.map((email, role) => ({ role, email, ...(orders ? { order: orders[role] } : {}) })),
    ...body,
  })
  expect(response.status).toBe(201)
  const created = await bodyOf<{ id: string }>(response)
  const document = await bodyOf<{ created_at: string; reminders?: Json }>(await server.request(`/api/v1/documents/${created.id}`, { key: org.apiKey }))
  return { id: created.id, emails, sentAt: Date.parse(document.created_at), document }
}

const remindersIn = (email: string) => mailsTo(email).filter((m) => m.subject?.startsWith('Reminder: '))

describe('the workspace default', () => {
  test('set in Settings, applied to documents sent without one; null turns it off', async () => {
    const put = await server.request('/api/v1/settings/reminders', {
      method: 'PUT',
      key: org.apiKey,
      json: { reminders: { first_after_days: 2, every_days: 3, max: 2 } },
    })
    expect(await bodyOf(put)).toEqual({ reminders: { first_after_days: 2, every_days: 3, max: 2 } })
    expect(await bodyOf(await server.request('/api/v1/settings/reminders', { key: org.apiKey }))).toEqual({
      reminders: { first_after_days: 2, every_days: 3, max: 2 },
    })
    const { document } = await send({})
    expect(document.reminders).toEqual({ first_after_days: 2, every_days: 3, max: 2 })
    const { document: none } = await send({ reminders: null })
    expect(none).not.toHaveProperty('reminders')

    const bad = await server.request('/api/v1/settings/reminders', {
      method: 'PUT',
      key: org.apiKey,
      json: { reminders: { first_after_days: 0, every_days: 1, max: 1 } },
    })
    expect(bad.status).toBe(400)
    expect((await bodyOf(bad)).field).toBe('/reminders/first_after_days')
    await server.request('/api/v1/settings/reminders', { method: 'PUT', key: org.apiKey, json: { reminders: null } })
  })

  test('bulk-sent documents get it too, and each recipient is reminded once it is due', async () => {
    const schedule = { first_after_days: 1, every_days: 1, max: 1 }
    await server.request('/api/v1/settings/reminders', { method: 'PUT', key: org.apiKey, json: { reminders: schedule } })
    try {
      const recipients = [uniqueEmail('bulk-a'), uniqueEmail('bulk-b')]
      const bulk = await server.request('/api/v1/documents/bulk-send', {
        method: 'POST',
        key: org.apiKey,
        json: { template_id: org.templateId, recipients: recipients.map((email) => ({ email })) },
      })
      expect(bulk.status).toBe(201)
      const { documents } = await bodyOf<{ documents: { documentId: string }[] }>(bulk)
      const first = await bodyOf<{ created_at: string; reminders?: Json }>(
        await server.request(`/api/v1/documents/${documents[0]?.documentId}`, { key: org.apiKey }),
      )
      expect(first.reminders).toEqual(schedule)
      await runJobs(Date.parse(first.created_at) + DAY - 60_000)
      await settle()
      expect(recipients.map((email) => remindersIn(email).length)).toEqual([0, 0])
      await runJobs(Date.parse(first.created_at) + DAY + 60_000)
      await expect.poll(() => recipients.map((email) => remindersIn(email).length)).toEqual([1, 1])
    } finally {
      await server.request('/api/v1/settings/reminders', { method: 'PUT', key: org.apiKey, json: { reminders: null } })
    }
  })
})

describe('the schedule', () => {
  test('first after N days, then every M, at most K; a new link each time; none once signed', async () => {
    const { id, emails, sentAt } = await send({ reminders: { first_after_days: 1, every_days: 2, max: 2 } })
    const [a, b] = emails as [string, string]
    const [invitationA] = await server.mail.waitFor(a)
    await server.mail.waitFor(b)

    // Other tests' documents may fall due in the same sweeps: count this document's mail, not the sweep's total.
    await runJobs(sentAt + DAY / 2)
    await settle()
    expect([remindersIn(a).length, remindersIn(b).length]).toEqual([0, 0])
    expect((await runJobs(sentAt + DAY + 60_000)).reminders_sent).toBeGreaterThanOrEqual(2)
    const [reminderA] = await server.mail.waitFor(a, 2).then((mails) => mails.slice(1))
    await server.mail.waitFor(b, 2)
    expect(reminderA?.subject).toMatch(/^Reminder: /)
    expect(reminderA?.text).toContain('the one in earlier e-mails no longer works')
    // The invitation's link stopped working; the reminder's works.
    const old = new SignerClient(server, tokenFromMail(invitationA?.text), a)
    expect((await old.page()).status).toBe(404)
    const signerA = new SignerClient(server, tokenFromMail(reminderA?.text), a)
    expect((await signerA.finish(valuesFor(0))).status).toBe(200)

    // Not yet the next one (two days after the first); then only the signer who has not signed.
    await runJobs(sentAt + 2 * DAY)
    await settle()
    expect([remindersIn(a).length, remindersIn(b).length]).toEqual([1, 1])
    await runJobs(sentAt + 3 * DAY + 120_000)
    await server.mail.waitFor(b, 3)
    await runJobs(sentAt + 30 * DAY)
    await settle()
    expect([remindersIn(a).length, remindersIn(b).length]).toEqual([1, 2])

    const trail = await bodyOf<{ events: { event: string; data: Json }[] }>(await server.request(`/api/v1/documents/${id}/audit`, { key: org.apiKey }))
    expect(trail.events.filter((e) => e.event === 'signer.reminded').map((e) => [e.data.email, e.data.reminder])).toEqual([
      [a, 1],
      [b, 1],
      [b, 2],
    ])
  })

  test('a voided document, and a signer still waiting for their step, are not reminded', async () => {
    const voided = await send({ reminders: { first_after_days: 1, every_days: 1, max: 3 } })
    expect((await server.request(`/api/v1/documents/${voided.id}/void`, { method: 'POST', key: org.apiKey })).status).toBe(200)
    const sequential = await send({ reminders: { first_after_days: 1, every_days: 1, max: 3 } }, [1, 2])
    const later = Math.max(voided.sentAt, sequential.sentAt) + DAY + 60_000
    await runJobs(later)
    await settle()
    expect(voided.emails.map((email) => remindersIn(email).length)).toEqual([0, 0])
    expect(sequential.emails.map((email) => remindersIn(email).length)).toEqual([1, 0])
  })

  test('sweeps running at the same instant remind each signer once', async () => {
    const { emails, sentAt } = await send({ reminders: { first_after_days: 5, every_days: 5, max: 1 } })
    const at = sentAt + 5 * DAY + 60_000
    await Promise.all([runJobs(at), runJobs(at), runJobs(at)])
    await server.mail.waitFor(emails[1] ?? '', 2)
    await settle()
    expect(emails.map((email) => remindersIn(email).length)).toEqual([1, 1])
  })
})

// Several processes on one PostgreSQL: two operator CLIs sweeping at the same instant, beside this server's own loop.
test.runIf(usingPostgres)('two processes sweeping at once remind each signer once', async () => {
  const { emails, sentAt } = await send({ reminders: { first_after_days: 7, every_days: 7, max: 1 } })
  await Promise.all(emails.map((email) => server.mail.waitFor(email)))
  const at = new Date(sentAt + 7 * DAY + 60_000).toISOString()
  const env = { DATABASE_URL: server.config.databaseUrl ?? '' }
  const [first, second] = await Promise.all(
    [makeTempDir('sweep-a'), makeTempDir('sweep-b')].map((dir) => runCliJson<Json>(dir, ['jobs', 'run', '--now', at], env)),
  )
  expect(Number(first?.reminders_sent) + Number(second?.reminders_sent)).toBeGreaterThanOrEqual(2)
  await Promise.all(emails.map((email) => server.mail.waitFor(email, 2)))
  await settle()
  expect(emails.map((email) => remindersIn(email).length)).toEqual([1, 1])
})

describe('bad schedules are a 400 naming the field', () => {
  test.each([
    [{ first_after_days: 0, every_days: 1, max: 1 }, '/reminders/first_after_days'],
    [{ first_after_days: 1, every_days: 61, max: 1 }, '/reminders/every_days'],
    [{ first_after_days: 1, every_days: 1, max: 11 }, '/reminders/max'],
    [{ first_after_days: 1, every_days: 1 }, '/reminders'],
  ])('%j', async (reminders, field) => {
    const response = await postDocument(server, org.apiKey, {
      template_id: templateId,
      signers: [0, 1].map((role) => ({ role, email: uniqueEmail() })),
      reminders,
    })
    expect(response.status).toBe(400)
    expect(String((await bodyOf(response)).field)).toContain(field)
  })
})

test('the agent tool takes the same schedule, and get_document_status shows it', async () => {
  const agent = await connectAgent(server, org.apiKey)
  const reminders = { first_after_days: 3, every_days: 7, max: 2 }
  const { structured } = await callOk<{ document_id: string }>(agent, 'create_and_send_document', {
    template_id: templateId,
    signers: [0, 1].map((role) => ({ role, email: uniqueEmail() })),
    reminders,
  })
  const { structured: status } = await callOk<Json>(agent, 'get_document_status', { document_id: structured.document_id })
  expect(status.reminders).toEqual(reminders)
  await agent.close()
})
