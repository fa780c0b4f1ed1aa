import { Ajv, type ErrorObject, type SchemaValidateFunction, type ValidateFunction } from 'ajv'
import type { Static, TSchema } from 'typebox'
import { isEmailAddress } from './email-address.ts'
import { isUtcDateTime } from './utc-date-time.ts'
import { isUuid } from './ids.ts'
import { rewriteSchema } from './rewrite-schema.ts'
import { codePointOf, describeHiddenText, hiddenTagIn, isDisplayName, problemInName, type HiddenTextProblem } from './visible-text.ts'

/** Our own string formats, registered on every validator (and named in the OpenAPI document). */
export const FORMATS = {
  email: isEmailAddress,
  uuid: isUuid,
  'utc-date-time': isUtcDateTime,
} as const

/**
 * Characters no text the service takes may hold, in any field of any request, present or
 * future: NUL (PostgreSQL cannot store it), the other C0 controls but tab, line feed and
 * carriage return, DEL and the C1 controls (invisible, and never meant in a name, a title or
 * a message), and the bidirectional embeddings, overrides and isolates (U+202A–U+202E,
 * U+2066–U+2069), which reorder what a signer reads: "Invoice\u202Efdp.exe" shows as
 * "Invoiceexe.pdf". The directional marks U+200E, U+200F and U+061C stay allowed: right-to-left
 * names need them, and they cannot reverse a run of text.
 */
// eslint-disable-next-line no-control-regex -- finding control characters is the point
const CONTROL_CHARACTER = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/
/** Half of a UTF-16 pair without its other half (JSON can write one as "\ud800"): not text, and PostgreSQL's JSON refuses it. */
const UNPAIRED_SURROGATE = /\p{Surrogate}/u

/**
 * The `plainText` keyword: a string without control characters, unpaired surrogates or tag
 * characters (invisible ASCII an agent reads; lib/visible-text.ts).
 */
const plainText: SchemaValidateFunction = (_schema: unknown, data: string) => {
  const control = CONTROL_CHARACTER.exec(data)
  const surrogate = control ? null : UNPAIRED_SURROGATE.exec(data)
  const found = control?.[0] ?? surrogate?.[0] ?? hiddenTagIn(data)
  const kind = control ? 'control' : surrogate ? 'unpaired' : 'invisible'
  plainText.errors = found ? [{ keyword: 'plainText', params: { character: codePointOf(found), kind } }] : []
  return !found
}

/** The `displayName` keyword, on the strings schemas mark with displayName(): names and titles show all they hold. */
const displayName: SchemaValidateFunction = (_schema: unknown, data: string) => {
  const problem = problemInName(data)
  displayName.errors = problem ? [{ keyword: 'displayName', params: { problem } }] : []
  return !problem
}

/**
 * The `finite` keyword. Ajv checks a query parameter's type before coercing it and not after,
 * so "1e309" (or "Infinity") passes `type: integer` as Infinity and skips minimum/maximum,
 * reaching the database as a bigint it cannot parse. Its value is the declared type, for the message.
 */
const finite: SchemaValidateFunction = (type: string, data: unknown) => {
  const ok = typeof data !== 'number' || Number.isFinite(data)
  finite.errors = ok ? [] : [{ keyword: 'type', params: { type } }]
  return ok
}

/** The characters (code points) in `text`, as maxLength and minLength count them: a surrogate pair is one. */
function countChars(text: string): number {
  let chars = 0
  for (let i = 0; i < text.length; i++, chars++) {
    const unit = text.charCodeAt(i)
    if (unit >= 0xd800 && unit <= 0xdbff && i + 1 < text.length && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00) i++
  }
  return chars
}

/**
 * maxLength and minLength, counted only when the UTF-16 length cannot tell (a character is one
 * or two units): Ajv's own count walks every string, 0.3 s for a 30 MB base64 PDF. The errors
 * are Ajv's, so they read the same.
 */
const maxChars: SchemaValidateFunction = (limit: number, data: string) => {
  const ok = data.length <= limit || (data.length <= 2 * limit && countChars(data) <= limit)
  maxChars.errors = ok ? [] : [{ keyword: 'maxLength', params: { limit } }]
  return ok
}
const minChars: SchemaValidateFunction = (limit: number, data: string) => {
  const ok = data.length >= 2 * limit || (data.length >= limit && countChars(data) >= limit)
  minChars.errors = ok ? [] : [{ keyword: 'minLength', params: { limit } }]
  return ok
}

/**
 * A copy of a route's schema with the checks every request value gets, whatever the route
 * declares: `plainText` on every string (and its length limits counted cheaply), and (where
 * query strings are coerced) `finite` on every number. Copied, so the OpenAPI document keeps
 * showing the schema as written.
 */
