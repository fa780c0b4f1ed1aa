import type { Client } from '@modelcontextprotocol/sdk/client/index.js'
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { CreateDocumentBody } from '../src/documents/documents.schemas.ts'
import { STATUS_BY_CODE, type ErrorCode } from '../src/errors.ts'
import { MAX_JSON_DEPTH } from '../src/http/json-scan.ts'
import { WorkspaceSignerLanguage } from '../src/signing/i18n/signer-language-setting.ts'
import { SetTemplateRolesBody } from '../src/templates/roles.schemas.ts'
import { executeAdminCommand } from '../src/admin/commands.ts'
import { bodyOf, expectError, setupOrg, uniqueEmail, type Json, type TestOrg } from './helpers/api.ts'
import { jsonText, objectPathsIn, pathsIn, RawNumber, REMOVE, withValueAt, type JsonSchema } from './helpers/fuzz-values.ts'
import { attackFromOutside, healthDuring } from './helpers/health-watch.ts'
import { callErrorResult, connectAgent } from './helpers/mcp.ts'
import { createSignedInUser } from './helpers/session.ts'
import { richFields } from './helpers/signing.ts'
import { startTestServer, type TestServer } from './helpers/test-server.ts'

/*
 * Issue 22's new inputs under hostile use, through real HTTP and the official MCP client:
 * PUT /templates/{id}/roles, GET/PUT /settings/signer-language, POST /documents with `fields`
 * (prefill), `language`, `cc`, signer `order` and `reminders`, and the agent tool
 * create_and_send_document with the same arguments. Every property of each body is sent every
 * JSON type it does not take, NUL bytes, lone surrogates, bidi overrides, tag characters, huge
 * strings, hostile numbers; then unknown and odd keys, deep nesting, bodies at and past the body
 * limit, huge arrays, prefill values of the wrong kind for each field type, odd language tags and
 * another workspace's ids. Every answer must be a 4xx `{error, code, field?}` (a tool error with
 * that body over MCP) whose `field` points at the value at fault, and nothing may be created or
 * changed. Last, 100 role writes at once and 100 sends of BODY_LIMIT bytes at once, while another
 * process times /healthz.
 */

let server: TestServer
let org: TestOrg
let other: TestOrg
/** Roles 0, 1 and 2 (richFields), named with default steps: refused writes must leave it byte for byte. */
let rolesTemplate: string
/** Every field type, for prefill; roles 0 and 1. */
let prefillTemplate: string
/** The other workspace's template and document. */
let theirTemplate: string
let theirDocument: string
let agent: Client

const JSON_TYPE = 'application/json'
const NO_SUCH_ID = '6f1c1a52-1f4e-4b57-9c51-2b7d1f0e9a11'
/**
 * /healthz while 100 requests arrive at once must keep answering: its p99 under a second for small
 * writes (as request-floods.test.ts holds), and under three seconds while 100 bodies of BODY_LIMIT
 * bytes arrive (80 of them read whole, parsed — a megabyte of \u escapes — and checked entry by
 * entry: about 50 ms each of the server's one thread, where PGlite also runs its queries). On a
 * loaded machine the work itself takes longer: then p99 must stay under HEALTHY_SHARE of the
 * flood's own duration. What either bound refuses is /healthz waiting behind the whole flood.
 */
const HEALTHY_MS = 1000
const FLOOD_HEALTHY_MS = 3000
const HEALTHY_SHARE = 0.6

const box = (y: number, width = 160, height = 20) => ({ page: 1, x: 72, y, width, height })
/** One field of each type; the index of each is its `id` in a send's `fields`. */
const PREFILL_FIELDS = [
  { role: 0, type: 'signature', ...box(30, 180, 40) },
  { role: 0, type: 'radio', name: 'plan', label: 'Plan', options: ['Basic', 'Plus', 'Premium'], ...box(80, 160, 60) },
  { role: 0, type: 'dropdown', name: 'city', label: 'City', options: ['Berlin', 'Lisbon', 'Tokyo'], ...box(150) },
  { role: 0, type: 'number', name: 'rent', label: 'Rent', min: 100, max: 5000, ...box(180) },
  { role: 0, type: 'email', name: 'contact', label: 'Contact', ...box(210) },
  { role: 0, type: 'name', name: 'full_name', ...box(240) },
  { role: 0, type: 'text', name: 'note', label: 'Note', required: false, ...box(270) },
  { role: 0, type: 'checkbox', name: 'pets', label: 'Pets', required: false, ...box(300, 14, 14) },
  { role: 0, type: 'checkbox', name: 'terms', label: 'Terms', ...box(330, 14, 14) },
  { role: 0, type: 'date', name: 'signed_on', ...box(360) },
  { role: 0, type: 'initials', name: 'initials', ...box(390, 60, 30) },
  { role: 1, type: 'signature', ...box(450, 180, 40) },
]
const FIELD = { signature: 0, plan: 1, city: 2, rent: 3, contact: 4, fullName: 5, note: 6, pets: 7, terms: 8, date: 9, initials: 10 }

/** A raw request body: JSON text sent as is (or not JSON at all), or bytes that are not even UTF-8. */
class Raw {
  constructor(readonly text: string | Uint8Array) {}
}
/** Where withBytes splices its bytes. */
const BYTES = 'BYTES_GO_HERE'
/** JSON text with the given bytes spliced in where BYTES is. */
const withBytes = (text: string, bytes: number[]) => {
  const [before, after, ...more] = text.split(BYTES)
  if (before === undefined || after === undefined || more.length > 0) throw new Error(`${BYTES} must be in the text once`)
  return new Raw(Buffer.concat([Buffer.from(before), Buffer.from(bytes), Buffer.from(after)]))
}
/** Invalid UTF-8: a CESU-8 surrogate, an overlong slash, a lone continuation byte, a truncated sequence, 0xFF. */
const INVALID_UTF8 = [[0xed, 0xa0, 0x80], [0xc0, 0xaf], [0x80], [0xe2, 0x82], [0xff]]

/** Sends `body` (a value, written with jsonText so RawNumbers stay as written, or Raw text). */
function send(method: string, path: string, body: unknown, options: { key?: string; contentType?: string } = {}): Promise<Response> {
  return fetch(`${server.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${options.key ?? org.apiKey}`, 'content-type': options.contentType ?? JSON_TYPE },
    body: body instanceof Raw ? (typeof body.text === 'string' ? body.text : new Uint8Array(body.text)) : jsonText(body),
  })
}
const putRoles = (templateId: string, body: unknown, key?: string) => send('PUT', `/api/v1/templates/${templateId}/roles`, body, { key })
const putLanguage = (body: unknown, key?: string) => send('PUT', '/api/v1/settings/signer-language', body, { key })
const postDocument = (body: unknown, key?: string) => send('POST', '/api/v1/documents', body, { key })
const getJson = async (path: string, key = org.apiKey) => {
  const response = await server.request(path, { key })
  expect(response.status, path).toBe(200)
  return bodyOf(response)
}
const templateDetail = (id: string, key?: string) => getJson(`/api/v1/templates/${id}`, key)
const documentTotal = async (key?: string) => (await getJson('/api/v1/documents?limit=1', key)).total as number
const workspaceLanguage = async (key?: string) => (await getJson('/api/v1/settings/signer-language', key)).language
const mailsTo = (addresses: string[]) => server.mail.messages.filter((m) => m.to?.some((to) => addresses.includes(to.address ?? '')))
const settle = (ms = 400) => new Promise((resolve) => setTimeout(resolve, ms))

