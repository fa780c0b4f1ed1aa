import { randomUUID } from 'node:crypto'
import { PDF, PdfArray, PdfNumber, rgb } from '@libpdf/core'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { bodyOf, expectError, postDocument, uniqueEmail, type Json } from './helpers/api.ts'
import { callOk, connectAgent } from './helpers/mcp.ts'
import { makePdf } from './helpers/pdf.ts'
import { tokenFromMail } from './helpers/signing.ts'
import { createSignedInUser } from './helpers/session.ts'
import { startTestServer, type TestServer } from './helpers/test-server.ts'

let server: TestServer
beforeAll(async () => {
  server = await startTestServer()
})
afterAll(() => server.close())

interface TemplateDetail {
  id: string
  name: string
  page_count: number
  created_at: string
  updated_at: string
  roles: number[]
  fields: Json[]
  pages: { width: number; height: number }[]
}

const bareOrg = (plan: 'free' | 'business' = 'business') => server.createOrg(plan, `Org ${randomUUID().slice(0, 8)}`)

const upload = (key: string, pdf: Uint8Array | string, name = 'Employment contract', contentType = 'application/pdf') =>
  server.request(`/api/v1/templates?name=${encodeURIComponent(name)}`, { method: 'POST', key, body: pdf as BodyInit, headers: { 'content-type': contentType } })

async function uploaded(key: string, pdf: Uint8Array, name?: string): Promise<TemplateDetail> {
  const response = await upload(key, pdf, name)
  expect(response.status).toBe(201)
  return bodyOf<TemplateDetail>(response)
}

const setFields = (key: string, id: string, fields: unknown) => server.request(`/api/v1/templates/${id}/fields`, { method: 'PUT', key, json: { fields } })

/** A signature and a date for each of two roles, all on page 2. */
const twoRolesOnPage2 = [
  { role: 0, type: 'signature', page: 2, x: 72, y: 500, width: 200, height: 40, label: 'Employee' },
  { role: 0, type: 'date', page: 2, x: 300, y: 510, width: 120, height: 20 },
  { role: 1, type: 'signature', page: 2, x: 72, y: 600, width: 200, height: 40, label: 'Employer' },
  { role: 1, type: 'date', page: 2, x: 300, y: 610, width: 120, height: 20 },
]

/** Pages of chosen boxes: each `{rotate?, crop?}` on a US-letter MediaBox. */
async function pdfWithPages(pages: { rotate?: number; crop?: [number, number, number, number] }[]): Promise<Uint8Array> {
  const pdf = PDF.create()
  for (const [i, spec] of pages.entries()) {
    const page = pdf.addPage({ size: 'letter' })
    page.drawText(`Page ${i + 1}`, { x: 72, y: 700, size: 18, color: rgb(0, 0, 0) })
    if (spec.rotate !== undefined) page.dict.set('Rotate', PdfNumber.of(spec.rotate))
    if (spec.crop) page.dict.set('CropBox', new PdfArray(spec.crop.map((n) => PdfNumber.of(n))))
  }
  return pdf.save()
}

/** The signing page's page sections with the fields each holds (type and box, in % of the page). */
function fieldsByPage(html: string): Map<number, { type: string; box: number[] }[]> {
  const pages = new Map<number, { type: string; box: number[] }[]>()
  for (const section of html.split('<section class="page"').slice(1)) {
    const number = Number(/data-page="(\d+)"/.exec(section)?.[1])
    const fields = [...section.matchAll(/data-type="(\w+)" data-box="([\d.,]+)"/g)].map((m) => ({
      type: m[1] as string,
      box: (m[2] as string).split(',').map(Number),
    }))
    pages.set(number, fields)
  }
  return pages
}

