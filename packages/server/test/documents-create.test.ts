import { randomUUID } from 'node:crypto'
import { eq } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { signers } from '../src/db/schema.ts'
import { sha256Hex } from '../src/lib/crypto.ts'
import { bodyOf, expectError, fieldsForRoles, postDocument, setupOrg, uniqueEmail, type Json, type TestOrg } from './helpers/api.ts'
import { startTestServer, type TestServer } from './helpers/test-server.ts'

let server: TestServer
/** One org for the validation cases (each creates at most one document of its own). */
let org: TestOrg
/** A template of `org` that needs Party 1, 2 and 3 (roles 0, 1, 2). */
let threeParty: string

beforeAll(async () => {
  server = await startTestServer()
  org = await setupOrg(server)
  threeParty = (await server.createTemplate(org.orgId, { name: 'Three-party agreement', fields: fieldsForRoles([0, 1, 2]) })).id
})
afterAll(() => server.close())

const create = (body: unknown, apiKey = org.apiKey) => postDocument(server, apiKey, body)
const single = (signer: Json, extra: Json = {}) => create({ template_id: org.templateId, signer, ...extra })
const threeSigners = (overrides: Json[] = []) => [0, 1, 2].map((role) => ({ role, email: uniqueEmail(`party${role + 1}`), ...overrides[role] }))

/** Links in an invitation: PUBLIC_URL/sign/<token>. */
const SIGN_LINK = /http:\/\/signet\.test\/sign\/([A-Za-z0-9_-]+)/g
const linksIn = (text: string | undefined) => [...(text ?? '').matchAll(SIGN_LINK)].map((m) => m[1] as string)

describe('201 responses', () => {
  test('single signer: exactly id, status "sent", expires_at and auth_required', async () => {
    const response = await single({ email: uniqueEmail(), auth_required: true })
    expect(response.status).toBe(201)
    const body = await bodyOf(response)
    expect(body).toEqual({ id: expect.any(String) as unknown, status: 'sent', expires_at: null, auth_required: true })
  })

  test('single signer: auth_required defaults to false', async () => {
    const body = await bodyOf(await single({ email: uniqueEmail(), name: null }))
    expect(body.auth_required).toBe(false)
  })

  test('multi-party: exactly id, status, expires_at and signers of {id, role, email, auth_required} in request order', async () => {
    const given = [
      { role: 2, email: uniqueEmail('c'), auth_required: true },
      { role: 0, email: uniqueEmail('a'), name: 'Ann' },
      { role: 1, email: uniqueEmail('b'), auth_required: false },
    ]
    const response = await create({ template_id: threeParty, signers: given })
    expect(response.status).toBe(201)
    const body = await bodyOf<{ signers: { id: string }[] }>(response)
    expect(body).toEqual({
      id: expect.any(String) as unknown,
      status: 'sent',
      expires_at: null,
      signers: given.map((s) => ({ id: expect.any(String) as unknown, role: s.role, email: s.email, auth_required: s.auth_required ?? false })),
    })
    expect(new Set(body.signers.map((s) => s.id)).size).toBe(3)
  })

  test('a one-item signers array answers the multi-party shape', async () => {
    const email = uniqueEmail()
    const body = await bodyOf(await create({ template_id: org.templateId, signers: [{ role: 0, email }] }))
    expect(Object.keys(body).sort()).toEqual(['expires_at', 'id', 'signers', 'status'])
    expect(body.signers).toEqual([{ id: expect.any(String) as unknown, role: 0, email, auth_required: false }])
  })
})

