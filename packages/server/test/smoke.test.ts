import { afterAll, beforeAll, expect, test } from 'vitest'
import { startTestServer, type TestServer } from './helpers/test-server.ts'

let server: TestServer
beforeAll(async () => {
  server = await startTestServer()
})
afterAll(() => server.close())

test('healthz answers ok', async () => {
  const response = await server.request('/healthz')
  expect(response.status).toBe(200)
  expect(await response.json()).toEqual({ status: 'ok' })
})

test('a created document invites its signer by e-mail', async () => {
  const { orgId, apiKey } = await server.createOrg()
  const template = await server.createTemplate(orgId)
  const response = await server.request('/api/v1/documents', {
    method: 'POST',
    key: apiKey,
    json: { template_id: template.id, signer: { email: 'ann@example.com', name: 'Ann' } },
  })
  expect(response.status).toBe(201)
  const [invitation] = await server.mail.waitFor('ann@example.com')
  expect(invitation?.text).toMatch(/http:\/\/signet\.test\/sign\/[A-Za-z0-9_-]{43}/)
})
