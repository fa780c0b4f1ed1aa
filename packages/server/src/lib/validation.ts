import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv'
import type { Static, TSchema } from 'typebox'
import { isEmailAddress } from './email-address.ts'
import { isUtcDateTime } from './utc-date-time.ts'
import { isUuid } from './ids.ts'

/** Our own string formats, registered on every validator (and named in the OpenAPI document). */
export const FORMATS = {
  email: isEmailAddress,
  uuid: isUuid,
  'utc-date-time': isUtcDateTime,
} as const

function createAjv(coerceTypes: boolean): Ajv {
  const ajv = new Ajv({
    // Unknown fields are errors, never silently dropped; bodies keep their JSON types.
    removeAdditional: false,
    coerceTypes,
    useDefaults: false,
    allErrors: false,
    strict: true,
    strictTypes: false,
  })
  for (const [name, validate] of Object.entries(FORMATS)) ajv.addFormat(name, { type: 'string', validate })
  // OpenAPI annotation keywords used in route schemas.
  ajv.addKeyword('example')
  return ajv
}

/** For JSON bodies (and files such as a template's fields): no coercion at all. */
export const strictAjv = createAjv(false)
/** For query strings and path parameters, which arrive as text: "20" may stand for 20. */
export const coercingAjv = createAjv(true)

export const compileStrict = <T extends TSchema>(schema: T): ValidateFunction<Static<T>> =>
  strictAjv.compile<Static<T>>(schema)

const FORMAT_DESCRIPTIONS: Record<string, string> = {
  email: 'a valid e-mail address',
  uuid: 'a UUID',
  'utc-date-time': 'a UTC date-time such as 2030-01-31T17:00:00Z (or "" for none)',
}

const TYPE_NAMES: Record<string, string> = {
  string: 'a string',
  integer: 'an integer',
  number: 'a number',
  boolean: 'a boolean (true or false)',
  object: 'an object',
  array: 'an array',
  null: 'null',
  'string,null': 'a string or null',
}

/** `/signers/0/email` → `signers[0].email`, under the given root name. */
function fieldPath(root: string, instancePath: string, child?: string): string {
  const parts = instancePath.split('/').slice(1)
  if (child !== undefined) parts.push(child)
  let path = root
  for (const part of parts) path += /^\d+$/.test(part) ? `[${part}]` : path ? `.${part}` : part
  return path || 'body'
}

function describeOne(error: ErrorObject, root: string, unknownNoun: string): string {
  const params = error.params as Record<string, unknown>
  switch (error.keyword) {
    case 'required':
      return `${fieldPath(root, error.instancePath, String(params.missingProperty))} is required`
    case 'additionalProperties':
      return `${fieldPath(root, error.instancePath, String(params.additionalProperty))} is not an allowed ${unknownNoun}`
    case 'format':
      return `${fieldPath(root, error.instancePath)} must be ${FORMAT_DESCRIPTIONS[String(params.format)] ?? `in ${String(params.format)} format`}`
    case 'maxLength':
      return `${fieldPath(root, error.instancePath)} must be at most ${String(params.limit)} characters`
    case 'minLength':
      return `${fieldPath(root, error.instancePath)} must be at least ${String(params.limit)} character${params.limit === 1 ? '' : 's'}`
    case 'minItems':
      return `${fieldPath(root, error.instancePath)} must have at least ${String(params.limit)} item${params.limit === 1 ? '' : 's'}`
    case 'maxItems':
      return `${fieldPath(root, error.instancePath)} must have at most ${String(params.limit)} items`
    case 'enum':
      return `${fieldPath(root, error.instancePath)} must be one of: ${(params.allowedValues as unknown[]).join(', ')}`
    case 'const':
      return `${fieldPath(root, error.instancePath)} must be ${JSON.stringify(params.allowedValue)}`
    case 'maximum':
      return `${fieldPath(root, error.instancePath)} must be at most ${String(params.limit)}`
    case 'minimum':
      return `${fieldPath(root, error.instancePath)} must be at least ${String(params.limit)}`
    case 'type':
      return error.instancePath === '' && !root
        ? 'The request body must be a JSON object.'
        : `${fieldPath(root, error.instancePath)} must be ${TYPE_NAMES[String(params.type)] ?? String(params.type)}`
    case 'anyOf':
      return `${fieldPath(root, error.instancePath)} has an invalid value`
    default:
      return `${fieldPath(root, error.instancePath)} ${error.message ?? 'is invalid'}`
  }
}

/**
 * One readable sentence for a failed validation. Only the first error is described:
 * for a union (e.g. a field that may be several literals) Ajv reports each branch.
 */
export function describeValidationErrors(errors: ErrorObject[] | null | undefined, root = '', unknownNoun = 'field'): string {
  const relevant = (errors ?? []).filter((e) => e.keyword !== 'if')
  const literalUnion = relevant.filter((e) => e.keyword === 'const')
  if (literalUnion.length > 1) {
    const first = literalUnion[0] as ErrorObject
    const allowed = literalUnion
      .filter((e) => e.instancePath === first.instancePath)
      .map((e) => JSON.stringify((e.params as { allowedValue: unknown }).allowedValue))
    return `${fieldPath(root, first.instancePath)} must be one of: ${allowed.join(', ')}`
  }
  const first = relevant[0]
  return first ? describeOne(first, root, unknownNoun) : 'invalid input'
}
