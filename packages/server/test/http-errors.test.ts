import { gzipSync } from 'node:zlib'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { bodyOf, createSentDocument, expectError, setupOrg, type TestOrg } from './helpers/api.ts'
import { closedPortUrl } from './helpers/seals.ts'
import { startTestServer, type TestServer } from './helpers/test-server.ts'

let server: TestServer
let org: TestOrg
beforeAll(async () => {
  server = await startTestServer({ env: { WEBHOOK_ALLOW_PRIVATE: 'true' } })
  org = await setupOrg(server)
})
afterAll(() => server.close())

async function registerWebhook(): Promise<string> {
  const response = await server.request('/api/v1/webhooks', { method: 'POST', key: org.apiKey, json: { url: await closedPortUrl() } })
  expect(response.status).toBe(201)
  return (await bodyOf<{ id: string }>(response)).id
}

/** POST /api/v1/documents with a raw body and Content-Type. */
const postRaw = (body: string, contentType = 'application/json') =>
  server.request('/api/v1/documents', { method: 'POST', key: org.apiKey, headers: { 'content-type': contentType }, body })

describe('request bodies', () => {
  test.each([
    ['truncated JSON', '{"template_id": '],
    ['a trailing comma', '{"template_id": "x",}'],
    ['single quotes', "{'template_id': 'x'}"],
    ['a prototype-pollution key', '{"__proto__": {"admin": true}}'],
  ])('%s → 400 {error}', async (_name, body) => {
    await expectError(await postRaw(body), 400, /not valid JSON/)
  })

  test('an empty body → 400 {error}', async () => {
    await expectError(await postRaw(''), 400, /JSON object/)
  })

  test.each(['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x'])('Content-Type %s → 415 {error}', async (contentType) => {
    await expectError(await postRaw('template_id=x', contentType), 415, /application\/json/)
  })

  test('a JSON body with a charset parameter is accepted', async () => {
    const body = JSON.stringify({ template_id: org.templateId, signer: { email: 'charset@example.com' } })
    expect((await postRaw(body, 'application/json; charset=utf-8')).status).toBe(201)
  })

  test('a body over 1 MiB → 413 {error}', async () => {
    const body = JSON.stringify({ template_id: org.templateId, signer: { email: 'big@example.com' }, invite_message: 'x'.repeat(1024 * 1024) })
    await expectError(await postRaw(body), 413, /larger than/)
  })

  test.each([
    ['JSON on a JSON route', '/api/v1/documents', 'application/json', '{}'],
    ['a PDF on the seal route', '/api/v1/seals', 'application/pdf', '%PDF-1.7'],
  ])('a gzip-encoded body (%s) → 415 {error}', async (_name, path, contentType, body) => {
    const response = await server.request(path, {
      method: 'POST',
      key: org.apiKey,
      headers: { 'content-type': contentType, 'content-encoding': 'gzip' },
      body: gzipSync(body),
    })
    await expectError(response, 415, 'Content-Encoding gzip is not supported: send the request body uncompressed.')
  })

  test('Content-Encoding identity is an uncompressed body', async () => {
    const body = JSON.stringify({ template_id: org.templateId, signer: { email: 'identity@example.com' } })
    const response = await server.request('/api/v1/documents', {
      method: 'POST',
      key: org.apiKey,
      headers: { 'content-type': 'application/json', 'content-encoding': 'identity' },
      body,
    })
    expect(response.status).toBe(201)
  })

  test('a non-JSON body on void → 415 {error}', async () => {
    const id = await createSentDocument(server, org)
    const wrong = await server.request(`/api/v1/documents/${id}/void`, {
      method: 'POST',
      key: org.apiKey,
      headers: { 'content-type': 'text/plain' },
      body: 'please',
    })
    await expectError(wrong, 415, /application\/json/)
  })
})

describe('query parameters', () => {
  test.each(['/api/v1/documents', '/api/v1/templates', 'webhook deliveries'])('non-finite limit and offset on %s → 400 {error}', async (list) => {
    const path = list === 'webhook deliveries' ? `/api/v1/webhooks/${await registerWebhook()}/deliveries` : list
    for (const name of ['limit', 'offset']) {
      for (const value of ['1e309', '-1e309', 'Infinity']) {
        await expectError(await server.request(`${path}?${name}=${value}`, { key: org.apiKey }), 400, `${name} must be an integer`)
      }
    }
  })
})

describe('paths', () => {
  test.each([
    ['a short number', '123'],
    ['an encoded parent path', '..%2Fx'],
    ['an encoded space', 'a%20b'],
    ['a UUID with a trailing character', '00000000-0000-4000-8000-000000000000x'],
  ])('a bad document id (%s) → 404 "Document not found.", never 500', async (_name, id) => {
    for (const suffix of ['', '/signed-file']) {
      await expectError(await server.request(`/api/v1/documents/${id}${suffix}`, { key: org.apiKey }), 404, 'Document not found.')
    }
    await expectError(await server.request(`/api/v1/documents/${id}/void`, { method: 'POST', key: org.apiKey }), 404, 'Document not found.')
  })

  test('a malformed %-escape in the path → 400 {error}', async () => {
    await expectError(await server.request('/api/v1/documents/%E0%A4%A', { key: org.apiKey }), 400, /not a valid URL/)
  })

  test('an over-long document id → 414 {error}', async () => {
    await expectError(await server.request(`/api/v1/documents/${'a'.repeat(500)}`, { key: org.apiKey }), 414, /too long/)
  })

  test.each([
    ['GET', '/api/v1/nothing-here'],
    ['GET', '/api/v2/documents'],
    ['DELETE', '/api/v1/documents'],
    ['PUT', '/api/v1/templates'],
  ])('unknown route %s %s → 404 {error}', async (method, path) => {
    await expectError(await server.request(path, { method, key: org.apiKey }), 404, /No route/)
  })
})

describe("the signer's link", () => {
  test.each([65, 100, 101, 500])('a token of %i characters shows the "This link does not work" page', async (length) => {
    const response = await server.request(`/sign/${'a'.repeat(length)}`)
    expect(response.status).toBe(404)
    expect(response.headers.get('content-type')).toMatch(/^text\/html/)
    const page = await response.text()
    expect(page).toContain('This link does not work')
    expect(page).toContain('This signing link is not valid.')
  })

  test('so does a token with a control character', async () => {
    const response = await server.request('/sign/abc%00def')
    expect(response.status).toBe(404)
    expect(await response.text()).toContain('This link does not work')
  })

  test("the signing page's script still gets JSON for an over-long token (the link is looked up before any body is read)", async () => {
    await expectError(
      await server.request(`/sign/${'a'.repeat(65)}/view`, { method: 'POST' }),
      404,
      'This signing link is not valid. Check that you copied the whole link from your e-mail.',
    )
  })
})

describe('responses', () => {
  test('errors are JSON', async () => {
    const response = await server.request('/api/v1/documents/123', { key: org.apiKey })
    expect(response.headers.get('content-type')).toMatch(/^application\/json/)
    expect(await bodyOf(response)).toEqual({ error: 'Document not found.', code: 'not_found' })
  })
})
