import { execFileSync } from 'node:child_process'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { bodyOf, expectError, postDocument, setupOrg, uniqueEmail, type Json, type TestOrg } from './helpers/api.ts'
import { callErrorResult, callOk, connectAgent } from './helpers/mcp.ts'
import { makeTempDir } from './helpers/processes.ts'
import { pngDataUrl, SignerClient, tokenFromMail } from './helpers/signing.ts'
import { startTestServer, type TestServer } from './helpers/test-server.ts'

/*
 * Richer fields and prefill (issue 22, an extension): radio, dropdown, number, email and name
 * fields placed through PUT …/fields as the editor does, filled on the signer's page and drawn in
 * the signed PDF; `fields` on a send prefills values, locked when read_only. The server checks
 * every entry again at finish: a forged one is a 400 naming the field. Real HTTP, real SMTP
 * listener, pdftotext on the signed PDF, the official MCP client.
 */

let server: TestServer
let org: TestOrg

beforeAll(async () => {
  server = await startTestServer({ env: { JOB_POLL_MS: '100' } })
  org = await setupOrg(server, { name: 'Acme Rentals' })
})
afterAll(() => server.close())

const box = (y: number, width = 200, height = 20) => ({ page: 1, x: 72, y, width, height })

/** One field of each kind for Party 1; the index of each is its id on the signer's page. */
const FIELDS = [
  { role: 0, type: 'signature', ...box(40, 180, 40) },
  { role: 0, type: 'radio', name: 'plan', label: 'Plan', options: ['Basic', 'Plus', 'Premium'], ...box(100, 160, 60) },
  { role: 0, type: 'dropdown', name: 'city', label: 'City', options: ['Berlin', 'Lisbon', 'Tokyo'], ...box(180) },
  { role: 0, type: 'number', name: 'rent', label: 'Rent', min: 100, max: 5000, ...box(220) },
  { role: 0, type: 'email', name: 'contact', label: 'Contact', ...box(260) },
  { role: 0, type: 'name', name: 'full_name', ...box(300) },
  { role: 0, type: 'text', name: 'note', label: 'Note', required: false, ...box(340) },
  { role: 0, type: 'checkbox', name: 'pets', label: 'Pets', required: false, ...box(380, 14, 14) },
]
const [SIGNATURE, PLAN, CITY, RENT, CONTACT, FULL_NAME, NOTE, PETS] = ['0', '1', '2', '3', '4', '5', '6', '7'] as const

const putFields = (templateId: string, fields: unknown) =>
  server.request(`/api/v1/templates/${templateId}/fields`, { method: 'PUT', key: org.apiKey, json: { fields } })

/** A new template whose fields were placed through the API, as the editor saves them. */
async function placedTemplate(fields: unknown = FIELDS): Promise<string> {
  const { id } = await server.createTemplate(org.orgId)
  const response = await putFields(id, fields)
  expect(response.status).toBe(200)
  return id
}

async function send(templateId: string, extra: Json = {}) {
  const email = uniqueEmail('tenant')
  const response = await postDocument(server, org.apiKey, { template_id: templateId, signer: { email, name: 'Nora Quill' }, ...extra })
  return { response, email }
}

async function sentSigner(templateId: string, extra: Json = {}): Promise<{ id: string; signer: SignerClient }> {
  const { response, email } = await send(templateId, extra)
  expect(response.status).toBe(201)
  const { id } = await bodyOf<{ id: string }>(response)
  const [mail] = await server.mail.waitFor(email)
  return { id, signer: new SignerClient(server, tokenFromMail(mail?.text), email) }
}

const finish = (signer: SignerClient, values: Record<string, string | number | boolean>) => signer.call('/finish', { json: { values } })

/** Every required field filled as a signer would. */
const goodValues = (): Record<string, string | number | boolean> => ({
  [SIGNATURE]: pngDataUrl(),
  [PLAN]: 'Plus',
  [CITY]: 'Lisbon',
  [RENT]: 1234.5,
  [CONTACT]: 'nora@example.org',
  [FULL_NAME]: 'Nora Quill',
})