/** An RFC 6901 pointer. */
const pointer = (path: readonly string[]) => path.map((part) => `/${part.replaceAll('~', '~0').replaceAll('/', '~1')}`).join('')

// ---------------------------------------------------------------------------------------------
// Cases built from a valid body and its route's JSON Schema.

/** One hostile request and the answer it must get: the status, and the pointer `field` must be (null: no field). */
interface Case {
  label: string
  body: unknown
  status: number
  field: string | null
}

type JsonType = 'string' | 'integer' | 'number' | 'boolean' | 'null' | 'object' | 'array'

const typeOfValue = (value: unknown): JsonType =>
  value === null
    ? 'null'
    : Array.isArray(value)
      ? 'array'
      : typeof value === 'number'
        ? Number.isInteger(value)
          ? 'integer'
          : 'number'
        : (typeof value as 'string' | 'boolean' | 'object')

/** The JSON types the schema takes at `path` (through anyOf, properties and items). */
function typesAt(schema: JsonSchema, path: readonly string[]): Set<JsonType> {
  const found = new Set<JsonType>()
  const [key, ...rest] = path
  for (const branch of schema.anyOf ?? [schema]) {
    if (branch.anyOf) {
      for (const type of typesAt(branch, path)) found.add(type)
    } else if (key === undefined) {
      if (branch.type) found.add(branch.type as JsonType)
      for (const value of branch.enum ?? (branch.const === undefined ? [] : [branch.const])) found.add(typeOfValue(value))
    } else {
      const child = branch.type === 'array' ? branch.items : branch.properties?.[key]
      if (child) for (const type of typesAt(child, rest)) found.add(type)
    }
  }
  return found
}

const takes = (types: Set<JsonType>, value: unknown) => {
  const type = typeOfValue(value)
  return types.has(type) || (type === 'integer' && types.has('number'))
}

/** A value of each JSON type. */
const ONE_OF_EACH_TYPE: readonly unknown[] = ['text', 7, 2.5, true, null, {}, []]
/** Text no property takes: NUL and other controls, lone surrogates, a bidi override, an invisible tag character, and more than any maximum. */
const HOSTILE_TEXT: readonly string[] = [
  'a\u0000b',
  'bell\u0007',
  'lone \ud800 high',
  'lone \udfff low',
  'abc\u202edcba',
  'tag \u{E0041}\u{E0042}',
  'x'.repeat(10_001),
]
/** Numbers no numeric property here takes: negative, fractional, past any maximum, past a double, and NaN-like text. */
const HOSTILE_NUMBERS: readonly unknown[] = [
  -1,
  0.5,
  -0.5,
  new RawNumber('1e309'),
  new RawNumber('-1e309'),
  new RawNumber('9007199254740993'),
  new RawNumber('1e21'),
  'NaN',
  'Infinity',
  '1',
]

const describeValue = (value: unknown): string => {
  const text = jsonText(value)
  return text.length > 40 ? `${text.slice(0, 30)}… (${text.length} chars)` : text
}

/**
 * For every value of `base`: every JSON type its schema does not take, every hostile text where
 * it takes text, every hostile number where it takes numbers; an unknown property in every
 * object. Each must be a 400 naming exactly that value (or that property).
 */
function casesFrom(base: unknown, schema: JsonSchema): Case[] {
  const cases: Case[] = []
  for (const path of pathsIn(base)) {
    const types = typesAt(schema, path)
    expect(types.size, `the schema has ${pointer(path)}`).toBeGreaterThan(0)
    const at = pointer(path)
    const bad = [
      ...ONE_OF_EACH_TYPE.filter((value) => !takes(types, value)),
      ...(types.has('string') ? HOSTILE_TEXT : []),
      ...(types.has('integer') || types.has('number') ? HOSTILE_NUMBERS : []),
    ]
    for (const value of bad) cases.push({ label: `${at} = ${describeValue(value)}`, body: withValueAt(base, path, value), status: 400, field: at })
  }
  for (const path of objectPathsIn(base)) {
    for (const key of ['unknown_field', '', '\u0000', 'lone\ud800', 'a/b~c', 'constructor', 'k'.repeat(5000)]) {
      cases.push({
        label: `unknown ${pointer([...path, key]).slice(0, 40)}`,
        body: withValueAt(base, [...path, key], 1),
        status: 400,
        field: pointer([...path, key]),
      })
    }
  }
  return cases
}

/** Bodies that are no JSON object, or nested past the limit, or not JSON: 400 without a field (no property to name). */
function wholeBodyCases(base: unknown, deepAt: readonly string[]): Case[] {
  const deep = (levels: number) => new Raw(jsonText(withValueAt(base, deepAt, new RawNumber(`${'['.repeat(levels)}${']'.repeat(levels)}`))))
  const depthOfPath = deepAt.length + 1
  return [
    ...['null', '[]', '"text"', '7', 'true', '[{}]'].map((text) => ({ label: `body ${text}`, body: new Raw(text), status: 400, field: null })),
    ...['{', '{"a":}', '\u0000', '{"a":1}}', "{'a':1}", '{"a":NaN}', '{"a":Infinity}', '{"a":-}'].map((text) => ({
      label: `not JSON ${JSON.stringify(text)}`,
      body: new Raw(text),
      status: 400,
      field: null,
    })),
    { label: '__proto__ key', body: new Raw(`{"__proto__":{"polluted":true},${jsonText(base).slice(1)}`), status: 400, field: null },
    {
      label: 'constructor.prototype key',
      body: new Raw(`{"constructor":{"prototype":{"polluted":true}},${jsonText(base).slice(1)}`),
      status: 400,
      field: null,
    },
    // Within the depth limit the value is just of the wrong type; past it the body is refused before it is parsed.
    { label: `nested ${MAX_JSON_DEPTH - depthOfPath} deep`, body: deep(MAX_JSON_DEPTH - depthOfPath), status: 400, field: pointer(deepAt) },
    { label: `nested ${MAX_JSON_DEPTH + 1} deep`, body: deep(MAX_JSON_DEPTH + 1), status: 400, field: null },
    { label: 'nested 100,000 deep', body: new Raw(`{"a":${'['.repeat(100_000)}`), status: 400, field: null },
  ]
}

/**
 * The same body with the string at `path` grown so that the body is exactly `size` bytes: at
 * BODY_LIMIT it is read and refused by the schema, naming the value; one byte more is a 413.
 */
