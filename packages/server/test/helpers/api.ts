import { randomUUID } from 'node:crypto'
import { expect } from 'vitest'
import type { Plan } from '../../src/db/schema.ts'
import { STATUS_BY_CODE, type ErrorCode } from '../../src/errors.ts'
import type { TestServer } from './test-server.ts'

/** A JSON object body, as the API's resources are; tests index into it freely. */
export type Json = Record<string, unknown>

/** The response body parsed as JSON. */
export async function bodyOf<T = Json>(response: Response): Promise<T> {
  return (await response.json()) as T
}

/**
 * Asserts an error response: the status, and a body that is exactly `{error, code, field?}` (the
 * spec's `{error}` and our code, whose status is the response's), whose text matches `message`
 * when given. Returns the text.
 */
export async function expectError(response: Response, status: number, message?: string | RegExp): Promise<string> {
  const body = await bodyOf(response)
  const field = typeof body.field === 'string' ? { field: body.field } : {}
  expect({ status: response.status, body }).toEqual({ status, body: { error: expect.any(String) as unknown, code: expect.any(String) as unknown, ...field } })
  expect(STATUS_BY_CODE[body.code as ErrorCode], `the status of code ${String(body.code)}`).toBe(status)
  const text = body.error as string
  if (typeof message === 'string') expect(text).toBe(message)
  else if (message) expect(text).toMatch(message)
  return text
}

/** An address no other test (or earlier run on a shared database) uses, so mail assertions never mix. */
export const uniqueEmail = (label = 'signer', domain = 'example.com'): string => `${label}.${randomUUID().slice(0, 8)}@${domain}`

/** A signature field for `role` on page 1, at height `y` (points from the top). */
export const signatureField = (role: number, y = 100) => ({ role, type: 'signature', page: 1, x: 72, y, width: 180, height: 30 })

/** Fields for a template that needs one signer per role in `roles`. */
export const fieldsForRoles = (roles: number[]) => roles.map((role, i) => signatureField(role, 60 + i * 35))

export interface TestOrg {
  orgId: string
  apiKey: string
  /** A template of this org that needs only role 0 (Party 1). */
  templateId: string
}

/**
 * A fresh org with its key and a one-signer template. Business plan by default: its
 * sends are unlimited, so tests can create as many documents as they need.
 */
export async function setupOrg(server: TestServer, options: { plan?: Plan; name?: string } = {}): Promise<TestOrg> {
  const { orgId, apiKey } = await server.createOrg(options.plan ?? 'business', options.name ?? `Org ${randomUUID().slice(0, 8)}`)
  const template = await server.createTemplate(orgId)
  return { orgId, apiKey, templateId: template.id }
}

/** POST /api/v1/documents with the given JSON body. */
export const postDocument = (server: TestServer, apiKey: string, body: unknown): Promise<Response> =>
  server.request('/api/v1/documents', { method: 'POST', key: apiKey, json: body })

/** Creates a single-signer document that must succeed; returns its id. */
export async function createSentDocument(server: TestServer, org: TestOrg, email = uniqueEmail()): Promise<string> {
  const response = await postDocument(server, org.apiKey, { template_id: org.templateId, signer: { email } })
  expect(response.status).toBe(201)
  return (await bodyOf<{ id: string }>(response)).id
}
