import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { bodyOf, expectError, postDocument, setupOrg, uniqueEmail, type Json, type TestOrg } from './helpers/api.ts'
import { callErrorResult, callOk, connectAgent } from './helpers/mcp.ts'
import { richFields, SignerClient, tokenFromMail, valuesFor } from './helpers/signing.ts'
import { startTestServer, type TestServer } from './helpers/test-server.ts'
import { startWebhookReceiver, type WebhookReceiver } from './helpers/webhook-receiver.ts'

/*
 * Sequential signing (issue 22, an extension): signers carry an `order`; only the lowest unfinished
 * step is invited, the next one in the transaction of the step's last signature. Through real
 * HTTP, the real SMTP listener, a real webhook receiver and the official MCP client.
 */

let server: TestServer
let receiver: WebhookReceiver
let org: TestOrg
let templateId: string

beforeAll(async () => {
  ;[server, receiver] = await Promise.all([startTestServer({ env: { WEBHOOK_ALLOW_PRIVATE: 'true', JOB_POLL_MS: '100' } }), startWebhookReceiver()])
  org = await setupOrg(server, { name: 'Acme Sequential' })
  templateId = (await server.createTemplate(org.orgId, { fields: richFields([0, 1, 2]) })).id
})
afterAll(async () => {
  await Promise.all([server.close(), receiver.close()])
})

type SignerView = { id: string; email: string; status: string; order?: number; invited_at?: string | null }

const readDocument = async (id: string) =>
  bodyOf<{ status: string; signers: SignerView[] }>(await server.request(`/api/v1/documents/${id}`, { key: org.apiKey }))
const mailsTo = (email: string) => server.mail.messages.filter((m) => m.to?.some((to) => to.address === email))
/** Waits `ms` for mail that must not come. */
const settle = (ms = 700) => new Promise((resolve) => setTimeout(resolve, ms))

async function signerOf(email: string, nth = 1): Promise<SignerClient> {
  const mails = await server.mail.waitFor(email, nth)
  return new SignerClient(server, tokenFromMail(mails[nth - 1]?.text), email)
}

async function sendInOrder(orders: number[], target: TestOrg = org, template = templateId) {
  const emails = orders.map((_, i) => uniqueEmail(`step${orders[i]}`))
  const response = await postDocument(server, target.apiKey, {
    template_id: template,
    signers: orders.map((order, role) => ({ role, email: emails[role], name: `Signer ${role + 1}`, order })),
  })
  expect(response.status).toBe(201)
  return { created: await bodyOf<{ id: string; signers: Json[] }>(response), emails }
}

describe('orders 1, 2, 2', () => {
  test('invites only the first; both seconds at once after it signs; completes after both, every webhook exactly once', async () => {
    const hookOrg = await setupOrg(server, { name: 'Acme Hooks' })
    const hookTemplate = (await server.createTemplate(hookOrg.orgId, { fields: richFields([0, 1, 2]) })).id
    const registered = await server.request('/api/v1/webhooks', { method: 'POST', key: hookOrg.apiKey, json: { url: `${receiver.url}/sequential` } })
    expect(registered.status).toBe(201)
    const before = receiver.received.length

    const { created, emails } = await sendInOrder([1, 2, 2], hookOrg, hookTemplate)
    const [first, second, third] = emails as [string, string, string]
    expect(created.signers.map((s) => s.order)).toEqual([1, 2, 2])

    const firstSigner = await signerOf(first)
    await settle()
    expect([mailsTo(second).length, mailsTo(third).length]).toEqual([0, 0])
    const waiting = await bodyOf<{ signers: SignerView[] }>(await server.request(`/api/v1/documents/${created.id}`, { key: hookOrg.apiKey }))
    expect(waiting.signers.map((s) => [s.order, s.status, s.invited_at === null])).toEqual([
      [1, 'pending', false],
      [2, 'pending', true],
      [2, 'pending', true],
    ])

    expect((await firstSigner.finish(valuesFor(0))).status).toBe(200)
    const [secondSigner, thirdSigner] = await Promise.all([signerOf(second), signerOf(third)])
    expect((await secondSigner.finish(valuesFor(1))).status).toBe(200)
    const afterSecond = await bodyOf<{ status: string }>(await server.request(`/api/v1/documents/${created.id}`, { key: hookOrg.apiKey }))
    expect(afterSecond.status).toBe('sent')
    const last = await thirdSigner.finish(valuesFor(2))
    expect(await bodyOf(last)).toEqual({ status: 'signed', document_status: 'completed' })

    // viewed and signed per signer, then completed: seven deliveries, none twice.
    const deliveries = (await receiver.waitFor(before + 7)).slice(before)
    await settle()
    expect(receiver.received.length).toBe(before + 7)
    const events = deliveries.map((d) => JSON.parse(d.body) as { event: string; signer?: { email: string } })
    const keys = events.map((e) => `${e.event} ${e.signer?.email ?? ''}`)
    expect(new Set(keys).size).toBe(7)
    expect(events.filter((e) => e.event === 'document.completed')).toHaveLength(1)
    expect(events.filter((e) => e.event === 'document.signed')).toHaveLength(3)

    const trail = await bodyOf<{ events: { event: string; data: Json }[] }>(
      await server.request(`/api/v1/documents/${created.id}/audit`, { key: hookOrg.apiKey }),
    )
    expect(trail.events.filter((e) => e.event === 'signer.invited').map((e) => e.data)).toEqual([
      { email: second, order: 2 },
      { email: third, order: 2 },
    ])
  })
})