function sizedBody(base: unknown, path: readonly string[], size: number): Raw {
  const marker = 'SIZED_VALUE_MARKER'
  const text = jsonText(withValueAt(base, path, marker))
  const filler = size - Buffer.byteLength(text) + marker.length
  if (filler < 0) throw new Error('the base is larger than the size asked for')
  return new Raw(text.replace(marker, 'y'.repeat(filler)))
}
function limitCases(base: unknown, path: readonly string[]): Case[] {
  const limit = server.config.bodyLimit
  return [
    { label: `${pointer(path)} filling BODY_LIMIT exactly`, body: sizedBody(base, path, limit), status: 400, field: pointer(path) },
    { label: 'BODY_LIMIT + 1 bytes', body: sizedBody(base, path, limit + 1), status: 413, field: null },
    { label: '20 MB', body: sizedBody(base, path, 20 * 1024 * 1024), status: 413, field: null },
  ]
}

/**
 * Sends each case and checks its answer with expectError (exactly `{error, code, field?}`, the
 * code's status) and the field; returns every case answered otherwise, with what it got.
 */
async function refusalsFailing(cases: Case[], sendCase: (body: unknown) => Promise<Response>): Promise<string[]> {
  const failures: string[] = []
  for (const item of cases) {
    const response = await sendCase(item.body)
    const text = await response.clone().text()
    try {
      await expectError(response.clone(), item.status)
      expect((await bodyOf(response)).field ?? null).toBe(item.field)
    } catch {
      failures.push(`${item.label} → ${response.status} ${text.slice(0, 300)}`)
    }
  }
  return failures
}

// ---------------------------------------------------------------------------------------------

const ROLES = [
  { role: 0, name: 'Landlord', order: 1 },
  { role: 1, name: 'Tenant', order: 2 },
  { role: 2, name: 'Witness', order: 2 },
]

/** The addresses of the hostile sends: none may ever get mail. */
const hostileSigners = [uniqueEmail('hostile-a'), uniqueEmail('hostile-b')]
const hostileCopy = uniqueEmail('hostile-cc')

/** A send that would succeed, using every property (the new ones included). */
const documentBase = (templateId = prefillTemplate): Json => ({
  template_id: templateId,
  title: 'Lease 12 Elm Street',
  signers: [
    { role: 0, email: hostileSigners[0], name: 'Ann Lee', auth_required: false, order: 1 },
    { role: 1, email: hostileSigners[1], name: 'Bo Park', order: 2 },
  ],
  expires_at: '2099-01-31T17:00:00Z',
  invite_subject: 'Please sign',
  invite_message: 'Hello,\nplease sign.',
  reminders: { first_after_days: 2, every_days: 3, max: 2 },
  cc: [{ email: hostileCopy, name: 'Carla Diaz' }],
  // A checkbox (every hostile number and text is wrong for it) and a number field with bounds.
  fields: [
    { name: 'pets', value: true, read_only: true },
    { id: FIELD.rent, value: 950 },
  ],
  language: 'de',
})

beforeAll(async () => {
  server = await startTestServer()
  ;[org, other] = await Promise.all([setupOrg(server, { name: 'Acme Hostile' }), setupOrg(server, { name: 'Other Co' })])
  rolesTemplate = (await server.createTemplate(org.orgId, { fields: richFields([0, 1, 2]) })).id
  prefillTemplate = (await server.createTemplate(org.orgId, { fields: PREFILL_FIELDS })).id
  theirTemplate = (await server.createTemplate(other.orgId, { fields: richFields([0, 1, 2]) })).id
  expect((await putRoles(rolesTemplate, { roles: ROLES })).status).toBe(200)
  expect((await putRoles(theirTemplate, { roles: [{ role: 0, name: 'Their landlord' }] }, other.apiKey)).status).toBe(200)
  expect((await putLanguage({ language: 'fr' })).status).toBe(200)
  const theirs = await postDocument(
    {
      template_id: theirTemplate,
      signers: [0, 1, 2].map((role) => ({ role, email: uniqueEmail('theirs') })),
      cc: [{ email: uniqueEmail('their-cc'), name: 'Their Copy' }],
      language: 'ja',
    },
    other.apiKey,
  )
  expect(theirs.status).toBe(201)
  theirDocument = (await bodyOf<{ id: string }>(theirs)).id
  agent = await connectAgent(server, org.apiKey)
})
afterAll(async () => {
  await agent?.close()
  await server?.close()
})