describe('domain warnings', () => {
  test.each([
    ['a likely typo', 'gmial.com', /gmail\.com/],
    ['a disposable domain', 'mailinator.com', /disposable/i],
  ])('single signer: %s gives domain_warning', async (_name, domain, text) => {
    const response = await single({ email: uniqueEmail('a', domain) })
    expect(response.status).toBe(201)
    const body = await bodyOf(response)
    expect(Object.keys(body).sort()).toEqual(['auth_required', 'domain_warning', 'expires_at', 'id', 'status'])
    expect(body.domain_warning).toMatch(text)
  })

  test.each(['example.com', 'gmail.com', 'outlook.com', 'yahoo.com', 'acme.com', 'ibm.com'])('single signer: no domain_warning for %s', async (domain) => {
    const body = await bodyOf(await single({ email: uniqueEmail('a', domain) }))
    expect(body).not.toHaveProperty('domain_warning')
  })

  test('multi-party: domain_warnings lists one warning per doubtful domain', async () => {
    const response = await create({
      template_id: threeParty,
      signers: threeSigners([
        { email: uniqueEmail('a', 'gmial.com') },
        { email: uniqueEmail('b', 'example.com') },
        { email: uniqueEmail('c', 'mailinator.com') },
      ]),
    })
    expect(response.status).toBe(201)
    const body = await bodyOf<{ domain_warnings: string[] }>(response)
    expect(body.domain_warnings).toHaveLength(2)
    expect(body.domain_warnings[0]).toMatch(/gmail\.com/)
    expect(body.domain_warnings[1]).toMatch(/mailinator\.com/)
  })

  test('multi-party: no domain_warnings when every domain is ordinary', async () => {
    const body = await bodyOf(await create({ template_id: threeParty, signers: threeSigners() }))
    expect(body).not.toHaveProperty('domain_warnings')
  })
})

describe('template_id', () => {
  test.each([
    ['missing', undefined, /template_id is required/],
    ['not a UUID', 'template-1', /template_id/],
    ['a number', 42, /template_id/],
    ['an unknown UUID', randomUUID(), /template/i],
  ])('%s → 400', async (_name, templateId, text) => {
    await expectError(await create({ template_id: templateId, signer: { email: uniqueEmail() } }), 400, text)
  })

  test("another org's template is 400, exactly like an unknown one", async () => {
    const other = await setupOrg(server)
    const foreign = await create({ template_id: other.templateId, signer: { email: uniqueEmail() } })
    const unknown = await create({ template_id: randomUUID(), signer: { email: uniqueEmail() } })
    expect(foreign.status).toBe(400)
    expect(await bodyOf(foreign)).toEqual(await bodyOf(unknown))
  })
})

describe('signer and signers', () => {
  test('both → 400', async () => {
    const response = await create({ template_id: org.templateId, signer: { email: uniqueEmail() }, signers: [{ role: 0, email: uniqueEmail() }] })
    await expectError(response, 400, /signer.*signers/)
  })

  test('neither → 400', async () => {
    await expectError(await create({ template_id: org.templateId }), 400, /signer.*signers/)
  })

  test('an empty signers array → 400', async () => {
    await expectError(await create({ template_id: org.templateId, signers: [] }), 400, /signers/)
  })

  test('20 signers (roles 0–19) are accepted, 21 are not', async () => {
    const roles = Array.from({ length: 20 }, (_, role) => role)
    const twenty = (await server.createTemplate(org.orgId, { name: 'Twenty parties', fields: fieldsForRoles(roles) })).id
    const signersFor = (count: number) => Array.from({ length: count }, (_, i) => ({ role: i % 20, email: uniqueEmail(`p${i}`) }))

    const ok = await create({ template_id: twenty, signers: signersFor(20) })
    expect(ok.status).toBe(201)
    expect((await bodyOf<{ signers: unknown[] }>(ok)).signers).toHaveLength(20)
    await expectError(await create({ template_id: twenty, signers: signersFor(21) }), 400, /signers must have at most 20 items/)
  })

  test.each([
    ['20', 20],
    ['-1', -1],
    ['1.5', 1.5],
    ['"1" (a string)', '1'],
    ['null', null],
  ])('role %s → 400', async (_name, role) => {
    await expectError(await create({ template_id: org.templateId, signers: [{ role, email: uniqueEmail() }] }), 400, /signers\[0\]\.role/)
  })

  test('a signers item without a role → 400', async () => {
    await expectError(await create({ template_id: org.templateId, signers: [{ email: uniqueEmail() }] }), 400, /signers\[0\]\.role is required/)
  })

  test('a signer without an email → 400', async () => {
    await expectError(await single({ name: 'Ann' }), 400, /signer\.email is required/)
  })
})

