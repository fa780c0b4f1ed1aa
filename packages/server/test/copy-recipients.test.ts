import { execFileSync } from 'node:child_process'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { bodyOf, postDocument, setupOrg, uniqueEmail, type Json, type TestOrg } from './helpers/api.ts'
import { callOk, connectAgent } from './helpers/mcp.ts'
import { makeTempDir } from './helpers/processes.ts'
import { richFields, SignerClient, tokenFromMail, valuesFor } from './helpers/signing.ts'
import { startTestServer, type TestServer } from './helpers/test-server.ts'

/*
 * Copy recipients (issue 22, an extension): `cc` on create; they sign nothing, get no link and
 * hear nothing until the document completes, then get the signed PDF; the certificate lists them.
 */

let server: TestServer
let org: TestOrg
let templateId: string

beforeAll(async () => {
  server = await startTestServer({ env: { JOB_POLL_MS: '100' } })
  org = await setupOrg(server, { name: 'Acme Copies' })
  templateId = (await server.createTemplate(org.orgId, { fields: richFields([0, 1]) })).id
})
afterAll(() => server.close())

const mailsTo = (email: string) => server.mail.messages.filter((m) => m.to?.some((to) => to.address === email))
const settle = () => new Promise((resolve) => setTimeout(resolve, 700))

async function send(cc: Json[]) {
  const emails = [uniqueEmail('a'), uniqueEmail('b')]
  const response = await postDocument(server, org.apiKey, { template_id: templateId, signers: emails.map((email, role) => ({ role, email })), cc })
  return { response, emails }
}

describe('cc', () => {
  test('nothing before completion; then the signed PDF, and the certificate names them', async () => {
    const copy = uniqueEmail('copy')
    const { response, emails } = await send([{ email: copy, name: 'Carla Copy' }])
    expect(response.status).toBe(201)
    const { id } = await bodyOf<{ id: string }>(response)
    const document = await bodyOf(await server.request(`/api/v1/documents/${id}`, { key: org.apiKey }))
    expect(document.cc).toEqual([{ email: copy, name: 'Carla Copy' }])

    const signers = await Promise.all(emails.map(async (email) => new SignerClient(server, tokenFromMail((await server.mail.waitFor(email))[0]?.text), email)))
    expect((await signers[0]?.finish(valuesFor(0)))?.status).toBe(200)
    await settle()
    expect(mailsTo(copy)).toEqual([])
    expect((await signers[1]?.finish(valuesFor(1)))?.status).toBe(200)

    const [done] = await server.mail.waitFor(copy, 1, 20_000)
    expect(done?.subject).toMatch(/is complete$/)
    expect(done?.text).toContain('who asked for you to receive a copy')
    expect(done?.text).not.toMatch(/\/sign\//)
    expect(done?.attachments.map((a) => a.mimeType)).toEqual(['application/pdf'])

    const pdf = Buffer.from(await (await server.request(`/api/v1/documents/${id}/signed-file`, { key: org.apiKey })).arrayBuffer())
    const path = join(makeTempDir('cc-pdf'), 'signed.pdf')
    writeFileSync(path, pdf)
    const text = execFileSync('pdftotext', ['-enc', 'UTF-8', path, '-'], { encoding: 'utf8' })
    expect(text).toContain('Copies sent to')
    expect(text).toContain(`Carla Copy <${copy}>`)
  })

  test('a declined document sends copy recipients nothing', async () => {
    const copy = uniqueEmail('copy')
    const { response, emails } = await send([{ email: copy }])
    expect(response.status).toBe(201)
    const first = new SignerClient(server, tokenFromMail((await server.mail.waitFor(emails[0] ?? ''))[0]?.text), emails[0] ?? '')
    expect((await first.decline()).status).toBe(200)
    await settle()
    expect(mailsTo(copy)).toEqual([])
  })

  test('without cc the document shows none', async () => {
    const { response } = await send([])
    const { id } = await bodyOf<{ id: string }>(response)
    expect(await bodyOf(await server.request(`/api/v1/documents/${id}`, { key: org.apiKey }))).not.toHaveProperty('cc')
  })

  test.each([
    ['more than 20', () => Array.from({ length: 21 }, () => ({ email: uniqueEmail() })), '/cc'],
    ['an address twice', () => [{ email: 'twice@example.com' }, { email: 'TWICE@example.com' }], '/cc/1/email'],
    ['a bad address', () => [{ email: 'not-an-address' }], '/cc/0/email'],
    ['an unknown key', () => [{ email: uniqueEmail(), role: 1 }], '/cc/0'],
  ])('%s is a 400 naming the field', async (_, cc, field) => {
    const { response } = await send(cc())
    expect(response.status).toBe(400)
    expect(String((await bodyOf(response)).field)).toContain(field)
  })

  test("a signer's own address is a 400 naming it", async () => {
    const signer = uniqueEmail('signer')
    const response = await postDocument(server, org.apiKey, {
      template_id: templateId,
      signers: [signer, uniqueEmail()].map((email, role) => ({ role, email })),
      cc: [{ email: signer.toUpperCase() }],
    })
    expect(response.status).toBe(400)
    expect((await bodyOf(response)).field).toBe('/cc/0/email')
  })

  test('the agent tool takes cc too', async () => {
    const agent = await connectAgent(server, org.apiKey)
    const copy = uniqueEmail('copy')
    const { structured } = await callOk<{ document_id: string }>(agent, 'create_and_send_document', {
      template_id: templateId,
      signers: [0, 1].map((role) => ({ role, email: uniqueEmail() })),
      cc: [{ email: copy }],
    })
    const { structured: status } = await callOk<Json>(agent, 'get_document_status', { document_id: structured.document_id })
    expect(status.cc).toEqual([{ email: copy, name: null }])
    await agent.close()
  })
})