describe('upload, fields and send', () => {
  test('a PDF upload is a template with no fields and its page sizes; fields for two roles on page 2 reach the signer page', async () => {
    const org = await bareOrg()
    const pdf = await makePdf(2)
    const template = await uploaded(org.apiKey, pdf)
    expect(template).toEqual({
      id: expect.any(String) as unknown,
      name: 'Employment contract',
      page_count: 2,
      created_at: expect.stringMatching(/Z$/) as unknown,
      updated_at: expect.stringMatching(/Z$/) as unknown,
      roles: [],
      fields: [],
      pages: [
        { width: 612, height: 792 },
        { width: 612, height: 792 },
      ],
    })

    // Sending it before it has fields says what to do.
    await expectError(await postDocument(server, org.apiKey, { template_id: template.id, signer: { email: uniqueEmail() } }), 400, /no fields yet/)

    const saved = await setFields(org.apiKey, template.id, twoRolesOnPage2)
    expect(saved.status).toBe(200)
    const withFields = await bodyOf<TemplateDetail>(saved)
    expect(withFields.roles).toEqual([0, 1])
    expect(withFields.fields).toEqual(twoRolesOnPage2.map((f) => ({ ...f, required: true })))

    const read = await server.request(`/api/v1/templates/${template.id}`, { key: org.apiKey })
    expect(read.status).toBe(200)
    expect(await bodyOf<TemplateDetail>(read)).toEqual({ ...withFields, updated_at: expect.any(String) as unknown })

    const file = await server.request(`/api/v1/templates/${template.id}/pdf`, { key: org.apiKey })
    expect(file.status).toBe(200)
    expect(file.headers.get('content-type')).toBe('application/pdf')
    expect(Buffer.from(await file.arrayBuffer()).equals(Buffer.from(pdf))).toBe(true)

    const list = await bodyOf<{ templates: Json[] }>(await server.request('/api/v1/templates', { key: org.apiKey }))
    expect(list.templates).toEqual([{ id: template.id, name: 'Employment contract', page_count: 2, created_at: template.created_at, roles: [0, 1] }])

    const emails = [uniqueEmail('employee'), uniqueEmail('employer')]
    const sent = await postDocument(server, org.apiKey, {
      template_id: template.id,
      signers: emails.map((email, role) => ({ role, email })),
    })
    expect(sent.status).toBe(201)

    for (const [role, email] of emails.entries()) {
      const [mail] = await server.mail.waitFor(email)
      const page = await server.request(`/sign/${tokenFromMail(mail?.text)}`)
      expect(page.status).toBe(200)
      const byPage = fieldsByPage(await page.text())
      expect(byPage.get(1)).toEqual([])
      const signature = twoRolesOnPage2.find((f) => f.role === role && f.type === 'signature')
      if (!signature) throw new Error('no signature field')
      expect(
        byPage
          .get(2)
          ?.map((f) => f.type)
          .sort(),
      ).toEqual(['date', 'signature'])
      const box = byPage.get(2)?.find((f) => f.type === 'signature')?.box ?? []
      expect(box.map((n) => Math.round(n * 100) / 100)).toEqual([
        Math.round((signature.x / 612) * 10000) / 100,
        Math.round((signature.y / 792) * 10000) / 100,
        Math.round((signature.width / 612) * 10000) / 100,
        Math.round((signature.height / 792) * 10000) / 100,
      ])
    }

    // Documents were sent from it: its fields are theirs now.
    await expectError(await setFields(org.apiKey, template.id, twoRolesOnPage2.slice(0, 2)), 409, /Duplicate the template/)
  })

  test('rotated pages and pages with a CropBox report their size as displayed, and fields are checked against it', async () => {
    const org = await bareOrg()
    const pdf = await pdfWithPages([{}, { rotate: 90 }, { crop: [50, 100, 450, 700] }, { crop: [50, 100, 450, 700], rotate: 270 }, { rotate: 180 }])
    const template = await uploaded(org.apiKey, pdf, 'Odd pages')
    expect(template.pages).toEqual([
      { width: 612, height: 792 },
      { width: 792, height: 612 },
      { width: 400, height: 600 },
      { width: 600, height: 400 },
      { width: 612, height: 792 },
    ])
    // A landscape (rotated) page is wider than it is tall: a field 700 points along fits there, not on page 1.
    const wide = { role: 0, type: 'text', x: 50, y: 50, width: 700, height: 20 }
    expect((await setFields(org.apiKey, template.id, [{ ...wide, page: 2 }])).status).toBe(200)
    await expectError(await setFields(org.apiKey, template.id, [{ ...wide, page: 1 }]), 400, 'fields[0]: the field lies off page 1 (612×792 points).')
    await expectError(
      await setFields(org.apiKey, template.id, [
        { ...wide, page: 3, width: 340 },
        { ...wide, page: 3, y: 590, width: 100 },
      ]),
      400,
      'fields[1]: the field lies off page 3 (400×600 points).',
    )
    expect((await setFields(org.apiKey, template.id, [{ ...wide, page: 4, width: 550 }])).status).toBe(200)
  })
})