function withInputRules(schema: unknown, coerced: boolean): unknown {
  return rewriteSchema(schema, (copy, original) => {
    if (copy.type === 'string') {
      copy.plainText = true
      for (const [ajvKeyword, ours] of [
        ['maxLength', 'maxChars'],
        ['minLength', 'minChars'],
      ] as const) {
        if (typeof copy[ajvKeyword] !== 'number') continue
        copy[ours] = copy[ajvKeyword]
        delete copy[ajvKeyword]
      }
    }
    if (copy.type === 'string' && isDisplayName(original)) copy.displayName = true
    if (coerced && (copy.type === 'integer' || copy.type === 'number')) copy.finite = copy.type
    return copy
  })
}

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
  // Where maxLength and minLength are, so that the first error reported stays the same.
  ajv.addKeyword({ keyword: 'maxChars', type: 'string', schemaType: 'number', errors: true, before: 'pattern', validate: maxChars })
  ajv.addKeyword({ keyword: 'minChars', type: 'string', schemaType: 'number', errors: true, before: 'pattern', validate: minChars })
  ajv.addKeyword({ keyword: 'plainText', type: 'string', schemaType: 'boolean', errors: true, validate: plainText })
  ajv.addKeyword({ keyword: 'displayName', type: 'string', schemaType: 'boolean', errors: true, validate: displayName })
  // No `type`: Ajv runs number keywords only on finite numbers, which would skip this one.
  ajv.addKeyword({ keyword: 'finite', schemaType: 'string', errors: true, validate: finite })
  return ajv
}

type Compile = <T extends TSchema>(schema: T) => ValidateFunction<Static<T>>

function compilerOf(coerceTypes: boolean): Compile {
  const ajv = createAjv(coerceTypes)
  return <T extends TSchema>(schema: T) => ajv.compile<Static<T>>(withInputRules(schema, coerceTypes) as T)
}

/** For JSON bodies (and files such as a template's fields): no coercion at all. */
export const compileStrict: Compile = compilerOf(false)
/** For query strings and path parameters, which arrive as text: "20" may stand for 20. */
export const compileCoercing: Compile = compilerOf(true)

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
    case 'uniqueItems':
      return `${fieldPath(root, error.instancePath)} must not repeat a value`
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
    case 'plainText':
      return params.kind === 'unpaired'
        ? `${fieldPath(root, error.instancePath)} must be well-formed Unicode (unpaired surrogate ${String(params.character)})`
        : `${fieldPath(root, error.instancePath)} must not contain ${params.kind === 'control' ? 'control' : 'invisible'} characters (${String(params.character)})`
    case 'displayName':
      return `${fieldPath(root, error.instancePath)} ${describeHiddenText(params.problem as HiddenTextProblem)}`
    default:
      return `${fieldPath(root, error.instancePath)} ${error.message ?? 'is invalid'}`
  }
}

/** An RFC 6901 pointer segment: `~` and `/` escaped. */
const pointerSegment = (name: string): string => name.replaceAll('~', '~0').replaceAll('/', '~1')

/**
 * The JSON pointer of the value an error is about: Ajv's instancePath (already a pointer), and for
 * a missing or unknown property the pointer of that property. Undefined for the whole value.
 */
function pointerOf(error: ErrorObject): string | undefined {
  const params = error.params as Record<string, unknown>
  const child = error.keyword === 'required' ? params.missingProperty : error.keyword === 'additionalProperties' ? params.additionalProperty : undefined
  const pointer = typeof child === 'string' ? `${error.instancePath}/${pointerSegment(child)}` : error.instancePath
  return pointer === '' ? undefined : pointer
}

/** A failed validation as the error body tells it: one sentence, and the pointer of the value at fault. */
export interface ValidationFailure {
  message: string
  field: string | undefined
}

/**
 * The first error of a failed validation, described. Only the first: for a union (e.g. a field
 * that may be several literals) Ajv reports each branch, gathered here into one sentence.
 */
export function validationFailure(errors: ErrorObject[] | null | undefined, root = '', unknownNoun = 'field'): ValidationFailure {
  const relevant = (errors ?? []).filter((e) => e.keyword !== 'if')
  const literalUnion = relevant.filter((e) => e.keyword === 'const')
  if (literalUnion.length > 1) {
    const first = literalUnion[0] as ErrorObject
    const allowed = literalUnion
      .filter((e) => e.instancePath === first.instancePath)
      .map((e) => JSON.stringify((e.params as { allowedValue: unknown }).allowedValue))
    return { message: `${fieldPath(root, first.instancePath)} must be one of: ${allowed.join(', ')}`, field: pointerOf(first) }
  }
  const first = relevant[0]
  return first ? { message: describeOne(first, root, unknownNoun), field: pointerOf(first) } : { message: 'invalid input', field: undefined }
}

/** One readable sentence for a failed validation (validationFailure without the pointer). */
export const describeValidationErrors = (errors: ErrorObject[] | null | undefined, root = '', unknownNoun = 'field'): string =>
  validationFailure(errors, root, unknownNoun).message
