import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { bodyOf } from './helpers/api.ts'
import { startTestServer, type TestServer } from './helpers/test-server.ts'

let server: TestServer
beforeAll(async () => {
  server = await startTestServer()
})
afterAll(() => server.close())

interface Schema {
  type?: string
  properties?: Record<string, Schema>
  items?: Schema
  additionalProperties?: unknown
  required?: string[]
  minItems?: number
  maxItems?: number
  maximum?: number
}
interface Operation {
  parameters?: { name: string; in: string; schema: Schema }[]
  requestBody?: { content: Record<string, { schema: Schema }> }
  responses: Record<string, unknown>
}
interface OpenApi {
  openapi: string
  info: { version: string; title: string }
  paths: Record<string, Record<string, Operation>>
}

/** Every REST operation of /api/v1, as the spec lists them. */
const OPERATIONS = [
  ['post', '/api/v1/documents'],
  ['post', '/api/v1/documents/bulk-send'],
  ['get', '/api/v1/documents'],
  ['get', '/api/v1/documents/counts'],
  ['get', '/api/v1/documents/{id}'],
  ['post', '/api/v1/documents/{id}/void'],
  ['get', '/api/v1/documents/{id}/signed-file'],
  ['get', '/api/v1/documents/{id}/certificate'],
  ['get', '/api/v1/documents/{id}/badge'],
  ['get', '/api/v1/templates'],
  ['post', '/api/v1/templates'],
  ['get', '/api/v1/templates/{id}'],
  ['get', '/api/v1/templates/{id}/pdf'],
  ['put', '/api/v1/templates/{id}/fields'],
  ['put', '/api/v1/templates/{id}/roles'],
  ['patch', '/api/v1/templates/{id}'],
  ['delete', '/api/v1/templates/{id}'],
  ['post', '/api/v1/templates/{id}/duplicate'],
  ['get', '/api/v1/documents/{id}/audit'],
  ['post', '/api/v1/documents/{id}/signers/{signerId}/resend'],
  ['post', '/api/v1/webhooks/{id}/test'],
  ['get', '/api/v1/keys'],
  ['post', '/api/v1/keys'],
  ['delete', '/api/v1/keys/{id}'],
  ['get', '/api/v1/connected-apps'],
  ['delete', '/api/v1/connected-apps/{id}'],
  ['get', '/api/v1/settings/reminders'],
  ['put', '/api/v1/settings/reminders'],
  ['get', '/api/v1/settings/signer-language'],
  ['put', '/api/v1/settings/signer-language'],
  ['get', '/api/v1/settings/embed'],
  ['put', '/api/v1/settings/embed'],
  ['post', '/api/v1/documents/{id}/signers/{signerId}/embed'],
  ['get', '/api/v1/events'],
  ['post', '/api/v1/events/trigger'],
  ['get', '/api/v1/identity-check'],
  ['post', '/api/v1/identity-check'],
  ['get', '/api/v1/operator/orgs'],
  ['put', '/api/v1/operator/orgs/{id}/plan'],
  ['post', '/api/v1/operator/orgs/{id}/credits'],
  ['get', '/api/v1/operator/users'],
  ['post', '/api/v1/operator/users/{id}/disable'],
  ['post', '/api/v1/operator/users/{id}/enable'],
  ['post', '/api/v1/operator/users/{id}/promote'],
  ['post', '/api/v1/operator/users/{id}/reset-two-factor'],
  ['get', '/api/v1/me/two-factor'],
  ['post', '/api/v1/me/two-factor/totp'],
  ['post', '/api/v1/me/two-factor/totp/confirm'],
  ['post', '/api/v1/me/two-factor/totp/disable'],
  ['post', '/api/v1/me/passkeys/options'],
  ['post', '/api/v1/me/passkeys'],
  ['post', '/api/v1/me/passkeys/{id}/remove'],
  ['post', '/api/v1/me/recovery-codes'],
  ['get', '/api/v1/me/security-events'],
  ['get', '/api/v1/workspace/security'],
  ['put', '/api/v1/workspace/security'],
  ['get', '/api/v1/operator/identity-checks'],
  ['get', '/api/v1/operator/identity-checks/{id}/document'],
  ['post', '/api/v1/operator/identity-checks/{id}/decision'],
  ['get', '/api/v1/usage'],
  ['get', '/api/v1/billing/spend-cap'],
  ['put', '/api/v1/billing/spend-cap'],
  ['post', '/api/v1/webhooks'],
  ['get', '/api/v1/webhooks'],
  ['patch', '/api/v1/webhooks/{id}'],
  ['delete', '/api/v1/webhooks/{id}'],
  ['post', '/api/v1/webhooks/{id}/rotate-secret'],
  ['get', '/api/v1/webhooks/{id}/deliveries'],
  ['post', '/api/v1/webhooks/{id}/deliveries/{deliveryId}/redeliver'],
  ['post', '/api/v1/seals'],
  ['get', '/api/v1/seals/{id}'],
  ['get', '/api/v1/me'],
  ['patch', '/api/v1/me'],
  ['post', '/api/v1/me/password'],
  ['get', '/api/v1/me/sessions'],
  ['delete', '/api/v1/me/sessions/{id}'],
  ['post', '/api/v1/me/workspace'],
  ['post', '/api/v1/workspaces'],
  ['post', '/api/v1/invitations/{token}/accept'],
  ['get', '/api/v1/members'],
  ['post', '/api/v1/members/invitations'],
  ['delete', '/api/v1/members/invitations/{id}'],
  ['patch', '/api/v1/members/{userId}'],
  ['delete', '/api/v1/members/{userId}'],
] as const