describe('PUT /api/v1/templates/{id}/roles', () => {
  test('every hostile body is a 400 or 413 naming the value at fault, and the template is unchanged', async () => {
    const before = await templateDetail(rolesTemplate)
    const base = { roles: ROLES }
    const cases: Case[] = [
      ...casesFrom(base, SetTemplateRolesBody),
      ...wholeBodyCases(base, ['roles', '0', 'name']),
      ...limitCases(base, ['roles', '0', 'name']),
      { label: 'no roles', body: {}, status: 400, field: '/roles' },
      { label: '21 roles', body: { roles: Array.from({ length: 21 }, (_, role) => ({ role, name: `R${role}` })) }, status: 400, field: '/roles' },
      { label: '100,000 roles', body: { roles: Array.from({ length: 100_000 }, () => 0) }, status: 400, field: '/roles' },
      { label: 'a role without fields', body: { roles: [{ role: 5, name: 'Ghost' }] }, status: 400, field: '/roles/0/role' },
      { label: 'a role twice', body: { roles: [ROLES[0], { role: 0, name: 'Owner', order: 1 }] }, status: 400, field: '/roles/1/role' },
      {
        label: 'a name twice (case and width differ)',
        body: {
          roles: [
            { role: 0, name: 'Tenant' },
            { role: 1, name: 'ＴＥＮＡＮＴ' },
          ],
        },
        status: 400,
        field: '/roles/1/name',
      },
      { label: "another role's Party N", body: { roles: [{ role: 0, name: 'party 3' }] }, status: 400, field: '/roles/0/name' },
      { label: 'a name of spaces', body: { roles: [{ role: 0, name: ' \u3000 ' }] }, status: 400, field: '/roles/0/name' },
      { label: 'a zero-width name', body: { roles: [{ role: 0, name: '\u200b' }] }, status: 400, field: '/roles/0/name' },
      { label: 'a name with a line break', body: { roles: [{ role: 0, name: 'Land\u2028lord' }] }, status: 400, field: '/roles/0/name' },
      { label: 'a Zalgo name', body: { roles: [{ role: 0, name: `Z${'\u0301'.repeat(12)}` }] }, status: 400, field: '/roles/0/name' },
      {
        label: 'steps on some roles only',
        body: { roles: [ROLES[0], { role: 1, name: 'Tenant' }, ROLES[2]] },
        status: 400,
        field: '/roles/1/order',
      },
      { label: 'steps with a role left out', body: { roles: [ROLES[0], ROLES[1]] }, status: 400, field: '/roles' },
    ]
    // The schema walk found every property (222 cases when written).
    expect(cases.length).toBeGreaterThan(200)
    expect(await refusalsFailing(cases, (body) => putRoles(rolesTemplate, body))).toEqual([])
    // Not even updated_at moved.
    expect(await templateDetail(rolesTemplate)).toEqual(before)
  })

  test('a body of another type is a 415; nothing changes', async () => {
    const before = await templateDetail(rolesTemplate)
    for (const contentType of ['text/plain', 'application/x-www-form-urlencoded', 'application/json-patch+json']) {
      await expectError(await send('PUT', `/api/v1/templates/${rolesTemplate}/roles`, { roles: [] }, { contentType }), 415)
    }
    expect(await templateDetail(rolesTemplate)).toEqual(before)
  })

  test("another workspace's template answers exactly as one that does not exist (404), and stays as it was", async () => {
    const theirsBefore = await templateDetail(theirTemplate, other.apiKey)
    const body = { roles: [{ role: 0, name: 'Hijacked' }] }
    const missing = await putRoles(NO_SUCH_ID, body)
    const missingBody = await bodyOf(missing.clone())
    await expectError(missing, 404, 'Template not found.')
    const theirs = await putRoles(theirTemplate, body)
    expect({ status: theirs.status, body: await bodyOf(theirs) }).toEqual({ status: 404, body: missingBody })
    // Even a body their template would refuse: the answer says nothing about it.
    const invalidForTheirs = await putRoles(theirTemplate, { roles: [{ role: 7, name: 'Ghost' }] })
    expect({ status: invalidForTheirs.status, body: await bodyOf(invalidForTheirs) }).toEqual({ status: 404, body: missingBody })
    // Ids that are no UUID, or are hostile as path segments.
    for (const id of [
      'not-a-uuid',
      `${theirTemplate}%00`,
      `${theirTemplate.toUpperCase()}x`,
      '%ED%A0%80',
      '..%2F..%2Fsettings',
      `${NO_SUCH_ID}%20`,
      'x'.repeat(5000),
    ]) {
      const response = await putRoles(id, body)
      expect(response.status, id.slice(0, 40)).toBeGreaterThanOrEqual(400)
      expect(response.status, id.slice(0, 40)).toBeLessThan(500)
      await expectError(response, response.status)
    }
    expect(await templateDetail(theirTemplate, other.apiKey)).toEqual(theirsBefore)
    const list = await getJson('/api/v1/templates', other.apiKey)
    expect(JSON.stringify(list)).not.toContain('Hijacked')
    // Nor can it be read, or found in our list.
    const read = await server.request(`/api/v1/templates/${theirTemplate}`, { key: org.apiKey })
    expect({ status: read.status, body: await bodyOf(read) }).toEqual({ status: 404, body: missingBody })
    expect(JSON.stringify(await getJson('/api/v1/templates'))).not.toContain(theirTemplate)
  })

  test('a deleted template is a 404 like any other; its names are not changed', async () => {
    const templateId = (await server.createTemplate(org.orgId, { fields: richFields([0]) })).id
    expect((await putRoles(templateId, { roles: [{ role: 0, name: 'Buyer' }] })).status).toBe(200)
    expect((await server.request(`/api/v1/templates/${templateId}`, { method: 'DELETE', key: org.apiKey })).status).toBe(204)
    await expectError(await putRoles(templateId, { roles: [{ role: 0, name: 'Seller' }] }), 404, 'Template not found.')
    await expectError(await server.request(`/api/v1/templates/${templateId}`, { key: org.apiKey }), 404, 'Template not found.')
  })

  test('a body padded with whitespace to exactly BODY_LIMIT is read and saved', async () => {
    const templateId = (await server.createTemplate(org.orgId, { fields: richFields([0, 1]) })).id
    const text = jsonText({ roles: [{ role: 1, name: 'Tenant' }] })
    const padded = `${text.slice(0, -1)}${' '.repeat(server.config.bodyLimit - Buffer.byteLength(text))}}`
    expect(Buffer.byteLength(padded)).toBe(server.config.bodyLimit)
    const response = await putRoles(templateId, new Raw(padded))
    expect(response.status).toBe(200)
    expect((await bodyOf(response)).role_names).toEqual([{ role: 1, name: 'Tenant' }])
  })
})

describe('GET/PUT /api/v1/settings/signer-language', () => {
  test('every hostile body, unknown tag and odd case is a 400 or 413 naming the value; the setting stays; the other workspace is untouched', async () => {
    const base = { language: 'de' }
    const oddTags = ['DE', 'De', 'pt-br', 'PT-BR', 'pt_BR', 'pt', 'de-DE', 'en-US', 'EN', 'xx', 'klingon', 'de ', ' de', 'de\n', '', 'ｄｅ', 'de\u0000']
    const cases: Case[] = [
      ...casesFrom(base, WorkspaceSignerLanguage),
      ...wholeBodyCases(base, ['language']),
      ...limitCases(base, ['language']),
      ...oddTags.map((language) => ({ label: `language ${JSON.stringify(language)}`, body: { language }, status: 400, field: '/language' })),
      { label: 'no language', body: {}, status: 400, field: '/language' },
      { label: 'a list of languages', body: { language: ['de', 'fr'] }, status: 400, field: '/language' },
      // Bytes that are not UTF-8 are read as U+FFFD, which no tag holds.
      ...INVALID_UTF8.map((bytes) => ({
        label: `bytes ${bytes.join(' ')}`,
        body: withBytes(`{"language":"d${BYTES}e"}`, bytes),
        status: 400,
        field: '/language',
      })),
    ]
    expect(cases.length).toBeGreaterThan(60)
    expect(await refusalsFailing(cases, (body) => putLanguage(body))).toEqual([])
    expect(await workspaceLanguage()).toBe('fr')
    expect(await workspaceLanguage(other.apiKey)).toBeNull()
  })

  test('GET ignores a query string it does not take; a PUT of another workspace never shows here', async () => {
    const read = await fetch(`${server.url}/api/v1/settings/signer-language?language=de&%00=%ED%A0%80`, { headers: { authorization: `Bearer ${org.apiKey}` } })
    expect({ status: read.status, body: await bodyOf(read) }).toEqual({ status: 200, body: { language: 'fr' } })
    expect((await putLanguage({ language: 'ja' }, other.apiKey)).status).toBe(200)
    expect(await workspaceLanguage()).toBe('fr')
    expect(await workspaceLanguage(other.apiKey)).toBe('ja')
    expect((await putLanguage({ language: null }, other.apiKey)).status).toBe(200)
  })

  test('without a valid key it is a 401, and nothing changes', async () => {
    for (const key of ['', 'sgn_live_0000', `${org.apiKey}\u0000`.replace('\u0000', '%00')]) {
      const response = await putLanguage({ language: 'de' }, key)
      await expectError(response, 401)
    }
    expect(await workspaceLanguage()).toBe('fr')
  })
})