describe('bad input', () => {
  test('bad PDFs are a 4xx {error} that says what is wrong', async () => {
    const org = await bareOrg()
    await expectError(await upload(org.apiKey, 'hello, not a pdf'), 400, 'The file is not a PDF (no %PDF- header).')
    const whole = await makePdf(1)
    await expectError(await upload(org.apiKey, whole.subarray(0, Math.floor(whole.length / 2))), 400, /truncated/)
    await expectError(await upload(org.apiKey, new Uint8Array()), 400, /Send the PDF as the request body/)
    await expectError(await upload(org.apiKey, '{"a":1}', 'x', 'application/json'), 400, /Send the PDF as the request body/)
    await expectError(await upload(org.apiKey, whole, 'x', 'text/plain'), 415)
    await expectError(
      await server.request('/api/v1/templates', { method: 'POST', key: org.apiKey, body: whole as BodyInit, headers: { 'content-type': 'application/pdf' } }),
      400,
      /name/,
    )
    await expectError(await upload(org.apiKey, whole, '   '), 400, 'Template name must be 1 to 200 characters.')
  })

  test("bad fields get the CLI's texts", async () => {
    const org = await bareOrg()
    const template = await uploaded(org.apiKey, await makePdf(2))
    const field = { role: 0, type: 'signature', page: 1, x: 72, y: 72, width: 100, height: 30 }
    await expectError(await setFields(org.apiKey, template.id, []), 400, /^Invalid fields: /)
    await expectError(await setFields(org.apiKey, template.id, [{ ...field, x: -1 }]), 400, /^Invalid fields: fields\[0\]\.x/)
    await expectError(await setFields(org.apiKey, template.id, [{ ...field, type: 'stamp' }]), 400, /^Invalid fields: fields\[0\]\.type must be one of/)
    await expectError(await setFields(org.apiKey, template.id, [{ ...field, color: 'red' }]), 400, /^Invalid fields: /)
    await expectError(await setFields(org.apiKey, template.id, [{ ...field, page: 3 }]), 400, 'fields[0]: page 3 does not exist (the PDF has 2 pages).')
    await expectError(await setFields(org.apiKey, template.id, [{ ...field, y: 780 }]), 400, 'fields[0]: the field lies off page 1 (612×792 points).')
    await expectError(await setFields(org.apiKey, template.id, 'everything'), 400, /^Invalid fields: /)
    await expectError(await server.request(`/api/v1/templates/${template.id}/fields`, { method: 'PUT', key: org.apiKey, json: { field: [field] } }), 400)
    // Each refusal points at the value at fault, so the editor can mark that field.
    const pointers = [
      [[{ ...field, x: -1 }], '/fields/0/x'],
      [[field, { ...field, type: 'stamp' }], '/fields/1/type'],
      [[{ ...field, color: 'red' }], '/fields/0/color'],
      [[field, { ...field, page: 3 }], '/fields/1/page'],
      [[{ ...field, y: 780 }], '/fields/0'],
      ['everything', '/fields'],
    ] as const
    for (const [fields, pointer] of pointers) {
      expect(await bodyOf(await setFields(org.apiKey, template.id, fields)), JSON.stringify(fields)).toMatchObject({ field: pointer })
    }
    // Nothing was saved.
    expect((await bodyOf<TemplateDetail>(await server.request(`/api/v1/templates/${template.id}`, { key: org.apiKey }))).fields).toEqual([])
  })

  test("another org's template, a malformed id and an unknown one are the same 404", async () => {
    const [mine, theirs] = [await bareOrg(), await bareOrg()]
    const template = await uploaded(theirs.apiKey, await makePdf(1))
    for (const id of [template.id, randomUUID(), 'not-a-uuid']) {
      await expectError(await server.request(`/api/v1/templates/${id}`, { key: mine.apiKey }), 404, 'Template not found.')
      await expectError(await server.request(`/api/v1/templates/${id}/pdf`, { key: mine.apiKey }), 404, 'Template not found.')
      await expectError(
        await setFields(mine.apiKey, id, [{ role: 0, type: 'signature', page: 1, x: 1, y: 1, width: 10, height: 10 }]),
        404,
        'Template not found.',
      )
      await expectError(
        await server.request(`/api/v1/templates/${id}`, { method: 'PATCH', key: mine.apiKey, json: { name: 'Mine now' } }),
        404,
        'Template not found.',
      )
      await expectError(await server.request(`/api/v1/templates/${id}`, { method: 'DELETE', key: mine.apiKey }), 404, 'Template not found.')
      await expectError(await server.request(`/api/v1/templates/${id}/duplicate`, { method: 'POST', key: mine.apiKey }), 404, 'Template not found.')
    }
    expect((await server.request(`/api/v1/templates/${template.id}`, { key: theirs.apiKey })).status).toBe(200)
  })
})