describe('template roles', () => {
  test('every role the template uses needs a signer; the missing ones are named', async () => {
    const response = await create({ template_id: threeParty, signers: [{ role: 0, email: uniqueEmail() }] })
    const text = await expectError(response, 400)
    expect(text).toContain('Party 2 (role 1)')
    expect(text).toContain('Party 3 (role 2)')
    expect(text).not.toContain('Party 1 (role 0)')
  })

  test('a single signer for a multi-party template → 400 naming the other roles', async () => {
    const text = await expectError(await create({ template_id: threeParty, signer: { email: uniqueEmail() } }), 400)
    expect(text).toContain('Party 2 (role 1)')
    expect(text).toContain('Party 3 (role 2)')
  })

  test('a rejected request creates nothing and sends nothing', async () => {
    const fresh = await setupOrg(server)
    const template = (await server.createTemplate(fresh.orgId, { fields: fieldsForRoles([0, 1]) })).id
    const email = uniqueEmail()
    expect((await create({ template_id: template, signers: [{ role: 0, email }] }, fresh.apiKey)).status).toBe(400)
    const list = await bodyOf(await server.request('/api/v1/documents', { key: fresh.apiKey }))
    expect(list.total).toBe(0)
    const outbox = await server.services.db.query.outboundEmails.findMany({ where: (m, { eq: equals }) => equals(m.toAddress, email) })
    expect(outbox).toEqual([])
  })
})

describe('e-mail addresses', () => {
  test.each(['ann.lee@example.com', 'ann+contracts@mail.example.co.uk', "o'brien@example.ie", 'ANN@EXAMPLE.COM', 'a_b-c@my-company.travel'])(
    '%s is accepted',
    async (email) => {
      expect((await single({ email })).status).toBe(201)
    },
  )

  test.each([
    '.ann@example.com',
    'ann.@example.com',
    'ann..lee@example.com',
    'ann@example..com',
    'ann@.example.com',
    'ann@example.c',
    'ann@example.123',
    'ann@example',
    'ann@@example.com',
    'ann lee@example.com',
    '@example.com',
    'ann@',
    '',
  ])('%j → 400 (signer and signers)', async (email) => {
    await expectError(await single({ email }), 400, /signer\.email must be a valid e-mail address/)
    await expectError(await create({ template_id: org.templateId, signers: [{ role: 0, email }] }), 400, /signers\[0\]\.email/)
  })
})

describe('text limits', () => {
  test('name: 200 characters are accepted, 201 are not (signer and signers)', async () => {
    expect((await single({ email: uniqueEmail(), name: 'n'.repeat(200) })).status).toBe(201)
    await expectError(await single({ email: uniqueEmail(), name: 'n'.repeat(201) }), 400, /signer\.name/)
    const party = (name: string) => create({ template_id: org.templateId, signers: [{ role: 0, email: uniqueEmail(), name }] })
    expect((await party('n'.repeat(200))).status).toBe(201)
    await expectError(await party('n'.repeat(201)), 400, /signers\[0\]\.name/)
  })

  test('invite_subject: 200 characters are accepted, 201 are not', async () => {
    expect((await single({ email: uniqueEmail() }, { invite_subject: 's'.repeat(200) })).status).toBe(201)
    await expectError(await single({ email: uniqueEmail() }, { invite_subject: 's'.repeat(201) }), 400, /invite_subject must be at most 200/)
  })

  test('invite_message: 2000 characters are accepted, 2001 are not', async () => {
    expect((await single({ email: uniqueEmail() }, { invite_message: 'm'.repeat(2000) })).status).toBe(201)
    await expectError(await single({ email: uniqueEmail() }, { invite_message: 'm'.repeat(2001) }), 400, /invite_message must be at most 2000/)
  })
})