describe('who may not write', () => {
  test('a read-only key is refused all three writes (and the tool); a member may not set the language; nothing changes', async () => {
    const { api_key: readOnly } = (await executeAdminCommand(server.services, { name: 'key.create', orgId: org.orgId, scopes: ['read'] })) as {
      api_key: string
    }
    const [template, language, total] = [await templateDetail(rolesTemplate), await workspaceLanguage(), await documentTotal()]
    await expectError(await putRoles(rolesTemplate, { roles: [{ role: 0, name: 'Read only' }] }, readOnly), 403)
    await expectError(await putLanguage({ language: 'de' }, readOnly), 403)
    await expectError(await postDocument(documentBase(), readOnly), 403)
    const readOnlyAgent = await connectAgent(server, readOnly)
    try {
      const { body } = await callErrorResult(readOnlyAgent, 'create_and_send_document', documentBase())
      expect(body.code).toBe('insufficient_scope')
    } finally {
      await readOnlyAgent.close()
    }
    const member = await createSignedInUser(server, { orgId: org.orgId, role: 'member' })
    await expectError(await member.fetch('/api/v1/settings/signer-language', { method: 'PUT', json: { language: 'de' } }), 403)
    // Hostile bodies from the member are refused as from anyone, naming the value.
    const odd = await member.fetch('/api/v1/settings/signer-language', { method: 'PUT', json: { language: 'DE\u0000' } })
    expect((await bodyOf(odd.clone())).field).toBe('/language')
    await expectError(odd, 400)
    expect([await templateDetail(rolesTemplate), await workspaceLanguage(), await documentTotal()]).toEqual([template, language, total])
  })
})

describe('POST /api/v1/documents with fields, language, cc, order and reminders', () => {
  let totalBefore: number
  let theirTotalBefore: number
  beforeAll(async () => {
    ;[totalBefore, theirTotalBefore] = await Promise.all([documentTotal(), documentTotal(other.apiKey)])
  })

  test('the base body sends (so each refusal below is due to its one change)', async () => {
    const base = documentBase()
    const emails = [uniqueEmail('valid-a'), uniqueEmail('valid-b')]
    const signers = (base.signers as Json[]).map((signer, i) => ({ ...signer, email: emails[i] }))
    const response = await postDocument({ ...base, signers, cc: [{ email: uniqueEmail('valid-cc'), name: 'Carla Diaz' }] })
    expect(response.status).toBe(201)
    expect(await bodyOf(response)).toMatchObject({
      status: 'sent',
      signers: [
        { role: 0, order: 1 },
        { role: 1, order: 2 },
      ],
    })
    totalBefore += 1
  })

  test('every hostile body is a 400 or 413 naming the value at fault; nothing is sent', async () => {
    const base = documentBase()
    const cases: Case[] = [
      ...casesFrom(base, CreateDocumentBody),
      ...wholeBodyCases(base, ['fields', '0', 'value']),
      ...limitCases(base, ['invite_message']),
      ...limitCases(base, ['fields', '1', 'value']),
      ...limitCases(base, ['cc', '0', 'name']),
      { label: '21 copy recipients', body: { ...base, cc: Array.from({ length: 21 }, () => ({ email: uniqueEmail('cc') })) }, status: 400, field: '/cc' },
      { label: '20,000 copy recipients', body: { ...base, cc: Array.from({ length: 20_000 }, () => ({ email: hostileCopy })) }, status: 400, field: '/cc' },
      { label: '501 prefilled fields', body: { ...base, fields: Array.from({ length: 501 }, () => ({ id: 6, value: 'x' })) }, status: 400, field: '/fields' },
      {
        label: '30,000 prefilled fields',
        body: { ...base, fields: Array.from({ length: 30_000 }, () => ({ id: 6, value: 'x' })) },
        status: 400,
        field: '/fields',
      },
      {
        label: '21 signers',
        body: { ...base, signers: Array.from({ length: 21 }, (_, role) => ({ role, email: uniqueEmail() })) },
        status: 400,
        field: '/signers',
      },
      {
        label: 'a copy recipient who signs',
        body: { ...base, cc: [{ email: (hostileSigners[1] ?? '').toUpperCase() }] },
        status: 400,
        field: '/cc/0/email',
      },
      { label: 'a copy recipient twice', body: { ...base, cc: [{ email: hostileCopy }, { email: hostileCopy }] }, status: 400, field: '/cc/1/email' },
      {
        label: 'an order on one signer, null on the other',
        body: withValueAt(base, ['signers', '1', 'order'], null),
        status: 400,
        field: '/signers/1/order',
      },
      { label: 'an order on one signer only', body: withValueAt(base, ['signers', '0', 'order'], REMOVE), status: 400, field: '/signers/0/order' },
      {
        label: 'a role the template lacks',
        body: { ...base, signers: [...(base.signers as Json[]), { role: 7, email: uniqueEmail('hostile-c'), order: 2 }] },
        status: 400,
        field: '/signers/2/role',
      },
      { label: 'a role left without a signer', body: withValueAt(base, ['signers', '1', 'role'], 0), status: 400, field: '/signers' },
      ...INVALID_UTF8.flatMap((bytes) => [
        { label: `language with bytes ${bytes.join(' ')}`, body: withBytes(jsonText({ ...base, language: BYTES }), bytes), status: 400, field: '/language' },
        {
          label: `a prefill name with bytes ${bytes.join(' ')}`,
          body: withBytes(jsonText(withValueAt(base, ['fields', '0', 'name'], `pe${BYTES}ts`)), bytes),
          status: 400,
          field: '/fields/0/name',
        },
        {
          label: `a checkbox value of bytes ${bytes.join(' ')}`,
          body: withBytes(jsonText(withValueAt(base, ['fields', '0', 'value'], BYTES)), bytes),
          status: 400,
          field: '/fields/0/value',
        },
      ]),
    ]
    expect(cases.length).toBeGreaterThan(450)
    expect(await refusalsFailing(cases, (body) => postDocument(body))).toEqual([])
  })

  test('an unknown language tag or an odd case is a 400 naming `language`', async () => {
    const tags = ['DE', 'De', 'pt-br', 'PT-BR', 'pt_BR', 'pt', 'de-DE', 'en-US', 'xx', 'und', '*', 'de,fr', 'de;q=1', 'ａｒ']
    const cases = tags.map((language) => ({ label: JSON.stringify(language), body: { ...documentBase(), language }, status: 400, field: '/language' }))
    expect(await refusalsFailing(cases, (body) => postDocument(body))).toEqual([])
  })

  test('prefill values of the wrong kind for each field type, and fields that cannot be prefilled, are 400s naming the entry', async () => {
    const prefill = (...fields: Json[]) => ({ ...documentBase(), fields })
    const value = (name: string, v: unknown, readOnly?: boolean): Case => ({
      label: `${name} = ${describeValue(v)}${readOnly === undefined ? '' : ` read_only ${readOnly}`}`,
      body: prefill({ name, value: v, ...(readOnly === undefined ? {} : { read_only: readOnly }) }),
      status: 400,
      field: '/fields/0/value',
    })
    const byId = (id: number, label: string): Case => ({ label, body: prefill({ id, value: 'x' }), status: 400, field: '/fields/0' })
    const cases: Case[] = [
      // Checkbox: only true or false.
      ...[1, 0, 'true', 'false', 'yes', 'on', ' '].map((v) => value('pets', v)),
      value('terms', false, true),
      // Number: a finite number within min/max.
      ...[true, '950', 'NaN', '1e3', '', 99, 5000.01, -950, new RawNumber('1e309'), new RawNumber('-0.0e999999')].map((v) => value('rent', v)),
      // Text and e-mail: text, printable, a real address.
      ...[5, true, '   ', '😀 emoji', 'ÿ'.repeat(501)].map((v) => value('note', v)),
      ...[5, false, 'not-an-address', 'a@b', 'ann@example.com\u00a0x'].map((v) => value('contact', v)),
      // Radio and dropdown: one of their options, as text.
      ...['Gold', 'basic', 'BASIC', 'Basic, Plus', 1, true, '  '].map((v) => value('plan', v)),
      ...['Paris', 'berlin', 'Berlin\u200b', 2, false, ''].map((v) => value('city', v)),
      // Fields the signer fills or the server writes.
      byId(FIELD.signature, 'a signature field'),
      byId(FIELD.initials, 'an initials field'),
      byId(FIELD.date, 'a date field'),
      byId(FIELD.fullName, 'a name field'),
      byId(11, "the other signer's signature field"),
      { label: 'a field id past the last', body: prefill({ id: PREFILL_FIELDS.length, value: 'x' }), status: 400, field: '/fields/0/id' },
      { label: 'a field id of 2^53 + 1', body: prefill({ id: new RawNumber('9007199254740993'), value: 'x' }), status: 400, field: '/fields/0/id' },
      { label: 'a field id of 1e300', body: prefill({ id: new RawNumber('1e300'), value: 'x' }), status: 400, field: '/fields/0/id' },
      { label: 'an unknown field name', body: prefill({ name: 'deposit', value: 5 }), status: 400, field: '/fields/0/name' },
      { label: 'a prototype field name', body: prefill({ name: '__proto__', value: 5 }), status: 400, field: '/fields/0/name' },
      { label: 'a field name of another case', body: prefill({ name: 'RENT', value: 500 }), status: 400, field: '/fields/0/name' },
      { label: 'neither name nor id', body: prefill({ value: 5 }), status: 400, field: '/fields/0' },
      { label: 'both name and id', body: prefill({ name: 'rent', id: FIELD.rent, value: 500 }), status: 400, field: '/fields/0' },
      { label: 'no value', body: prefill({ name: 'rent' }), status: 400, field: '/fields/0/value' },
      // The same field twice: by name, by name and id, by id, and 500 times.
      { label: 'a name twice', body: prefill({ name: 'rent', value: 500 }, { name: 'rent', value: 600 }), status: 400, field: '/fields/1' },
      { label: 'a name and its id', body: prefill({ name: 'note', value: 'a' }, { id: FIELD.note, value: 'b' }), status: 400, field: '/fields/1' },
      { label: 'an id twice', body: prefill({ id: FIELD.pets, value: true }, { id: FIELD.pets, value: true }), status: 400, field: '/fields/1' },
      {
        label: 'one field 500 times',
        body: prefill(...Array.from({ length: 500 }, () => ({ name: 'note', value: 'again' }))),
        status: 400,
        field: '/fields/1',
      },
      {
        label: 'a duplicate after three good entries',
        body: prefill(...[FIELD.plan, FIELD.city, FIELD.rent].map((id, i) => ({ id, value: ['Plus', 'Tokyo', 500][i] })), { name: 'city', value: 'Berlin' }),
        status: 400,
        field: '/fields/3',
      },
    ]
    expect(await refusalsFailing(cases, (body) => postDocument(body))).toEqual([])
  })

  test("another workspace's template is refused exactly as a template that does not exist", async () => {
    const missing = await postDocument({ ...documentBase(), template_id: NO_SUCH_ID })
    const missingBody = await bodyOf(missing.clone())
    await expectError(missing, 400, 'Template not found.')
    expect(missingBody.field).toBe('/template_id')
    // Theirs has roles 0, 1 and 2 and no field named "pets": none of that may show.
    for (const body of [{ ...documentBase(theirTemplate) }, { template_id: theirTemplate, signer: { email: hostileSigners[0] } }]) {
      const response = await postDocument(body)
      expect({ status: response.status, body: await bodyOf(response) }).toEqual({ status: 400, body: missingBody })
    }
  })

  test("another workspace's document is a 404 exactly like none, and shows nothing of it", async () => {
    for (const suffix of ['', '/audit', '/signed-file']) {
      const missing = await server.request(`/api/v1/documents/${NO_SUCH_ID}${suffix}`, { key: org.apiKey })
      const theirs = await server.request(`/api/v1/documents/${theirDocument}${suffix}`, { key: org.apiKey })
      const [missingText, theirText] = [await missing.text(), await theirs.text()]
      expect({ status: theirs.status, text: theirText }).toEqual({ status: missing.status, text: missingText })
      expect(theirs.status).toBe(404)
    }
    const voiding = await server.request(`/api/v1/documents/${theirDocument}/void`, { method: 'POST', key: org.apiKey })
    await expectError(voiding, 404)
    expect(await getJson(`/api/v1/documents/${theirDocument}`, other.apiKey)).toMatchObject({ status: 'sent', language: 'ja' })
  })

  test('nothing was created by any refusal, in either workspace, no hostile address got mail, and no prototype was polluted', async () => {
    // The server runs in this process: a "__proto__" or "constructor.prototype" that got through would show here.
    expect(({} as Record<string, unknown>).polluted).toBeUndefined()
    expect(documentTotal).not.toHaveProperty('polluted')
    expect(await documentTotal()).toBe(totalBefore)
    expect(await documentTotal(other.apiKey)).toBe(theirTotalBefore)
    await settle()
    expect(mailsTo([...hostileSigners, hostileCopy])).toEqual([])
  })
})

