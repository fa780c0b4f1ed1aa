import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { bodyOf, expectError, postDocument, setupOrg, uniqueEmail, type TestOrg } from './helpers/api.ts'
import { makePdf } from './helpers/pdf.ts'
import { postSeal, verifyIdentity } from './helpers/seals.ts'
import { sendForSigning, valuesFor } from './helpers/signing.ts'
import { startTestServer, type TestServer } from './helpers/test-server.ts'

/*
 * Text the service takes: no control characters (NUL above all: PostgreSQL cannot store it),
 * no bidirectional overrides, no unpaired surrogates, in any field, each refused with a 400
 * naming the field. Line breaks, tabs, directional marks and any script stay allowed.
 */

let server: TestServer
let org: TestOrg
let partyTemplateId: string
beforeAll(async () => {
  server = await startTestServer()
  org = await setupOrg(server)
  await verifyIdentity(server, org.orgId)
  partyTemplateId = (
    await server.createTemplate(org.orgId, {
      fields: [0, 1].map((role) => ({ role, type: 'signature', page: 1, x: 72, y: 100 + role * 50, width: 180, height: 30 })),
    })
  ).id
})
afterAll(() => server.close())

const NUL = 'Ann\u0000Example'

const single = (extra: Record<string, unknown> = {}, signer: Record<string, unknown> = {}) => ({
  template_id: org.templateId,
  signer: { email: uniqueEmail(), ...signer },
  ...extra,
})

describe('a NUL character → 400 naming the field, on both databases', () => {
  test.each([
    ['signer.name', () => single({}, { name: NUL })],
    ['invite_subject', () => single({ invite_subject: NUL })],
    ['invite_message', () => single({ invite_message: NUL })],
    [
      'signers[1].name',
      () => ({
        template_id: partyTemplateId,
        signers: [
          { role: 0, email: uniqueEmail(), name: 'Ann' },
          { role: 1, email: uniqueEmail(), name: NUL },
        ],
      }),
    ],
  ])('POST /api/v1/documents %s', async (field, body) => {
    await expectError(await postDocument(server, org.apiKey, body()), 400, `${field} must not contain control characters (U+0000)`)
  })

  test('POST /api/v1/documents/bulk-send recipients[0].name', async () => {
    const response = await server.request('/api/v1/documents/bulk-send', {
      method: 'POST',
      key: org.apiKey,
      json: { template_id: org.templateId, recipients: [{ email: uniqueEmail(), name: NUL }] },
    })
    await expectError(response, 400, 'recipients[0].name must not contain control characters (U+0000)')
  })

  test('POST /api/v1/seals ?title', async () => {
    await expectError(await postSeal(server, org.apiKey, await makePdf(), { title: NUL }), 400, 'title must not contain control characters (U+0000)')
  })

  test("the signer's finish text and decline reason; the link still works afterwards", async () => {
    const { signers } = await sendForSigning(server, org)
    const signer = signers[0]!
    await expectError(await signer.finish({ ...valuesFor(0), '1': NUL }), 400, 'values[1] must not contain control characters (U+0000)')
    await expectError(await signer.decline(NUL), 400, 'reason must not contain control characters (U+0000)')
    expect(await bodyOf(await signer.finish(valuesFor(0)))).toMatchObject({ status: 'signed' })
  })
})

describe('other characters that hide or reorder text', () => {
  test.each([
    ['a C0 control', 'Ann\u001bExample', 'must not contain control characters (U+001B)'],
    ['DEL', 'Ann\u007f', 'must not contain control characters (U+007F)'],
    ['a C1 control', 'Ann\u0085', 'must not contain control characters (U+0085)'],
    ['a right-to-left override', 'Invoice \u202Efdp.exe', 'must not contain control characters (U+202E)'],
    ['a left-to-right embedding', '\u202AAnn', 'must not contain control characters (U+202A)'],
    ['a first-strong isolate', 'Ann \u2068x\u2069', 'must not contain control characters (U+2068)'],
    ['an unpaired surrogate', 'Ann \ud800', 'must be well-formed Unicode (unpaired surrogate U+D800)'],
  ])('%s → 400', async (_name, name, message) => {
    await expectError(await postDocument(server, org.apiKey, single({}, { name })), 400, `signer.name ${message}`)
  })

  test('in a query parameter → 400', async () => {
    await expectError(
      await postSeal(server, org.apiKey, await makePdf(), { title: 'Board \u202Eminutes' }),
      400,
      'title must not contain control characters (U+202E)',
    )
  })

  test('line breaks, tabs, directional marks, right-to-left and astral text are accepted; the name is kept as sent', async () => {
    const name = 'شركة\u200F Ann 😀'
    const message = 'Hello,\r\n\tplease sign.'
    const response = await postDocument(server, org.apiKey, single({ invite_message: message }, { name }))
    expect(response.status).toBe(201)
    const { id } = await bodyOf<{ id: string }>(response)
    const document = await bodyOf<{ signers: { name: string }[] }>(await server.request(`/api/v1/documents/${id}`, { key: org.apiKey }))
    expect(document.signers[0]?.name).toBe(name)
  })
})
