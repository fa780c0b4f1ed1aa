import { SerializerSelector } from '@fastify/fast-json-stringify-compiler'
import { isSchemaObject, rewriteSchema, type SchemaObject } from '../lib/rewrite-schema.ts'

/**
 * The response serializers Fastify builds, over the route's schemas with every nullable value
 * written as a type list: TypeBox writes `string | null` as `anyOf: [{ type: 'string' }, { type:
 * 'null' }]`, which fast-json-stringify serializes by running an Ajv validator per branch on each
 * response until one matches (a date-time's format check included), where for `type: ['string',
 * 'null']` it tests `typeof`. A document's status has a dozen such fields: 16 µs to serialize,
 * against 4–8 µs as type lists (docs/benchmarks.md, issue 21). Both say the same thing, so the
 * OpenAPI document and the request validators keep the schemas as written.
 */
export function buildResponseSerializers(): ReturnType<typeof SerializerSelector> {
  const buildDefault = SerializerSelector()
  return (externalSchemas, options) => {
    const compile = buildDefault(externalSchemas === undefined ? undefined : typeListsForNullables(externalSchemas), options)
    return (route) => compile({ ...route, schema: typeListsForNullables(route.schema) })
  }
}

/** A copy of `schema` with every nullable single-type value as a type list (the rest as it was). */
export const typeListsForNullables = (schema: unknown): unknown => rewriteSchema(schema, (copy) => asTypeList(copy) ?? copy)

/** Keywords that make a schema more than one type's: such a branch stays in its anyOf. */
const COMPOSITE_KEYWORDS = ['anyOf', 'oneOf', 'allOf', 'not', 'if', '$ref'] as const

/** Words about a schema that do not constrain it (TypeBox puts a description beside an anyOf). */
const ANNOTATIONS = new Set(['description', 'title', '$comment', 'default', 'example', 'examples'])

/** The single JSON type a schema admits (`{ type: 'integer' }`, or an enum of strings), or undefined. */
function singleTypeOf(schema: SchemaObject): string | undefined {
  if (COMPOSITE_KEYWORDS.some((keyword) => keyword in schema)) return undefined
  if (typeof schema.type === 'string') return schema.type
  const values = schema.enum
  const stringEnum = schema.type === undefined && Array.isArray(values) && values.length > 0 && values.every((v) => typeof v === 'string')
  return stringEnum ? 'string' : undefined
}

/** `anyOf: [X, { type: 'null' }]` (either order) as X with `type: [X's type, 'null']`; undefined for any other schema. */
function asTypeList(schema: SchemaObject): SchemaObject | undefined {
  const { anyOf: branches, ...siblings } = schema
  if (!Array.isArray(branches) || branches.length !== 2 || !branches.every(isSchemaObject)) return undefined
  if (Object.keys(siblings).some((key) => !ANNOTATIONS.has(key))) return undefined
  const nullIndex = branches.findIndex((branch) => branch.type === 'null' && Object.keys(branch).length === 1)
  const value = nullIndex === -1 ? undefined : branches[1 - nullIndex]
  const type = value && singleTypeOf(value)
  if (!value || type === undefined) return undefined
  const list: SchemaObject = { ...siblings, ...value, type: [type, 'null'] }
  if (Array.isArray(value.enum)) list.enum = [...(value.enum as unknown[]), null]
  return list
}