describe('the agent tool create_and_send_document', () => {
  /** The tool's arguments that would succeed, with every new argument: the REST body's, as the tool takes `signers`. */
  const toolBase = (templateId = prefillTemplate): Json => documentBase(templateId)
  /** A case's body as tool arguments: a JSON number a JavaScript value cannot hold (1e309) leaves the case out. */
  const asArguments = (value: unknown): unknown => {
    if (value instanceof RawNumber) return Number(value.text)
    if (Array.isArray(value)) return value.map(asArguments)
    if (value === null || typeof value !== 'object') return value
    const copy: Record<string, unknown> = {}
    for (const [key, item] of Object.entries(value))
      Object.defineProperty(copy, key, { value: asArguments(item), enumerable: true, writable: true, configurable: true })
    return copy
  }
  const finiteNumbersOnly = (value: unknown): boolean => !/(?<![\w.])-?1e309/.test(jsonText(value))
  let inputSchema: JsonSchema
  let totalBefore: number

  beforeAll(async () => {
    const { tools } = await agent.listTools()
    inputSchema = tools.find((tool) => tool.name === 'create_and_send_document')?.inputSchema as JsonSchema
    expect(inputSchema).toBeDefined()
    totalBefore = await documentTotal()
  })

  /** Calls the tool; every answer must be a tool error whose body is a 4xx {error, code, field?} naming `field`. */
  async function toolRefusalsFailing(cases: Case[]): Promise<string[]> {
    const failures: string[] = []
    for (const item of cases) {
      try {
        const { body } = await callErrorResult(agent, 'create_and_send_document', item.body as Record<string, unknown>)
        const status = STATUS_BY_CODE[body.code as ErrorCode]
        expect(status).toBeGreaterThanOrEqual(400)
        expect(status).toBeLessThan(500)
        expect(Object.keys(body).sort()).toEqual(['code', 'error', ...(body.field === undefined ? [] : ['field'])].sort())
        expect(body.field ?? null).toBe(item.field)
      } catch (error) {
        failures.push(`${item.label} → ${String(error).slice(0, 300)}`)
      }
    }
    return failures
  }

  test('every hostile argument is a tool error naming the argument at fault; nothing is sent', async () => {
    const base = toolBase()
    // JSON can carry these; the tool's arguments as an object cannot hold a raw 1e309, so only values.
    const cases = casesFrom(base, inputSchema)
      .filter((item) => finiteNumbersOnly(item.body))
      .map((item) => ({ ...item, body: asArguments(item.body) }))
    const prefill = (...fields: Json[]) => ({ ...base, fields })
    cases.push(
      ...['DE', 'pt-br', 'PT-BR', 'xx', ''].map((language) => ({
        label: `language ${language}`,
        body: { ...base, language },
        status: 400,
        field: '/language',
      })),
      { label: 'a checkbox given a number', body: prefill({ name: 'pets', value: 1 }), status: 400, field: '/fields/0/value' },
      { label: 'a number given a boolean', body: prefill({ name: 'rent', value: true }), status: 400, field: '/fields/0/value' },
      { label: 'a dropdown option not offered', body: prefill({ name: 'city', value: 'Paris' }), status: 400, field: '/fields/0/value' },
      { label: 'a radio option not offered', body: prefill({ name: 'plan', value: 'Gold' }), status: 400, field: '/fields/0/value' },
      { label: 'a name twice', body: prefill({ name: 'rent', value: 500 }, { name: 'rent', value: 600 }), status: 400, field: '/fields/1' },
      { label: 'a signature field', body: prefill({ id: FIELD.signature, value: 'x' }), status: 400, field: '/fields/0' },
      { label: '501 prefilled fields', body: prefill(...Array.from({ length: 501 }, () => ({ id: 6, value: 'x' }))), status: 400, field: '/fields' },
      { label: '21 copy recipients', body: { ...base, cc: Array.from({ length: 21 }, () => ({ email: uniqueEmail('cc') })) }, status: 400, field: '/cc' },
      { label: 'a copy recipient twice', body: { ...base, cc: [{ email: hostileCopy }, { email: hostileCopy }] }, status: 400, field: '/cc/1/email' },
      { label: 'half-ordered signers', body: withValueAt(base, ['signers', '1', 'order'], null), status: 400, field: '/signers/1/order' },
      { label: 'signer_name beside signers', body: { ...base, signer_name: 'Ann' }, status: 400, field: '/signer_name' },
      {
        label: 'a lone surrogate key',
        body: Object.defineProperty({ ...base }, 'x\ud800', { value: 1, enumerable: true }),
        status: 400,
        field: '/x\ud800',
      },
    )
    expect(cases.length).toBeGreaterThan(400)
    expect(await toolRefusalsFailing(cases)).toEqual([])
  })

  test("another workspace's template or document answers exactly as one that does not exist", async () => {
    const missing = await callErrorResult(agent, 'create_and_send_document', toolBase(NO_SUCH_ID))
    expect(missing.body).toMatchObject({ code: 'invalid_request', field: '/template_id' })
    const theirs = await callErrorResult(agent, 'create_and_send_document', toolBase(theirTemplate))
    expect(theirs).toEqual(missing)
    const single = await callErrorResult(agent, 'create_and_send_document', { template_id: theirTemplate, signer_email: hostileSigners[0] })
    expect(single).toEqual(missing)

    const noDocument = await callErrorResult(agent, 'get_document_status', { document_id: NO_SUCH_ID })
    expect(noDocument.body.code).toBe('not_found')
    expect(await callErrorResult(agent, 'get_document_status', { document_id: theirDocument })).toEqual(noDocument)
    expect(await callErrorResult(agent, 'void_document', { document_id: theirDocument })).toEqual(
      await callErrorResult(agent, 'void_document', { document_id: NO_SUCH_ID }),
    )
  })

  test('arguments past BODY_LIMIT are a 413 the client reports; the session keeps working', async () => {
    const huge = { ...toolBase(), invite_message: 'y'.repeat(server.config.bodyLimit) }
    await expect(agent.callTool({ name: 'create_and_send_document', arguments: huge })).rejects.toThrow(/payload_too_large/)
    const nearLimit = { ...toolBase(), invite_message: 'y'.repeat(server.config.bodyLimit - 4096) }
    const { body } = await callErrorResult(agent, 'create_and_send_document', nearLimit)
    expect(body).toMatchObject({ code: 'validation_failed', field: '/invite_message' })
    const deep = { ...toolBase(), fields: JSON.parse(`${'['.repeat(MAX_JSON_DEPTH)}${']'.repeat(MAX_JSON_DEPTH)}`) as unknown }
    await expect(agent.callTool({ name: 'create_and_send_document', arguments: deep })).rejects.toThrow(/nested deeper than 64 levels/)
    const result = (await agent.callTool({ name: 'get_usage', arguments: {} })) as CallToolResult
    expect(result.isError).toBeFalsy()
  })

  test('raw tools/call requests whose arguments are no object, or hostile, get a JSON-RPC or tool error, never a failure of ours', async () => {
    const call = async (id: number, params: unknown) => {
      const response = await fetch(`${server.url}/api/mcp`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${org.apiKey}`,
          'content-type': JSON_TYPE,
          accept: 'application/json, text/event-stream',
          'mcp-protocol-version': '2025-06-18',
        },
        body: jsonText({ jsonrpc: '2.0', id, method: 'tools/call', params }),
      })
      return { status: response.status, body: await bodyOf(response) }
    }
    const argumentsOf = ['x', 7, [], [documentBase()], true, new RawNumber('1e309'), { ...documentBase(), language: new RawNumber('-1e309') }]
    for (const [i, args] of argumentsOf.entries()) {
      const { status, body } = await call(i + 1, { name: 'create_and_send_document', arguments: args })
      expect(status, jsonText(args).slice(0, 60)).toBe(200)
      expect(body.id).toBe(i + 1)
      const error = body.error as { code: number } | undefined
      const result = body.result as { isError?: boolean; structuredContent?: { code: string } } | undefined
      // The SDK refuses params its schema does not take (-32602); anything it passes on is our tool error, never internal_error.
      expect(error?.code === -32602 || (result?.isError === true && result.structuredContent?.code !== 'internal_error'), JSON.stringify(body)).toBe(true)
    }
  })

  test('nothing was sent by any refused call', async () => {
    expect(await documentTotal()).toBe(totalBefore)
    await settle()
    expect(mailsTo([...hostileSigners, hostileCopy])).toEqual([])
  })
})

// ---------------------------------------------------------------------------------------------

/** The 99th percentile of the /healthz times (nearest rank). */
const p99 = (durations: number[]) => {
  const sorted = [...durations].sort((a, b) => a - b)
  return sorted[Math.max(0, Math.ceil(sorted.length * 0.99) - 1)] ?? Number.NaN
}

describe('many at once, while another process times /healthz', () => {
  test('100 role writes at once: each answered as it should be; the template ends with one write whole; /healthz keeps answering', async () => {
    const templateId = (await server.createTemplate(org.orgId, { fields: richFields([0, 1, 2]) })).id
    const kinds = Array.from({ length: 100 }, (_, i) => (i % 10 === 9 ? 'theirs' : i % 5 === 3 ? 'invalid' : 'valid'))
    const rolesOf = (i: number) => [
      { role: 0, name: `Landlord ${i}`, order: 1 },
      { role: 1, name: `Tenant ${i}`, order: 1 + (i % 3) },
      { role: 2, name: kinds[i] === 'invalid' ? `landlord ${i}` : `Witness ${i}`, order: 2 },
    ]
    const started = performance.now()
    const { result, durationsMs, answered } = await healthDuring(server.url, () =>
      Promise.all(
        kinds.map(async (kind, i) => {
          const response = await putRoles(templateId, { roles: rolesOf(i) }, kind === 'theirs' ? other.apiKey : org.apiKey)
          return { status: response.status, body: await bodyOf(response) }
        }),
      ),
    )
    const expected = kinds.map((kind, i) =>
      kind === 'valid'
        ? { status: 200, body: expect.objectContaining({ id: templateId, role_names: rolesOf(i) }) as unknown }
        : kind === 'invalid'
          ? { status: 400, body: { error: expect.stringContaining('is already the name of') as unknown, code: 'invalid_request', field: '/roles/2/name' } }
          : { status: 404, body: { error: 'Template not found.', code: 'not_found' } },
    )
    const tookMs = performance.now() - started
    expect(result).toEqual(expected)
    // The last write wins whole: its three names come from one request.
    const final = (await templateDetail(templateId)).role_names as { name: string }[]
    const suffix = /\d+$/.exec(final[0]?.name ?? '')?.[0]
    expect(kinds[Number(suffix)]).toBe('valid')
    expect(final).toEqual(rolesOf(Number(suffix)))
    const slowest = p99(durationsMs)
    console.info(`/healthz during 100 role writes (${Math.round(tookMs)} ms): ${answered} answers, p99 ${slowest} ms`)
    expect(answered).toBeGreaterThan(0)
    expect(slowest).toBeLessThan(Math.max(HEALTHY_MS, HEALTHY_SHARE * tookMs))
  })

  test(
    '100 sends of BODY_LIMIT bytes at once from another process: 201, 400 naming the entry, or 413, each as it should be; /healthz keeps answering',
    { timeout: 120_000 },
    async () => {
      const limit = server.config.bodyLimit
      // 360 text fields for Party 1 (and a signature): enough for a prefill that fills BODY_LIMIT.
      const textFields = Array.from({ length: 360 }, (_, i) => ({
        role: 0,
        type: 'text',
        page: 1 + Math.floor(i / 300),
        x: 10 + (i % 5) * 118,
        y: 60 + (Math.floor(i / 5) % 60) * 12,
        width: 110,
        height: 10,
        required: false,
      }))
      const bigTemplate = (await server.createTemplate(org.orgId, { pages: 2, fields: [{ role: 0, type: 'signature', ...box(10, 180, 40) }, ...textFields] }))
        .id
      // Each value is 500 characters (the most), every one written as a \u escape: 3,000 bytes of JSON.
      const escapedValue = '\\u0061'.repeat(500)
      const entry = (id: number) => `{"id":${id},"value":"${escapedValue}","read_only":true}`
      const head = (email: string) => `{"template_id":"${bigTemplate}","signer":{"email":"${email}"},"language":"pt-BR","fields":[`
      const emails = Array.from({ length: 100 }, () => uniqueEmail('flood'))
      // As many entries as fit in BODY_LIMIT with the longest head (the addresses are all as long), the rest spaces.
      const room = limit - Math.max(...emails.map((email) => Buffer.byteLength(head(email)))) - ']}'.length
      const entries: string[] = []
      for (let used = entry(1).length; used <= room; used += 1 + entry(entries.length + 1).length) entries.push(entry(entries.length + 1))
      const prefill = entries.join(',')
      const duplicated = [...entries.slice(0, -1), entry(1)].join(',')
      const bodyOfSize = (email: string, size: number, duplicateLast: boolean) => {
        const text = `${head(email)}${duplicateLast ? duplicated : prefill}]`
        return Buffer.from(`${text}${' '.repeat(size - Buffer.byteLength(text) - 1)}}`)
      }
      // A fifth are sent (each keeps ~345 prefilled values); two fifths are read whole and refused at their last entry; two fifths are one byte too many.
      const kinds = Array.from({ length: 100 }, (_, i) => (i % 5 === 0 ? 'valid' : i % 5 === 1 || i % 5 === 3 ? 'duplicate' : 'over'))
      const built = kinds.map((kind, i) => bodyOfSize(emails[i] ?? '', kind === 'over' ? limit + 1 : limit, kind === 'duplicate'))
      for (const [i, body] of built.entries()) expect(body.byteLength).toBe(kinds[i] === 'over' ? limit + 1 : limit)
      expect(entries.length).toBeGreaterThan(300)
      const before = await documentTotal()

      const started = performance.now()
      const { result, durationsMs, answered } = await attackFromOutside(
        server.url,
        built.map((body) => ({ url: `${server.url}/api/v1/documents`, headers: { authorization: `Bearer ${org.apiKey}`, 'content-type': JSON_TYPE }, body })),
      )
      const tookMs = performance.now() - started
      const expected = kinds.map((kind) =>
        kind === 'valid'
          ? { status: 201, body: expect.objectContaining({ status: 'sent', id: expect.any(String) as unknown }) as unknown }
          : kind === 'duplicate'
            ? {
                status: 400,
                body: { error: expect.stringContaining('is prefilled twice') as unknown, code: 'invalid_request', field: `/fields/${entries.length - 1}` },
              }
            : { status: 413, body: { error: `The request body is larger than ${limit} bytes (BODY_LIMIT).`, code: 'payload_too_large' } },
      )
      expect(result).toEqual(expected)
      const created = result.filter((answer) => answer.status === 201).map((answer) => (answer.body as { id: string }).id)
      expect(new Set(created).size).toBe(kinds.filter((kind) => kind === 'valid').length)
      expect(await documentTotal()).toBe(before + created.length)
      // Only the sent ones mailed their signer; the refused ones did not.
      await Promise.all(emails.filter((_, i) => kinds[i] === 'valid').map((email) => server.mail.waitFor(email)))
      expect(mailsTo(emails.filter((_, i) => kinds[i] !== 'valid'))).toEqual([])
      const slowest = p99(durationsMs)
      console.info(`/healthz during 100 sends of ${limit} bytes (${Math.round(tookMs)} ms): ${answered} answers, p99 ${slowest} ms`)
      expect(answered).toBeGreaterThan(0)
      expect(slowest).toBeLessThan(Math.max(FLOOD_HEALTHY_MS, HEALTHY_SHARE * tookMs))
    },
  )
})