describe('rename, duplicate, delete', () => {
  test('rename changes the name; duplicate copies PDF and fields; delete hides it from the list and from sends, not from documents already sent', async () => {
    const org = await bareOrg()
    const template = await uploaded(org.apiKey, await makePdf(2), 'Offer letter')
    await setFields(org.apiKey, template.id, twoRolesOnPage2)

    const renamed = await server.request(`/api/v1/templates/${template.id}`, { method: 'PATCH', key: org.apiKey, json: { name: '  Offer letter 2027 ' } })
    expect(renamed.status).toBe(200)
    expect(await bodyOf(renamed)).toMatchObject({ id: template.id, name: 'Offer letter 2027', roles: [0, 1] })
    await expectError(await server.request(`/api/v1/templates/${template.id}`, { method: 'PATCH', key: org.apiKey, json: { name: '' } }), 400)

    const duplicated = await server.request(`/api/v1/templates/${template.id}/duplicate`, { method: 'POST', key: org.apiKey })
    expect(duplicated.status).toBe(201)
    const copy = await bodyOf<TemplateDetail>(duplicated)
    expect(copy).toMatchObject({ name: 'Copy of Offer letter 2027', page_count: 2, roles: [0, 1], pages: template.pages })
    expect(copy.id).not.toBe(template.id)
    expect(copy.fields).toEqual(twoRolesOnPage2.map((f) => ({ ...f, required: true })))

    const emails = [uniqueEmail(), uniqueEmail()]
    const sent = await postDocument(server, org.apiKey, { template_id: template.id, signers: emails.map((email, role) => ({ role, email })) })
    expect(sent.status).toBe(201)
    const { id: documentId } = await bodyOf<{ id: string }>(sent)
    const [invitation] = await server.mail.waitFor(emails[0] as string)

    const deleted = await server.request(`/api/v1/templates/${template.id}`, { method: 'DELETE', key: org.apiKey })
    expect(deleted.status).toBe(204)
    expect(await deleted.text()).toBe('')
    await expectError(await server.request(`/api/v1/templates/${template.id}`, { key: org.apiKey }), 404, 'Template not found.')
    await expectError(await server.request(`/api/v1/templates/${template.id}`, { method: 'DELETE', key: org.apiKey }), 404, 'Template not found.')
    const list = await bodyOf<{ templates: Json[]; total: number }>(await server.request('/api/v1/templates', { key: org.apiKey }))
    expect(list.templates.map((t) => t.id)).toEqual([copy.id])
    expect(list.total).toBe(1)
    const agent = await connectAgent(server, org.apiKey)
    try {
      const { structured } = await callOk<{ templates: Json[] }>(agent, 'list_templates')
      expect(structured.templates.map((t) => t.id)).toEqual([copy.id])
    } finally {
      await agent.close()
    }
    await expectError(
      await postDocument(server, org.apiKey, { template_id: template.id, signers: emails.map((email, role) => ({ role, email })) }),
      400,
      'Template not found.',
    )
    // The document sent before the delete still opens for its signer and reads as before.
    expect((await server.request(`/sign/${tokenFromMail(invitation?.text)}`)).status).toBe(200)
    expect((await server.request(`/api/v1/documents/${documentId}`, { key: org.apiKey })).status).toBe(200)
  })

  test("the Free plan's one template: a second upload or a duplicate is a 402 with upgrade_url; deleting makes room", async () => {
    const org = await bareOrg('free')
    const first = await uploaded(org.apiKey, await makePdf(1), 'Only one')
    for (const response of [
      await upload(org.apiKey, await makePdf(1), 'Second'),
      await server.request(`/api/v1/templates/${first.id}/duplicate`, { method: 'POST', key: org.apiKey }),
    ]) {
      expect(response.status).toBe(402)
      expect(await bodyOf(response)).toEqual({
        error: 'A Free org can have one template; upgrade the plan to add more.',
        code: 'payment_required',
        upgrade_url: expect.stringContaining(org.orgId) as unknown,
      })
    }
    expect((await server.request(`/api/v1/templates/${first.id}`, { method: 'DELETE', key: org.apiKey })).status).toBe(204)
    expect((await upload(org.apiKey, await makePdf(1), 'Second')).status).toBe(201)
  })
})

describe('dashboard sessions', () => {
  test('a member of the workspace manages templates like an owner', async () => {
    const { orgId } = await bareOrg()
    const member = await createSignedInUser(server, { role: 'member', orgId })
    const response = await member.fetch('/api/v1/templates?name=From%20the%20dashboard', {
      method: 'POST',
      body: (await makePdf(2)) as BodyInit,
      headers: { 'content-type': 'application/pdf' },
    })
    expect(response.status).toBe(201)
    const template = await bodyOf<TemplateDetail>(response)
    const saved = await member.fetch(`/api/v1/templates/${template.id}/fields`, { method: 'PUT', json: { fields: twoRolesOnPage2 } })
    expect(saved.status).toBe(200)
    expect((await member.fetch(`/api/v1/templates/${template.id}`, { method: 'PATCH', json: { name: 'Renamed' } })).status).toBe(200)
    expect((await member.fetch(`/api/v1/templates/${template.id}/duplicate`, { method: 'POST' })).status).toBe(201)
    expect((await member.fetch(`/api/v1/templates/${template.id}`, { method: 'DELETE' })).status).toBe(204)
  })
})