async function signedPdfText(id: string): Promise<string> {
  for (let i = 0; i < 150; i++) {
    const response = await server.request(`/api/v1/documents/${id}/signed-file`, { key: org.apiKey })
    if (response.status === 200) {
      const path = join(makeTempDir('fields-rich'), 'signed.pdf')
      writeFileSync(path, Buffer.from(await response.arrayBuffer()))
      return execFileSync('pdftotext', ['-enc', 'UTF-8', '-layout', path, '-'], { encoding: 'utf8' })
    }
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  throw new Error('the signed PDF never appeared')
}

/** The opening tag of the control of field `id` on the signer's page. */
function controlOf(page: string, id: string): string {
  const field = new RegExp(`data-field-id="${id}"[^>]*>(<[^>]+>)`).exec(page)
  if (!field?.[1]) throw new Error(`no field ${id} on the page`)
  return field[1]
}

describe('every new field type, from the template API to the signed PDF', () => {
  test('PUT …/fields keeps names, options and bounds; the signer fills each; the signed PDF prints them', async () => {
    const templateId = await placedTemplate()
    const template = await bodyOf<{ fields: Json[] }>(await server.request(`/api/v1/templates/${templateId}`, { key: org.apiKey }))
    expect(template.fields[1]).toMatchObject({ type: 'radio', name: 'plan', options: ['Basic', 'Plus', 'Premium'], required: true })
    expect(template.fields[3]).toMatchObject({ type: 'number', name: 'rent', min: 100, max: 5000 })
    expect(template.fields[0]).not.toHaveProperty('options')

    const { id, signer } = await sentSigner(templateId)
    const page = await (await signer.page()).text()
    expect(controlOf(page, RENT)).toMatch(/type="number"[^>]* min="100" max="5000"/)
    expect(controlOf(page, CONTACT)).toContain('type="email"')
    expect(controlOf(page, CITY)).toMatch(/^<select/)
    expect(controlOf(page, PLAN)).toContain('role="radiogroup"')
    expect(page.match(/type="radio" name="field-1"/g)).toHaveLength(3)
    // The name field starts as the signer's name.
    expect(controlOf(page, FULL_NAME)).toContain('value="Nora Quill"')

    const response = await finish(signer, { ...goodValues(), [NOTE]: 'Ground floor', [PETS]: true })
    expect(response.status).toBe(200)
    expect(await bodyOf(response)).toEqual({ status: 'signed', document_status: 'completed' })

    const text = await signedPdfText(id)
    // A radio group prints every option (the chosen one marked); a dropdown only the choice.
    for (const shown of ['Basic', 'Plus', 'Premium', 'Lisbon', '1234.5', 'nora@example.org', 'Nora Quill', 'Ground floor']) expect(text).toContain(shown)
    expect(text).not.toContain('Berlin')
    expect(text).not.toContain('Tokyo')
  })

  test.each([
    ['a dropdown without options', [{ role: 0, type: 'dropdown', ...box(100) }], '/fields/0/options', /needs its options/],
    ['a radio without options', [{ role: 0, type: 'radio', ...box(100) }], '/fields/0/options', /needs its options/],
    ['an empty options list', [{ role: 0, type: 'radio', options: [], ...box(100) }], '/fields/0/options', /options/],
    ['options on a text field', [{ role: 0, type: 'text', options: ['a'], ...box(100) }], '/fields/0/options', /only radio and dropdown/],
    ['an option twice', [{ role: 0, type: 'dropdown', options: ['Yes', ' Yes'], ...box(100) }], '/fields/0/options/1', /listed twice/],
    ['min greater than max', [{ role: 0, type: 'number', min: 10, max: 1, ...box(100) }], '/fields/0/min', /min \(10\) is greater than max \(1\)/],
    ['a bound on a text field', [{ role: 0, type: 'text', max: 3, ...box(100) }], '/fields/0/max', /only number fields/],
    [
      'a name used twice',
      [
        { role: 0, type: 'text', name: 'rent', ...box(100) },
        { role: 0, type: 'number', name: 'rent', ...box(140) },
      ],
      '/fields/1/name',
      /already fields\[0\]/,
    ],
    ['a name that is not an identifier', [{ role: 0, type: 'text', name: 'monthly rent', ...box(100) }], '/fields/0/name', /Invalid fields/],
    ['an unknown type', [{ role: 0, type: 'slider', ...box(100) }], '/fields/0/type', /Invalid fields/],
  ])('PUT …/fields with %s is a 400 naming it', async (_, fields, pointer, message) => {
    const { id } = await server.createTemplate(org.orgId)
    const response = await putFields(id, fields)
    await expectError(response, 400, message)
    expect((await bodyOf(await putFields(id, fields))).field).toBe(pointer)
  })
})

describe('the server checks every entry at finish', () => {
  test.each([
    ['a number out of range', { [RENT]: 5001 }, RENT, /must be at most 5000/],
    ['a number below min', { [RENT]: 99.5 }, RENT, /must be at least 100/],
    ['a number as text', { [RENT]: '1000' }, RENT, /needs a number/],
    ['a radio option not offered', { [PLAN]: 'Gold' }, PLAN, /has no option "Gold"/],
    ['a dropdown option not offered', { [CITY]: 'Paris' }, CITY, /has no option "Paris"/],
    ['an e-mail that is not one', { [CONTACT]: 'not-an-address' }, CONTACT, /needs an e-mail address/],
    ['a required choice left out', { [PLAN]: undefined }, PLAN, /is required/],
    ['a required name left blank', { [FULL_NAME]: '   ' }, FULL_NAME, /is required/],
  ])('%s is a 400 naming the field, and the signer can still sign', async (_, change, id, message) => {
    const { signer } = await sentSigner(await sharedTemplate())
    const values: Record<string, string | number | boolean> = goodValues()
    for (const [key, value] of Object.entries(change as Record<string, string | number | undefined>)) {
      if (value === undefined) delete values[key]
      else values[key] = value
    }
    await expectError(await finish(signer, values), 400, message)
    expect((await bodyOf(await finish(signer, values))).field).toBe(`/values/${id}`)
    expect((await finish(signer, goodValues())).status).toBe(200)
  })
})

let shared: Promise<string> | undefined
/** One template for the tests that only send (a template with documents can no longer change its fields). */
const sharedTemplate = () => (shared ??= placedTemplate())

describe('prefill', () => {
  const PREFILL = [
    { name: 'rent', value: 950, read_only: true },
    { name: 'city', value: 'Tokyo' },
    { id: 6, value: '  Prefilled note  ', read_only: true },
    { name: 'pets', value: true, read_only: true },
    { name: 'plan', value: 'Premium' },
  ]

  test('the signer sees prefilled values, locked when read-only; a forged change is a 400; the PDF prints the prefilled value', async () => {
    const { id, signer } = await sentSigner(await sharedTemplate(), { fields: PREFILL })
    const page = await (await signer.page()).text()
    expect(controlOf(page, RENT)).toMatch(/value="950" readonly aria-readonly="true" data-locked/)
    expect(controlOf(page, NOTE)).toMatch(/value="Prefilled note" readonly/)
    expect(controlOf(page, PETS)).toMatch(/checked disabled data-locked/)
    expect(page).toContain('<option value="Tokyo" selected>Tokyo</option>')
    expect(page).toMatch(/value="Premium" checked>/)
    expect(controlOf(page, CITY)).not.toContain('data-locked')

    // Read-only: a different value is refused, naming the field; the same value (or none) is fine.
    const rest = goodValues()
    delete rest[RENT]
    await expectError(await finish(signer, { ...rest, [RENT]: 960 }), 400, /was filled in by the sender and cannot be changed/)
    expect((await bodyOf(await finish(signer, { ...rest, [NOTE]: 'Changed' }))).field).toBe(`/values/${NOTE}`)
    expect((await bodyOf(await finish(signer, { ...rest, [PETS]: false }))).field).toBe(`/values/${PETS}`)
    // Not read-only: the signer's choice wins (Berlin over the prefilled Tokyo, Basic over Premium).
    const response = await finish(signer, { ...rest, [CITY]: 'Berlin', [PLAN]: 'Basic', [RENT]: 950 })
    expect(response.status).toBe(200)

    const text = await signedPdfText(id)
    for (const shown of ['950', 'Prefilled note', 'Berlin']) expect(text).toContain(shown)
    expect(text).not.toContain('1234.5')
    expect(text).not.toContain('Tokyo')
  })

  test('a document without prefill shows empty fields', async () => {
    const { signer } = await sentSigner(await sharedTemplate())
    const page = await (await signer.page()).text()
    expect(controlOf(page, RENT)).toContain('value=""')
    expect(page).not.toContain('data-locked')
  })

  test.each([
    ['a field that does not exist (name)', [{ name: 'deposit', value: 5 }], '/fields/0/name', /no field named "deposit"/],
    ['a field that does not exist (id)', [{ id: 99, value: 5 }], '/fields/0/id', /has no field 99/],
    ['neither name nor id', [{ value: 5 }], '/fields/0', /either `name` or `id`/],
    ['both name and id', [{ name: 'rent', id: 3, value: 500 }], '/fields/0', /either `name` or `id`/],
    ['a number as text', [{ name: 'rent', value: '950' }], '/fields/0/value', /needs a number/],
    ['a number out of range', [{ name: 'rent', value: 99999 }], '/fields/0/value', /must be at most 5000/],
    ['an option not offered', [{ name: 'city', value: 'Paris' }], '/fields/0/value', /has no option "Paris"/],
    ['a checkbox given text', [{ name: 'pets', value: 'yes' }], '/fields/0/value', /needs true or false/],
    ['an e-mail that is not one', [{ name: 'contact', value: 'nobody' }], '/fields/0/value', /needs an e-mail address/],
    ['a signature field', [{ id: 0, value: 'x' }], '/fields/0', /only text, number, email, checkbox, radio and dropdown/],
    ['a name field', [{ name: 'full_name', value: 'Someone Else' }], '/fields/0', /which the signer fills/],
    ['an empty text', [{ name: 'note', value: '  ' }], '/fields/0/value', /cannot be empty/],
    [
      'the same field twice',
      [
        { name: 'rent', value: 500 },
        { id: 3, value: 600 },
      ],
      '/fields/1',
      /prefilled twice/,
    ],
    ['an unknown key', [{ name: 'rent', value: 500, locked: true }], '/fields/0/locked', /locked/],
  ])('%s is a 400 naming it, and nothing is sent', async (_, fields, pointer, message) => {
    const { response, email } = await send(await sharedTemplate(), { fields })
    const text = await expectError(response, 400, message)
    expect(text.length).toBeGreaterThan(0)
    expect((await bodyOf((await send(await sharedTemplate(), { fields })).response)).field).toBe(pointer)
    await new Promise((resolve) => setTimeout(resolve, 300))
    expect(server.mail.messages.filter((m) => m.to?.some((to) => to.address === email))).toEqual([])
  })

  test('the agent tool takes the same `fields`, and names a bad one', async () => {
    const agent = await connectAgent(server, org.apiKey)
    const email = uniqueEmail('agent-tenant')
    await callOk(agent, 'create_and_send_document', {
      template_id: await sharedTemplate(),
      signer_email: email,
      fields: [{ name: 'rent', value: 1800, read_only: true }],
    })
    const [mail] = await server.mail.waitFor(email)
    const page = await (await new SignerClient(server, tokenFromMail(mail?.text), email).page()).text()
    expect(controlOf(page, RENT)).toMatch(/value="1800" readonly/)

    const { body } = await callErrorResult(agent, 'create_and_send_document', {
      template_id: await sharedTemplate(),
      signer_email: uniqueEmail(),
      fields: [{ name: 'rent', value: 1 }],
    })
    expect(body).toMatchObject({ code: 'invalid_request', field: '/fields/0/value' })
    await agent.close()
  })
})