describe('who hears what', () => {
  test('a signer waiting for their step gets no resend, no decline notice and no void notice', async () => {
    const { created, emails } = await sendInOrder([1, 2, 3])
    const [, secondId] = created.signers.map((s) => s.id as string)
    await signerOf(emails[0] ?? '')
    // The list marks who is still waiting (the dashboard's Resend leaves them out).
    const listed = await bodyOf<{ documents: { id: string; recipients: Json[] }[] }>(
      await server.request(`/api/v1/documents?search=${encodeURIComponent(emails[0] ?? '')}`, { key: org.apiKey }),
    )
    expect(listed.documents.find((d) => d.id === created.id)?.recipients.map((r) => r.waiting ?? false)).toEqual([false, true, true])
    await expectError(
      await server.request(`/api/v1/documents/${created.id}/signers/${secondId}/resend`, { method: 'POST', key: org.apiKey }),
      409,
      /signs at a later step of the signing order/,
    )
    expect((await server.request(`/api/v1/documents/${created.id}/void`, { method: 'POST', key: org.apiKey })).status).toBe(200)
    await server.mail.waitFor(emails[0] ?? '', 2)
    await settle()
    expect([mailsTo(emails[1] ?? '').length, mailsTo(emails[2] ?? '').length]).toEqual([0, 0])
  })

  test('a decline at step 1 ends the document; later steps are never invited', async () => {
    const { created, emails } = await sendInOrder([1, 2, 2])
    const first = await signerOf(emails[0] ?? '')
    expect((await first.decline('Wrong terms')).status).toBe(200)
    await settle()
    expect((await readDocument(created.id)).status).toBe('declined')
    expect([mailsTo(emails[1] ?? '').length, mailsTo(emails[2] ?? '').length]).toEqual([0, 0])
  })

  test('orders need not be consecutive: 5 then 10; the invited signer can be sent a new link', async () => {
    const { created, emails } = await sendInOrder([10, 5, 10])
    const [a, b, c] = emails as [string, string, string]
    const firstLink = await signerOf(b)
    const resent = await server.request(`/api/v1/documents/${created.id}/signers/${String(created.signers[1]?.id)}/resend`, { method: 'POST', key: org.apiKey })
    expect(resent.status).toBe(202)
    const fresh = await signerOf(b, 2)
    expect((await firstLink.page()).status).toBe(404)
    expect((await fresh.finish(valuesFor(1))).status).toBe(200)
    const [signerA, signerC] = await Promise.all([signerOf(a), signerOf(c)])
    expect((await signerA.finish(valuesFor(0))).status).toBe(200)
    expect(await bodyOf(await signerC.finish(valuesFor(2)))).toEqual({ status: 'signed', document_status: 'completed' })
  })
})

describe('bad orders are a 400 naming the field', () => {
  const send = (signers: Json[]) => postDocument(server, org.apiKey, { template_id: templateId, signers })
  const three = (orders: (number | undefined)[]) => orders.map((order, role) => ({ role, email: uniqueEmail(), ...(order === undefined ? {} : { order }) }))

  test.each([
    [[0, 1, 1], '/signers/0/order'],
    [[1, 21, 2], '/signers/1/order'],
    [[1, 1.5, 2], '/signers/1/order'],
    [[1, 2, undefined], '/signers/2/order'],
  ])('orders %j', async (orders, field) => {
    const response = await send(three(orders))
    expect(response.status).toBe(400)
    expect((await bodyOf(response)).field).toBe(field)
  })

  test('a single signer takes no order', async () => {
    const response = await postDocument(server, org.apiKey, { template_id: org.templateId, signer: { email: uniqueEmail(), order: 1 } })
    expect(response.status).toBe(400)
  })
})

describe('without orders', () => {
  test("the spec's behaviour: everyone invited at once, and no order or invited_at in the document", async () => {
    const emails = [uniqueEmail(), uniqueEmail(), uniqueEmail()]
    const response = await postDocument(server, org.apiKey, { template_id: templateId, signers: emails.map((email, role) => ({ role, email })) })
    const created = await bodyOf<{ id: string; signers: Json[] }>(response)
    expect(created.signers.every((s) => !('order' in s))).toBe(true)
    await Promise.all(emails.map((email) => server.mail.waitFor(email)))
    const document = await readDocument(created.id)
    expect(document.signers.every((s) => !('order' in s) && !('invited_at' in s))).toBe(true)
    const listed = await bodyOf<{ documents: { id: string; recipients: Json[] }[] }>(
      await server.request(`/api/v1/documents?search=${encodeURIComponent(emails[0] ?? '')}`, { key: org.apiKey }),
    )
    expect(listed.documents.find((d) => d.id === created.id)?.recipients.every((r) => !('waiting' in r))).toBe(true)
  })
})

describe('over MCP', () => {
  test('create_and_send_document takes the same orders and refuses the same mistakes', async () => {
    const agent = await connectAgent(server, org.apiKey)
    const emails = [uniqueEmail(), uniqueEmail(), uniqueEmail()]
    const { structured } = await callOk<{ document_id: string; signers: Json[] }>(agent, 'create_and_send_document', {
      template_id: templateId,
      signers: emails.map((email, role) => ({ role, email, order: role + 1 })),
    })
    expect(structured.signers.map((s) => s.order)).toEqual([1, 2, 3])
    await server.mail.waitFor(emails[0] ?? '')
    const { structured: status } = await callOk<{ signers: SignerView[] }>(agent, 'get_document_status', { document_id: structured.document_id })
    expect(status.signers.map((s) => s.invited_at === null)).toEqual([false, true, true])

    const refused = await callErrorResult(agent, 'create_and_send_document', {
      template_id: templateId,
      signers: emails.map((email, role) => ({ role, email, ...(role === 0 ? {} : { order: role }) })),
    })
    expect(refused.body.field).toBe('/signers/0/order')
    await agent.close()
  })
})
