import { execFileSync } from 'node:child_process'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { bodyOf, expectError, postDocument, setupOrg, uniqueEmail, type Json, type TestOrg } from './helpers/api.ts'
import { callOk, connectAgent } from './helpers/mcp.ts'
import { makeTempDir } from './helpers/processes.ts'
import { richFields, SignerClient, tokenFromMail, valuesFor } from './helpers/signing.ts'
import { startTestServer, type TestServer } from './helpers/test-server.ts'

/*
 * Named roles (issue 22, an extension): a template calls its roles "Landlord" and "Tenant" and may
 * give each a default step; a send copies the names onto its signers (a later rename changes no
 * sent document) and takes the default steps when the request gives no order. Through real HTTP,
 * the real SMTP listener, the signer's page, pdftotext on the signed PDF and the official MCP client.
 */

let server: TestServer
let org: TestOrg

beforeAll(async () => {
  server = await startTestServer({ env: { JOB_POLL_MS: '100' } })
  org = await setupOrg(server, { name: 'Acme Lettings' })
})
afterAll(() => server.close())

type RoleEntry = { role: number; name: string; order?: number }
type SignerView = { role: number; email: string; role_name?: string; order?: number; invited_at?: string | null }

const newTemplate = async (roles = [0, 1]) => (await server.createTemplate(org.orgId, { fields: richFields(roles) })).id
const putRoles = (templateId: string, roles: unknown) =>
  server.request(`/api/v1/templates/${templateId}/roles`, { method: 'PUT', key: org.apiKey, json: { roles } })
const readDocument = async (id: string) => bodyOf<{ signers: SignerView[] }>(await server.request(`/api/v1/documents/${id}`, { key: org.apiKey }))
const mailsTo = (email: string) => server.mail.messages.filter((m) => m.to?.some((to) => to.address === email))
const settle = () => new Promise((resolve) => setTimeout(resolve, 700))

async function named(roles: RoleEntry[], templateRoles = [0, 1]): Promise<string> {
  const templateId = await newTemplate(templateRoles)
  const response = await putRoles(templateId, roles)
  expect(response.status).toBe(200)
  return templateId
}

/** Sends to one new address per role; `orders[i]` (a number, null, or left out) on signer i. */
async function send(templateId: string, roles: number[], orders?: (number | null)[]) {
  const emails = roles.map((role) => uniqueEmail(`role${role}`))
  const response = await postDocument(server, org.apiKey, {
    template_id: templateId,
    signers: roles.map((role, i) => ({ role, email: emails[i], name: `Person ${role + 1}`, ...(orders ? { order: orders[i] } : {}) })),
  })
  expect(response.status).toBe(201)
  return { created: await bodyOf<{ id: string; signers: SignerView[] }>(response), emails }
}

async function signerOf(email: string): Promise<SignerClient> {
  const [mail] = await server.mail.waitFor(email)
  return new SignerClient(server, tokenFromMail(mail?.text), email)
}