/** The public routes the document also describes: no API key, so no 401 or 429. */
const PUBLIC_OPERATIONS = [
  ['get', '/.well-known/signet-root.pem'],
  ['get', '/verify/{id}.json'],
  ['get', '/api/v1/instance'],
  ['post', '/api/v1/auth/signup'],
  ['post', '/api/v1/auth/verify-email'],
  ['post', '/api/v1/auth/login'],
  ['post', '/api/v1/auth/logout'],
  ['post', '/api/v1/auth/forgot-password'],
  ['post', '/api/v1/auth/reset-password'],
  ['post', '/api/v1/auth/setup'],
  ['post', '/api/v1/auth/second-factor/totp'],
  ['post', '/api/v1/auth/second-factor/recovery-code'],
  ['post', '/api/v1/auth/second-factor/passkey/options'],
  ['post', '/api/v1/auth/second-factor/passkey'],
  ['post', '/api/v1/auth/passkey/options'],
  ['post', '/api/v1/auth/passkey'],
  ['get', '/api/v1/invitations/{token}'],
] as const

let document: OpenApi
const operation = (method: string, path: string): Operation => {
  const found = document.paths[path]?.[method]
  if (!found) throw new Error(`no ${method.toUpperCase()} ${path} in the OpenAPI document`)
  return found
}

describe('GET /api/v1/openapi.json', () => {
  beforeAll(async () => {
    // No Authorization header: the description is public.
    const response = await server.request('/api/v1/openapi.json')
    expect(response.status).toBe(200)
    expect(response.headers.get('content-type')).toMatch(/^application\/json/)
    document = await bodyOf<OpenApi>(response)
  })

  test('is OpenAPI 3.x, interface version 1.0.0', () => {
    expect(document.openapi).toMatch(/^3\.\d+\.\d+$/)
    expect(document.info.version).toBe('1.0.0')
  })

  test('describes exactly the /api/v1 REST operations and the public verification routes', () => {
    const described = Object.entries(document.paths).flatMap(([path, item]) =>
      Object.keys(item)
        .filter((method) => ['get', 'post', 'put', 'patch', 'delete'].includes(method))
        .map((method) => `${method} ${path}`),
    )
    expect(described.sort()).toEqual([...OPERATIONS, ...PUBLIC_OPERATIONS].map(([method, path]) => `${method} ${path}`).sort())
  })

  test.each(PUBLIC_OPERATIONS)('%s %s needs no API key', (method, path) => {
    expect(operation(method, path)).toMatchObject({ security: [] })
  })

  test('the seal upload is a raw PDF body', () => {
    const body = operation('post', '/api/v1/seals').requestBody?.content
    expect(Object.keys(body ?? {})).toEqual(['application/pdf'])
    expect(body?.['application/pdf']?.schema).toMatchObject({ type: 'string', format: 'binary' })
  })

  test.each(OPERATIONS)('%s %s documents 401 and 429', (method, path) => {
    const { responses } = operation(method, path)
    expect(responses).toHaveProperty('401')
    expect(responses).toHaveProperty('429')
  })

  test('the create body is strict, with the validation rules the server runs', () => {
    const schema = operation('post', '/api/v1/documents').requestBody?.content['application/json']?.schema
    expect(schema?.additionalProperties).toBe(false)
    expect(schema?.required).toEqual(['template_id'])
    expect(schema?.properties?.signer?.additionalProperties).toBe(false)
    const signers = schema?.properties?.signers
    expect(signers).toMatchObject({ type: 'array', minItems: 1, maxItems: 20 })
    expect(signers?.items?.additionalProperties).toBe(false)
    expect(signers?.items?.properties?.role).toMatchObject({ type: 'integer', minimum: 0, maximum: 19 })
  })

  test('list query parameters carry their limits', () => {
    const limitOf = (path: string) => operation('get', path).parameters?.find((p) => p.name === 'limit' && p.in === 'query')?.schema
    expect(limitOf('/api/v1/documents')).toMatchObject({ maximum: 100 })
    expect(limitOf('/api/v1/templates')).toMatchObject({ maximum: 500 })
  })
})

test('/docs serves an HTML page', async () => {
  const response = await server.request('/docs')
  expect(response.status).toBe(200)
  expect(response.headers.get('content-type')).toMatch(/^text\/html/)
  expect(await response.text()).toMatch(/<html/i)
})
