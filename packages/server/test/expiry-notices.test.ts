import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { executeAdminCommand } from '../src/admin/commands.ts'
import { bodyOf, postDocument, setupOrg, uniqueEmail, type Json, type TestOrg } from './helpers/api.ts'
import { createSignedInUser, type SignedInUser } from './helpers/session.ts'
import { richFields, SignerClient, tokenFromMail, valuesFor } from './helpers/signing.ts'
import { startTestServer, type TestServer } from './helpers/test-server.ts'

/*
 * Expiry notices (issue 22, an extension): the signers still to sign are warned once, a day
 * before expires_at, with a new link; when the document expires, its sender (or, for an API key,
 * the workspace's owners) is told who did not sign. Time moves with `admin jobs run --now`.
 */

let server: TestServer
let org: TestOrg
let owner: SignedInUser
let member: SignedInUser
let templateId: string

beforeAll(async () => {
  server = await startTestServer()
  org = await setupOrg(server, { name: 'Acme Expiry' })
  owner = await createSignedInUser(server, { orgId: org.orgId, role: 'owner', name: 'Olive Owner' })
  member = await createSignedInUser(server, { orgId: org.orgId, role: 'member', name: 'Max Member' })
  templateId = (await server.createTemplate(org.orgId, { fields: richFields([0, 1]) })).id
})
afterAll(() => server.close())

const HOUR = 3_600_000
const runJobs = async (at: number) => (await executeAdminCommand(server.services, { name: 'jobs.run', now: new Date(at).toISOString() })) as Json
const mailsTo = (email: string) => server.mail.messages.filter((m) => m.to?.some((to) => to.address === email))
const settle = () => new Promise((resolve) => setTimeout(resolve, 700))
const subjectsTo = (email: string) => mailsTo(email).map((m) => m.subject ?? '')

/** A two-signer document expiring in three days, sent with the API key or as `by`. */
async function sendExpiring(by?: SignedInUser) {
  const emails = [uniqueEmail('a'), uniqueEmail('b')]
  const expiresAt = new Date(Date.now() + 72 * HOUR)
  expiresAt.setUTCMilliseconds(0)
  const body = {
    template_id: templateId,
    signers: emails.map((email, role) => ({ role, email, name: `Signer ${role + 1}` })),
    expires_at: expiresAt.toISOString(),
  }
  const response = by ? await by.fetch('/api/v1/documents', { method: 'POST', json: body }) : await postDocument(server, org.apiKey, body)
  expect(response.status).toBe(201)
  const { id } = await bodyOf<{ id: string }>(response)
  return { id, emails, expiresAt: expiresAt.getTime() }
}

describe('the day before', () => {
  test('signers still to sign are warned once, with a new link; one who signed is not', async () => {
    const { id, emails, expiresAt } = await sendExpiring()
    const [a, b] = emails as [string, string]
    const [invitationA] = await server.mail.waitFor(a)
    const [invitationB] = await server.mail.waitFor(b)
    expect((await new SignerClient(server, tokenFromMail(invitationB?.text), b).finish(valuesFor(1))).status).toBe(200)

    await runJobs(expiresAt - 30 * HOUR)
    await settle()
    expect(subjectsTo(a).filter((s) => s.startsWith('Expires soon: '))).toEqual([])

    await runJobs(expiresAt - 20 * HOUR)
    const [, warning] = await server.mail.waitFor(a, 2)
    expect(warning?.subject).toMatch(/^Expires soon: /)
    expect(warning?.text).toContain('can be signed for one more day only')
    expect((await new SignerClient(server, tokenFromMail(invitationA?.text), a).page()).status).toBe(404)
    expect((await new SignerClient(server, tokenFromMail(warning?.text), a).page()).status).toBe(200)

    await runJobs(expiresAt - 10 * HOUR)
    await settle()
    expect(subjectsTo(a).filter((s) => s.startsWith('Expires soon: '))).toHaveLength(1)
    expect(subjectsTo(b).filter((s) => s.startsWith('Expires soon: '))).toEqual([])
    const trail = await bodyOf<{ events: { event: string; data: Json }[] }>(await server.request(`/api/v1/documents/${id}/audit`, { key: org.apiKey }))
    expect(trail.events.filter((e) => e.event === 'signer.expiry_warned').map((e) => e.data.email)).toEqual([a])
  })
})

describe('when it expires', () => {
  test("sent with an API key: the workspace's owners are told who did not sign", async () => {
    const { emails, expiresAt } = await sendExpiring()
    await server.mail.waitFor(emails[0] ?? '')
    const before = mailsTo(owner.email).length
    expect((await runJobs(expiresAt + 60_000)).documents_expired).toBeGreaterThanOrEqual(1)
    // The first test's document expires in the same sweep: find this one's notice by its signers.
    await server.mail.waitFor(owner.email, before + 1)
    await settle()
    const notice = mailsTo(owner.email).find((m) => m.text?.includes(emails[0] ?? ''))
    expect(notice?.subject).toMatch(/expired before everyone signed$/)
    expect(notice?.text).toContain(`Not signed by: Signer 1 (${emails[0]}), Signer 2 (${emails[1]}).`)
    expect(notice?.text).toContain('/app/documents/')
  })

  test('sent by a member from the dashboard: that member is told, not the owners', async () => {
    const { emails, expiresAt } = await sendExpiring(member)
    await server.mail.waitFor(emails[0] ?? '')
    await runJobs(expiresAt - 20 * HOUR)
    await server.mail.waitFor(emails[0] ?? '', 2)
    const ownerBefore = mailsTo(owner.email).length
    await runJobs(expiresAt + 60_000)
    const [notice] = await server.mail.waitFor(member.email)
    expect(notice?.subject).toMatch(/expired before everyone signed$/)
    await settle()
    expect(mailsTo(owner.email).length).toBe(ownerBefore)
  })
})