describe('naming roles', () => {
  test('PUT …/roles names them; the template, its list entry and the API read them back; [] clears them', async () => {
    const templateId = await newTemplate()
    const response = await putRoles(templateId, [
      { role: 1, name: '  Tenant ' },
      { role: 0, name: 'Landlord' },
    ])
    expect(response.status).toBe(200)
    const detail = await bodyOf<Json>(response)
    expect(detail.role_names).toEqual([
      { role: 0, name: 'Landlord' },
      { role: 1, name: 'Tenant' },
    ])
    const listed = await bodyOf<{ templates: Json[] }>(await server.request('/api/v1/templates', { key: org.apiKey }))
    expect(listed.templates.find((t) => t.id === templateId)?.role_names).toEqual(detail.role_names)

    expect((await putRoles(templateId, [])).status).toBe(200)
    const cleared = await bodyOf<Json>(await server.request(`/api/v1/templates/${templateId}`, { key: org.apiKey }))
    expect(cleared).not.toHaveProperty('role_names')
  })

  test('a template nobody named shows no role_names, and its documents no role_name (the spec shapes)', async () => {
    const templateId = await newTemplate()
    const template = await bodyOf<Json>(await server.request(`/api/v1/templates/${templateId}`, { key: org.apiKey }))
    expect(template).not.toHaveProperty('role_names')
    const { created } = await send(templateId, [0, 1])
    expect(created.signers.map((s) => Object.keys(s).sort())).toEqual([
      ['auth_required', 'email', 'id', 'role'],
      ['auth_required', 'email', 'id', 'role'],
    ])
    const document = await readDocument(created.id)
    expect(document.signers.every((s) => !('role_name' in s) && !('order' in s))).toBe(true)
  })

  test.each([
    ['an empty name', [{ role: 0, name: '' }], '/roles/0/name'],
    ['a name of spaces', [{ role: 0, name: '   ' }], '/roles/0/name'],
    ['a name over 100 characters', [{ role: 0, name: 'L'.repeat(101) }], '/roles/0/name'],
    ['a name with a line break', [{ role: 0, name: 'Land\nlord' }], '/roles/0/name'],
    [
      'the same name twice',
      [
        { role: 0, name: 'Party' },
        { role: 1, name: 'party' },
      ],
      '/roles/1/name',
    ],
    ["another role's default name", [{ role: 0, name: 'Party 2' }], '/roles/0/name'],
    ['a role without fields', [{ role: 5, name: 'Witness' }], '/roles/0/role'],
    [
      'a role listed twice',
      [
        { role: 0, name: 'Landlord' },
        { role: 0, name: 'Owner' },
      ],
      '/roles/1/role',
    ],
    ['a role over 19', [{ role: 20, name: 'Witness' }], '/roles/0/role'],
    [
      'order 0',
      [
        { role: 0, name: 'Landlord', order: 0 },
        { role: 1, name: 'Tenant', order: 1 },
      ],
      '/roles/0/order',
    ],
    [
      'order 21',
      [
        { role: 0, name: 'Landlord', order: 21 },
        { role: 1, name: 'Tenant', order: 1 },
      ],
      '/roles/0/order',
    ],
    [
      'a step on one role but not the other',
      [
        { role: 0, name: 'Landlord', order: 1 },
        { role: 1, name: 'Tenant' },
      ],
      '/roles/1/order',
    ],
    ['a step on a role with the other left out', [{ role: 0, name: 'Landlord', order: 1 }], '/roles'],
    ['an unknown property', [{ role: 0, name: 'Landlord', colour: 'red' }], '/roles/0/colour'],
  ])('%s is a 400 naming the field', async (_, roles, field) => {
    const templateId = await newTemplate()
    const response = await putRoles(templateId, roles)
    await expectError(response.clone(), 400)
    expect((await bodyOf(response)).field).toBe(field)
    // Nothing was stored.
    expect(await bodyOf<Json>(await server.request(`/api/v1/templates/${templateId}`, { key: org.apiKey }))).not.toHaveProperty('role_names')
  })

  test("another workspace's template, or none, is a 404", async () => {
    const other = await setupOrg(server, { name: 'Elsewhere' })
    const theirs = (await server.createTemplate(other.orgId, { fields: richFields([0]) })).id
    await expectError(await putRoles(theirs, [{ role: 0, name: 'Landlord' }]), 404, 'Template not found.')
    await expectError(await putRoles('not-a-uuid', [{ role: 0, name: 'Landlord' }]), 404, 'Template not found.')
  })

  test('new fields keep the names of roles still there, and drop default steps that no longer cover every role', async () => {
    const templateId = await named([
      { role: 0, name: 'Landlord', order: 2 },
      { role: 1, name: 'Tenant', order: 1 },
    ])
    const putFields = (roles: number[]) =>
      server.request(`/api/v1/templates/${templateId}/fields`, { method: 'PUT', key: org.apiKey, json: { fields: richFields(roles) } })
    const fewer = await bodyOf<Json>(await putFields([1]))
    expect(fewer.role_names).toEqual([{ role: 1, name: 'Tenant', order: 1 }])
    const more = await bodyOf<Json>(await putFields([0, 1]))
    expect(more.role_names).toEqual([{ role: 1, name: 'Tenant' }])
  })
})