describe('expires_at', () => {
  test.each([
    ['2099-01-31T17:00:00Z', '2099-01-31T17:00:00.000Z'],
    ['2099-01-31T17:00Z', '2099-01-31T17:00:00.000Z'],
    ['2099-01-31T17:00:00.5Z', '2099-01-31T17:00:00.500Z'],
    ['2099-01-31T17:00:00.123456Z', '2099-01-31T17:00:00.123Z'],
    ['2028-02-29T12:00:00Z', '2028-02-29T12:00:00.000Z'],
    ['2096-02-29T12:00:00Z', '2096-02-29T12:00:00.000Z'],
  ])('%s is accepted as %s', async (input, stored) => {
    const response = await single({ email: uniqueEmail() }, { expires_at: input })
    expect(response.status).toBe(201)
    const body = await bodyOf<{ id: string; expires_at: string }>(response)
    expect(body.expires_at).toBe(stored)
    const read = await bodyOf(await server.request(`/api/v1/documents/${body.id}`, { key: org.apiKey }))
    expect(read.expires_at).toBe(stored)
  })

  test('"" means no expiry (null), in both response shapes', async () => {
    const one = await single({ email: uniqueEmail() }, { expires_at: '' })
    expect(await bodyOf(one)).toMatchObject({ expires_at: null })
    const many = await create({ template_id: org.templateId, signers: [{ role: 0, email: uniqueEmail() }], expires_at: '' })
    expect(await bodyOf(many)).toMatchObject({ expires_at: null })
  })

  test.each([
    ['a non-existent leap day', '2030-02-29T12:00:00Z'],
    ['a century that is not a leap year', '2100-02-29T12:00:00Z'],
    ['April 31st', '2099-04-31T12:00:00Z'],
    ['month 13', '2099-13-01T12:00:00Z'],
    ['hour 24', '2099-01-31T24:00:00Z'],
    ['a numeric offset', '2099-01-31T17:00:00+01:00'],
    ['a zero offset', '2099-01-31T17:00:00+00:00'],
    ['no zone', '2099-01-31T17:00:00'],
    ['a date only', '2099-01-31'],
    ['a space instead of T', '2099-01-31 17:00:00Z'],
    ['a past date', '2020-01-01T00:00:00Z'],
    ['a number', 4102444800],
    ['null', null],
  ])('%s → 400', async (_name, expiresAt) => {
    await expectError(await single({ email: uniqueEmail() }, { expires_at: expiresAt }), 400, /expires_at/)
  })
})

describe('unknown fields and types', () => {
  test.each([
    ['at the top level', { template_id: 'T', signer: { email: 'a@example.com' }, subject: 'x' }, /subject is not an allowed field/],
    ['inside signer', { template_id: 'T', signer: { email: 'a@example.com', phone: '1' } }, /signer\.phone is not an allowed field/],
    [
      'inside signers[i]',
      {
        template_id: 'T',
        signers: [
          { role: 0, email: 'a@example.com' },
          { role: 0, email: 'b@example.com', phone: '1' },
        ],
      },
      /signers\[1\]\.phone is not an allowed field/,
    ],
  ])('an unknown field %s → 400', async (_name, body, text) => {
    await expectError(await create({ ...body, template_id: org.templateId }), 400, text)
  })

  test.each([
    ['auth_required "true"', { signer: { email: 'a@example.com', auth_required: 'true' } }, /signer\.auth_required must be a boolean/],
    ['auth_required 1', { signer: { email: 'a@example.com', auth_required: 1 } }, /signer\.auth_required must be a boolean/],
    ['role "1"', { signers: [{ role: '0', email: 'a@example.com' }] }, /signers\[0\]\.role must be an integer/],
    ['a numeric name', { signer: { email: 'a@example.com', name: 7 } }, /signer\.name/],
    ['signer as an array', { signer: [{ email: 'a@example.com' }] }, /signer must be an object/],
    ['signers as an object', { signers: { role: 0, email: 'a@example.com' } }, /signers must be an array/],
    ['a numeric invite_subject', { signer: { email: 'a@example.com' }, invite_subject: 5 }, /invite_subject must be a string/],
  ])('no coercion: %s → 400', async (_name, body, text) => {
    await expectError(await create({ template_id: org.templateId, ...body }), 400, text)
  })

  test.each([
    ['an array', []],
    ['a string', 'hello'],
    ['null', null],
  ])('a body that is %s → 400', async (_name, body) => {
    await expectError(await create(body), 400, /JSON object/)
  })
})

