import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { executeAdminCommand } from '../src/admin/commands.ts'
import { bodyOf, postDocument, setupOrg, uniqueEmail, type Json, type TestOrg } from './helpers/api.ts'
import { callErrorResult, connectAgent } from './helpers/mcp.ts'
import { richFields, SignerClient, tokenFromMail, valuesFor } from './helpers/signing.ts'
import { startTestServer, type TestServer } from './helpers/test-server.ts'

/*
 * Issue 22's new inputs and locks under hostile use: wrong types, NUL bytes, huge values, another
 * workspace's ids, deep bodies, and many requests at once. Every refusal is a 4xx with a body.
 */

let server: TestServer
let org: TestOrg
let other: TestOrg
let templateId: string

beforeAll(async () => {
  server = await startTestServer()
  ;[org, other] = await Promise.all([setupOrg(server, { name: 'Acme Hostile' }), setupOrg(server, { name: 'Other Co' })])
  templateId = (await server.createTemplate(org.orgId, { fields: richFields([0, 1, 2]) })).id
})
afterAll(() => server.close())

const putReminders = (body: unknown, key = org.apiKey) =>
  server.request('/api/v1/settings/reminders', {
    method: 'PUT',
    key,
    headers: { 'content-type': 'application/json' },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  })
const create = (extra: Json, signers: Json[] = [0, 1, 2].map((role) => ({ role, email: uniqueEmail() }))) =>
  postDocument(server, org.apiKey, { template_id: templateId, signers, ...extra })

describe('PUT /api/v1/settings/reminders', () => {
  test.each([
    ['a string', { reminders: 'weekly' }],
    ['a NUL byte', { reminders: '\u0000' }],
    ['a huge number', { reminders: { first_after_days: 1e308, every_days: 1, max: 1 } }],
    ['a fraction', { reminders: { first_after_days: 1.5, every_days: 1, max: 1 } }],
    ['an extra key', { reminders: { first_after_days: 1, every_days: 1, max: 1, hourly: true } }],
    ['no body', ''],
    ['deep nesting', `{"reminders":${'['.repeat(5000)}${']'.repeat(5000)}}`],
  ])('%s is a 400 with an error body', async (_, body) => {
    const response = await putReminders(body)
    expect(response.status).toBe(400)
    expect(typeof (await bodyOf(response)).error).toBe('string')
  })

  test('100 at once all succeed and leave one of the values; the other workspace is untouched', async () => {
    const answers = await Promise.all(
      Array.from({ length: 100 }, (_, i) => putReminders({ reminders: { first_after_days: 1 + (i % 60), every_days: 1, max: 1 } })),
    )
    expect(answers.map((r) => r.status)).toEqual(Array.from({ length: 100 }, () => 200))
    const saved = await bodyOf<{ reminders: { first_after_days: number } }>(await server.request('/api/v1/settings/reminders', { key: org.apiKey }))
    expect(saved.reminders.first_after_days).toBeGreaterThanOrEqual(1)
    expect(await bodyOf(await server.request('/api/v1/settings/reminders', { key: other.apiKey }))).toEqual({ reminders: null })
  })
})

describe('POST /api/v1/documents with the extensions', () => {
  test.each([
    ['order as a string', {}, [0, 1, 2].map((role) => ({ role, email: uniqueEmail(), order: String(role + 1) }))],
    ['a huge order', {}, [0, 1, 2].map((role) => ({ role, email: uniqueEmail(), order: 1e308 }))],
    ['cc as an object', { cc: { email: 'a@example.com' } }, undefined],
    ['a NUL byte in a cc name', { cc: [{ email: uniqueEmail(), name: 'Carla\u0000' }] }, undefined],
    ['a NUL byte in a cc address', { cc: [{ email: 'carla\u0000@example.com' }] }, undefined],
    ['reminders as a number', { reminders: 3 }, undefined],
  ])('%s is a 400', async (_, extra, signers) => {
    const response = await create(extra, signers)
    expect(response.status).toBe(400)
    expect(typeof (await bodyOf(response)).error).toBe('string')
  })

  test("resending to another workspace's waiting signer is a 404, as for any document of theirs", async () => {
    const response = await create(
      {},
      [0, 1, 2].map((role) => ({ role, email: uniqueEmail(), order: role + 1 })),
    )
    const created = await bodyOf<{ id: string; signers: { id: string }[] }>(response)
    const resend = await server.request(`/api/v1/documents/${created.id}/signers/${created.signers[1]?.id ?? ''}/resend`, { method: 'POST', key: other.apiKey })
    expect(resend.status).toBe(404)
  })
})

test('two signers of one step finishing at the same instant invite the next step once', async () => {
  const emails = [uniqueEmail('a'), uniqueEmail('b'), uniqueEmail('c')]
  const response = await create(
    {},
    emails.map((email, role) => ({ role, email, order: role === 2 ? 2 : 1 })),
  )
  expect(response.status).toBe(201)
  const [a, b] = await Promise.all(
    emails.slice(0, 2).map(async (email) => new SignerClient(server, tokenFromMail((await server.mail.waitFor(email))[0]?.text), email)),
  )
  const finished = await Promise.all([a?.finish(valuesFor(0)), b?.finish(valuesFor(1))])
  expect(finished.map((r) => r?.status)).toEqual([200, 200])
  await server.mail.waitFor(emails[2] ?? '')
  await new Promise((resolve) => setTimeout(resolve, 700))
  expect(server.mail.messages.filter((m) => m.to?.some((to) => to.address === emails[2]))).toHaveLength(1)
})

test('admin jobs run refuses a NUL byte or nonsense in --now', async () => {
  for (const now of ['2030-01-01T00:00:00Z\u0000', 'x'.repeat(10_000)]) {
    await expect(executeAdminCommand(server.services, { name: 'jobs.run', now })).rejects.toMatchObject({ code: 'invalid_request' })
  }
})

test('the agent tool refuses a wrong order type as a tool error', async () => {
  const agent = await connectAgent(server, org.apiKey)
  const { body } = await callErrorResult(agent, 'create_and_send_document', {
    template_id: templateId,
    signers: [0, 1, 2].map((role) => ({ role, email: uniqueEmail(), order: 'first' })),
  })
  expect(body.code).toBe('validation_failed')
  expect(body.field).toContain('/signers/0/order')
  await agent.close()
})