describe('sending a template with named roles', () => {
  test('the names are copied at send: a rename afterwards changes the next document, not this one', async () => {
    const templateId = await named([
      { role: 0, name: 'Landlord' },
      { role: 1, name: 'Tenant' },
    ])
    const { created } = await send(templateId, [0, 1])
    expect(created.signers.map((s) => s.role_name)).toEqual(['Landlord', 'Tenant'])
    expect((await putRoles(templateId, [{ role: 0, name: 'Owner' }])).status).toBe(200)
    expect((await readDocument(created.id)).signers.map((s) => s.role_name)).toEqual(['Landlord', 'Tenant'])
    const next = await send(templateId, [0, 1])
    expect((await readDocument(next.created.id)).signers.map((s) => s.role_name ?? null)).toEqual(['Owner', null])
  })

  test('the invitation, the signer page and the signed PDF certificate name each role', async () => {
    const templateId = await named([
      { role: 0, name: 'Landlord' },
      { role: 1, name: 'Tenant' },
    ])
    const { created, emails } = await send(templateId, [0, 1])
    const [landlordMail] = await server.mail.waitFor(emails[0] ?? '')
    const [tenantMail] = await server.mail.waitFor(emails[1] ?? '')
    expect(landlordMail?.text).toContain('You sign as Landlord.')
    expect(landlordMail?.html).toContain('You sign as Landlord.')
    expect(tenantMail?.text).toContain('You sign as Tenant.')

    const landlord = new SignerClient(server, tokenFromMail(landlordMail?.text), emails[0] ?? '')
    const tenant = new SignerClient(server, tokenFromMail(tenantMail?.text), emails[1] ?? '')
    const page = await (await landlord.page()).text()
    expect(page).toContain('Role: <strong>Landlord</strong>')
    expect(page).not.toContain('Tenant')

    expect((await landlord.finish(valuesFor(0))).status).toBe(200)
    expect((await tenant.finish(valuesFor(1))).status).toBe(200)
    await server.mail.waitFor(emails[0] ?? '', 2, 20_000)
    const pdf = Buffer.from(await (await server.request(`/api/v1/documents/${created.id}/signed-file`, { key: org.apiKey })).arrayBuffer())
    const path = join(makeTempDir('roles-pdf'), 'signed.pdf')
    writeFileSync(path, pdf)
    const text = execFileSync('pdftotext', ['-enc', 'UTF-8', path, '-'], { encoding: 'utf8' })
    const certificate = text.slice(text.indexOf('Signers (2)'))
    expect(certificate).toMatch(/Person 1\s+Landlord/)
    expect(certificate).toMatch(/Person 2\s+Tenant/)
    expect(certificate).not.toContain('Party 1')
  })

  test('an unnamed role gets no role line in its mail nor on its page', async () => {
    const templateId = await named([{ role: 0, name: 'Landlord' }])
    const { emails } = await send(templateId, [0, 1])
    const [mail] = await server.mail.waitFor(emails[1] ?? '')
    expect(mail?.text).not.toContain('You sign as')
    const page = await (await (await signerOf(emails[1] ?? '')).page()).text()
    expect(page).not.toContain('Role:')
  })

  test("without an order the template's default steps apply: only the first step is invited", async () => {
    const templateId = await named([
      { role: 0, name: 'Landlord', order: 2 },
      { role: 1, name: 'Tenant', order: 1 },
    ])
    const { created, emails } = await send(templateId, [0, 1])
    expect(created.signers.map((s) => [s.role_name, s.order])).toEqual([
      ['Landlord', 2],
      ['Tenant', 1],
    ])
    const tenant = await signerOf(emails[1] ?? '')
    await settle()
    expect(mailsTo(emails[0] ?? '')).toEqual([])
    expect((await readDocument(created.id)).signers.map((s) => [s.order, s.invited_at === null])).toEqual([
      [2, true],
      [1, false],
    ])
    expect((await tenant.finish(valuesFor(1))).status).toBe(200)
    const [next] = await server.mail.waitFor(emails[0] ?? '')
    expect(next?.text).toContain('You sign as Landlord.')
  })

  test("the request's own orders win over the template's", async () => {
    const templateId = await named([
      { role: 0, name: 'Landlord', order: 2 },
      { role: 1, name: 'Tenant', order: 1 },
    ])
    const { created, emails } = await send(templateId, [0, 1], [1, 2])
    expect(created.signers.map((s) => s.order)).toEqual([1, 2])
    await server.mail.waitFor(emails[0] ?? '')
    await settle()
    expect(mailsTo(emails[1] ?? '')).toEqual([])
  })

  test("order: null on every signer invites everyone at once, whatever the template's default steps", async () => {
    const templateId = await named([
      { role: 0, name: 'Landlord', order: 2 },
      { role: 1, name: 'Tenant', order: 1 },
    ])
    const { created, emails } = await send(templateId, [0, 1], [null, null])
    expect(created.signers.map((s) => 'order' in s)).toEqual([false, false])
    await Promise.all(emails.map((email) => server.mail.waitFor(email)))
    expect((await readDocument(created.id)).signers.every((s) => !('order' in s))).toBe(true)
  })

  test('an order on one signer and null on the other is the 400 of a half-ordered list', async () => {
    const templateId = await named([{ role: 0, name: 'Landlord' }])
    const response = await postDocument(server, org.apiKey, {
      template_id: templateId,
      signers: [
        { role: 0, email: uniqueEmail(), order: 1 },
        { role: 1, email: uniqueEmail(), order: null },
      ],
    })
    await expectError(response.clone(), 400, /signers\[1\]\.order is missing/)
    expect((await bodyOf(response)).field).toBe('/signers/1/order')
  })

  test('a single signer gets the name of role 0 and no step', async () => {
    const templateId = await named([{ role: 0, name: 'Buyer', order: 1 }], [0])
    const email = uniqueEmail('single')
    const response = await postDocument(server, org.apiKey, { template_id: templateId, signer: { email } })
    expect(response.status).toBe(201)
    const { id } = await bodyOf<{ id: string }>(response)
    expect((await readDocument(id)).signers).toEqual([expect.objectContaining({ role: 0, role_name: 'Buyer' })])
    expect((await readDocument(id)).signers[0]).not.toHaveProperty('order')
    const [mail] = await server.mail.waitFor(email)
    expect(mail?.text).toContain('You sign as Buyer.')
  })

  test("the agent tool takes the template's default steps and shows the names", async () => {
    const templateId = await named([
      { role: 0, name: 'Landlord', order: 2 },
      { role: 1, name: 'Tenant', order: 1 },
    ])
    const agent = await connectAgent(server, org.apiKey)
    try {
      const { structured: listed } = await callOk<{ templates: Json[] }>(agent, 'list_templates', {})
      expect(listed.templates.find((t) => t.id === templateId)?.role_names).toEqual([
        { role: 0, name: 'Landlord', order: 2 },
        { role: 1, name: 'Tenant', order: 1 },
      ])
      const emails = [uniqueEmail('agent-landlord'), uniqueEmail('agent-tenant')]
      const { structured: created } = await callOk<{ signers: SignerView[] }>(agent, 'create_and_send_document', {
        template_id: templateId,
        signers: emails.map((email, role) => ({ role, email })),
      })
      expect(created.signers.map((s) => [s.role_name, s.order])).toEqual([
        ['Landlord', 2],
        ['Tenant', 1],
      ])
    } finally {
      await agent.close()
    }
  })
})