describe('invitations', () => {
  test('each signer gets an invitation with a personal link; only the link token’s hash is stored', async () => {
    const emails = [uniqueEmail('first'), uniqueEmail('second')]
    const template = (await server.createTemplate(org.orgId, { name: 'Two-party lease', fields: fieldsForRoles([0, 1]) })).id
    const response = await create({
      template_id: template,
      signers: emails.map((email, role) => ({ role, email, name: `Signer ${role + 1}` })),
    })
    expect(response.status).toBe(201)
    const { id } = await bodyOf<{ id: string }>(response)

    const tokens: string[] = []
    for (const email of emails) {
      const [invitation] = await server.mail.waitFor(email)
      expect(invitation?.subject).toContain('Two-party lease')
      const links = linksIn(invitation?.text)
      expect(links.length).toBeGreaterThan(0)
      expect(new Set(links).size).toBe(1)
      // At least 128 bits of entropy: 22 base64url characters.
      expect((links[0] as string).length).toBeGreaterThanOrEqual(22)
      expect(linksIn(invitation?.html ?? '')).toContain(links[0])
      tokens.push(links[0] as string)
    }
    expect(new Set(tokens).size).toBe(2)

    const rows = await server.services.db.select().from(signers).where(eq(signers.documentId, id))
    expect(rows.map((r) => r.tokenHash).sort()).toEqual(tokens.map((t) => sha256Hex(t)).sort())
    const stored = JSON.stringify(rows)
    for (const token of tokens) expect(stored).not.toContain(token)
  })

  test('an empty invite_subject and invite_message mean the defaults', async () => {
    const email = uniqueEmail()
    expect((await single({ email }, { invite_subject: '', invite_message: '' })).status).toBe(201)
    const [invitation] = await server.mail.waitFor(email)
    expect(invitation?.subject).toMatch(/sent you "Test Agreement — [^"]+" to sign$/)
    expect(invitation?.html).not.toContain('<blockquote')
  })

  test('a custom subject and message are used, and user text is HTML-escaped', async () => {
    const email = uniqueEmail()
    const response = await single(
      { email, name: '<script>alert("name")</script>' },
      { invite_subject: 'Please sign: Q3 <contract>', invite_message: 'Hi & welcome.\n\n<b>Bold</b> <img src=x onerror=alert(1)>' },
    )
    expect(response.status).toBe(201)
    const [invitation] = await server.mail.waitFor(email)
    expect(invitation?.subject).toBe('Please sign: Q3 <contract>')
    expect(invitation?.text).toContain('<b>Bold</b> <img src=x onerror=alert(1)>')
    expect(invitation?.text).toContain('Hi & welcome.')
    const html = invitation?.html ?? ''
    expect(html).toContain('&lt;b&gt;Bold&lt;/b&gt; &lt;img src=x onerror=alert(1)&gt;')
    expect(html).toContain('Hi &amp; welcome.')
    expect(html).toContain('&lt;script&gt;alert(&quot;name&quot;)&lt;/script&gt;')
    expect(html).not.toMatch(/<script|<b>|<img/i)
  })
})
