import { SerializerSelector } from '@fastify/fast-json-stringify-compiler'
import { Type } from 'typebox'
import { describe, expect, it } from 'vitest'
import { DocumentView } from '../../src/documents/documents.schemas.ts'
import { buildResponseSerializers, typeListsForNullables } from '../../src/http/response-serializer.ts'

const route = (schema: unknown) => ({ schema, method: 'GET', url: '/documents/:id', httpStatus: '200' })
const ours = (schema: unknown) => buildResponseSerializers()(undefined, {})(route(schema))
const fastifyDefault = (schema: unknown) => SerializerSelector()(undefined, {})(route(schema))

const at = '2026-11-27T10:00:00.000Z'
const signer = (overrides: Record<string, unknown>) => ({
  id: '0b1c2d3e-1111-4222-8333-444455556660',
  role: 0,
  email: 'ada@example.com',
  name: 'Ada',
  status: 'pending',
  signed_at: null,
  viewed_at: at,
  declined_at: null,
  auth_required: false,
  auth_verified: false,
  ...overrides,
})
const document = (overrides: Record<string, unknown>) => ({
  id: '0b1c2d3e-1111-4222-8333-444455556666',
  title: 'Lease',
  status: 'pending',
  voided_reason: null,
  created_at: at,
  updated_at: at,
  expires_at: null,
  signed_pdf_status: null,
  signed_pdf_error: null,
  signers: [signer({}), signer({ name: null, status: 'signed', signed_at: at, order: 2, invited_at: null, role_name: 'Tenant' })],
  ...overrides,
})

/** Every anyOf left in a schema (as JSON pointers). */
function anyOfsIn(schema: unknown, path = ''): string[] {
  if (schema === null || typeof schema !== 'object') return []
  const own = 'anyOf' in schema ? [path] : []
  return [...own, ...Object.entries(schema).flatMap(([key, value]) => anyOfsIn(value, `${path}/${key}`))]
}

describe('response serializers', () => {
  it("write a document's status exactly as Fastify's default does, null or not", () => {
    const values = [
      document({}),
      document({ status: 'voided', voided_reason: 'expired', expires_at: at, cc: [{ email: 'cc@example.com', name: null }], language: 'de' }),
      document({ status: 'completed', signed_pdf_status: 'failed', signed_pdf_error: 'The seal could not be applied.', signers: [] }),
    ]
    for (const value of values) expect(ours(DocumentView)(value)).toBe(fastifyDefault(DocumentView)(value))
  })

  it("leave no anyOf in a document's status schema: every one of them was a nullable value", () => {
    expect(anyOfsIn(DocumentView).length).toBeGreaterThan(8)
    expect(anyOfsIn(typeListsForNullables(DocumentView))).toEqual([])
  })

  it('still refuse a value of neither type, as the anyOf did', () => {
    const schema = Type.Object({ name: Type.Union([Type.String(), Type.Null()]) })
    expect(() => ours(schema)({ name: { first: 'Ada' } })).toThrow(/does not match schema definition/)
    expect(() => fastifyDefault(schema)({ name: { first: 'Ada' } })).toThrow(/does not match schema definition/)
  })

  it('keep the enum of a nullable enum, and leave other unions and the schema as written alone', () => {
    const nullableEnum = Type.Union([Type.Enum(['a', 'b']), Type.Null()], { description: 'a choice' })
    expect(typeListsForNullables(nullableEnum)).toEqual({ description: 'a choice', type: ['string', 'null'], enum: ['a', 'b', null] })
    const twoObjects = Type.Union([Type.Object({ a: Type.String() }), Type.Object({ b: Type.String() })])
    expect(typeListsForNullables(twoObjects)).toEqual(twoObjects)
    const nullableUnion = Type.Union([Type.Union([Type.String(), Type.Integer()]), Type.Null()])
    expect(anyOfsIn(typeListsForNullables(nullableUnion))).toEqual(['', '/anyOf/0'])
    const asWritten = JSON.stringify(DocumentView)
    typeListsForNullables(DocumentView)
    expect(JSON.stringify(DocumentView)).toBe(asWritten)
  })
})
