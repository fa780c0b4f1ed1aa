import fc from 'fast-check'

/*
 * Values for the API fuzz test (test/api-fuzz.test.ts): valid ones derived from a route's
 * JSON Schema, the bad ones every field is tried with, and random mixtures of both.
 */

/** The parts of a JSON Schema (as TypeBox and the OpenAPI document write them) the fuzzer reads. */
export interface JsonSchema {
  type?: string
  format?: string
  pattern?: string
  enum?: unknown[]
  const?: unknown
  anyOf?: JsonSchema[]
  properties?: Record<string, JsonSchema>
  required?: string[]
  patternProperties?: Record<string, JsonSchema>
  items?: JsonSchema
  minLength?: number
  maxLength?: number
  minimum?: number
  maximum?: number
  minItems?: number
  maxItems?: number
}

/** A JSON number written as is: JSON.stringify cannot write 1e309 (which parses to Infinity) or -0. */
export class RawNumber {
  constructor(readonly text: string) {}
  toString(): string {
    return this.text
  }
}

/** JSON text of a value that may hold RawNumbers. */
export function jsonText(value: unknown): string {
  if (value instanceof RawNumber) return value.text
  if (Array.isArray(value)) return `[${value.map(jsonText).join(',')}]`
  if (value !== null && typeof value === 'object') {
    return `{${Object.entries(value)
      .map(([key, item]) => `${JSON.stringify(key)}:${jsonText(item)}`)
      .join(',')}}`
  }
  return JSON.stringify(value) ?? 'null'
}

/** How a value is written in a query string or a path: text as is, anything else as its JSON. */
export const plainText = (value: unknown): string => (typeof value === 'string' ? value : jsonText(value))

const LONE_SURROGATE = /[\ud800-\udfff]/

/**
 * encodeURIComponent, except that a lone surrogate (which it refuses) is written as the
 * three bytes a careless encoder would produce: the server must cope with invalid UTF-8 too.
 */
export function encodeComponent(text: string): string {
  let out = ''
  for (const char of text) {
    const unit = char.charCodeAt(0)
    if (char.length === 1 && LONE_SURROGATE.test(char)) {
      out += [0xe0 | (unit >> 12), 0x80 | ((unit >> 6) & 0x3f), 0x80 | (unit & 0x3f)].map((byte) => `%${byte.toString(16).toUpperCase()}`).join('')
    } else {
      out += encodeURIComponent(char)
    }
  }
  return out
}

/** What every field, parameter and path segment is tried with, one at a time, the rest of the request kept valid. */
export const BAD_VALUES: readonly unknown[] = [
  'a\u0000b',
  'ctrl \u0001\u001b\u007f\u0085 end',
  'abc\u202edcba \u2066isolate',
  'lone \ud800 surrogate',
  'x'.repeat(10_001),
  '',
  ' ',
  new RawNumber('1e309'),
  new RawNumber('-1e309'),
  'Infinity',
  new RawNumber('-1'),
  new RawNumber('9007199254740993'),
  new RawNumber('0.5'),
  null,
  true,
  {},
  [],
]

/** Characters that have broken text handling somewhere: controls, bidi overrides, surrogates, BOM, separators. */
const AWKWARD_CHARACTERS = [
  '\u0000',
  '\u0000',
  '\u0001',
  '\u0008',
  '\u001b',
  '\u007f',
  '\u0085',
  '\u009f',
  '\u202e',
  '\u2066',
  '\u200f',
  '\ud800',
  '\udfff',
  '\ufeff',
  '\uffff',
  '\n',
  '\r\n',
  '\t',
  '\u2028',
  '%00',
  '😀',
  'ß',
  'ﷺ',
]

/** Text mixing ordinary and awkward characters; shrinks to the one character that matters. */
const awkwardText = fc
  .array(fc.oneof(fc.constantFrom(...AWKWARD_CHARACTERS), fc.string({ maxLength: 4 })), { minLength: 1, maxLength: 8 })
  .map((parts) => parts.join(''))

const edgeNumber = fc.oneof(
  fc
    .constantFrom('1e309', '-1e309', '-0', '1e21', '1e-400', '0.5', '-1', '2147483648', '9007199254740993', '9223372036854775808', '-9223372036854775809')
    .map((text) => new RawNumber(text)),
  fc.double().map((n) => (Number.isFinite(n) ? n : new RawNumber(n > 0 ? '1e309' : n < 0 ? '-1e309' : '0'))),
  fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }),
)

/** Strings a query parser or a lenient number coercion might take for numbers. */
const numberLikeText = fc.constantFrom('Infinity', '-Infinity', 'NaN', '0x10', '0b1', '1e2', ' 5', '5 ', '+5', '1_000', '٣')

/** Any bad value at all: the random counterpart of BAD_VALUES. */
export const badValue: fc.Arbitrary<unknown> = fc.oneof(
  { arbitrary: awkwardText, weight: 4 },
  { arbitrary: edgeNumber, weight: 2 },
  { arbitrary: numberLikeText, weight: 1 },
  { arbitrary: fc.string({ unit: 'binary', maxLength: 40 }), weight: 1 },
  { arbitrary: fc.constantFrom('x'.repeat(2_001), 'é'.repeat(10_001), ''), weight: 1 },
  { arbitrary: fc.jsonValue({ maxDepth: 2 }), weight: 1 },
)

/** Where a sample id comes from for `format: uuid` fields: one of the test's real resources. */
export type IdSource = () => string

const DATE_TIME_EXAMPLE = '2099-01-31T17:00:00Z'

/** A typical valid value for a schema (ids from `idFor`), the base every bad value is swapped into. */
export function exampleFor(schema: JsonSchema, idFor: IdSource): unknown {
  if (schema.const !== undefined) return schema.const
  if (schema.enum) return schema.enum[0]
  if (schema.anyOf) return exampleFor(schema.anyOf.find((branch) => branch.type !== 'null') ?? {}, idFor)
  switch (schema.type) {
    case 'string':
      if (schema.format === 'uuid') return idFor()
      if (schema.format === 'email') return 'fuzz@example.com'
      if (schema.format === 'utc-date-time') return DATE_TIME_EXAMPLE
      if (schema.pattern) return fc.sample(fc.stringMatching(new RegExp(schema.pattern)), { numRuns: 1, seed: 1 })[0]
      return 'x'.repeat(Math.max(schema.minLength ?? 0, 1))
    case 'integer':
    case 'number':
      return Math.min(Math.max(schema.minimum ?? 1, 1), schema.maximum ?? 1)
    case 'boolean':
      return true
    case 'array':
      return Array.from({ length: Math.max(schema.minItems ?? 1, 1) }, () => exampleFor(schema.items ?? {}, idFor))
    case 'object':
      return Object.fromEntries(Object.entries(schema.properties ?? {}).map(([name, property]) => [name, exampleFor(property, idFor)]))
    default:
      return null
  }
}

function validString(schema: JsonSchema, ids: readonly string[]): fc.Arbitrary<string> {
  if (schema.format === 'uuid') return fc.oneof(fc.constantFrom(...ids), fc.uuid())
  if (schema.format === 'email') return fc.oneof(fc.constant('fuzz@example.com'), fc.emailAddress())
  if (schema.format === 'utc-date-time') {
    return fc.oneof(
      fc.constant(''),
      fc.date({ min: new Date('1970-01-01'), max: new Date('2200-01-01'), noInvalidDate: true }).map((d) => d.toISOString()),
    )
  }
  if (schema.pattern) return fc.stringMatching(new RegExp(schema.pattern))
  const minLength = schema.minLength ?? 0
  const maxLength = Math.max(minLength, Math.min(schema.maxLength ?? 40, 40))
  return fc.oneof(fc.string({ minLength, maxLength }), fc.string({ minLength, maxLength, unit: 'grapheme' }))
}

function validInteger(schema: JsonSchema): fc.Arbitrary<number> {
  const min = Math.max(schema.minimum ?? -1000, -1000)
  const max = Math.min(schema.maximum ?? 1000, 1000)
  const edges = [schema.minimum, schema.maximum].filter((n): n is number => n !== undefined)
  return fc.oneof(fc.integer({ min, max: Math.max(min, max) }), fc.constantFrom(min, ...edges))
}

/** One value from each arbitrary, in order. */
const allOf = <T>(arbitraries: fc.Arbitrary<T>[]): fc.Arbitrary<T[]> =>
  arbitraries.reduce((all, arbitrary) => fc.tuple(all, arbitrary).map(([values, value]) => [...values, value]), fc.constant<T[]>([]))

type Entry = [string, unknown]

function validObject(schema: JsonSchema, ids: readonly string[]): fc.Arbitrary<Record<string, unknown>> {
  const required = new Set(schema.required ?? [])
  const named = Object.entries(schema.properties ?? {}).map(([name, property]) =>
    fc
      .tuple(required.has(name) ? fc.constant(true) : fc.boolean(), randomValueFor(property, ids))
      .map(([present, value]): Entry[] => (present ? [[name, value]] : [])),
  )
  const patterned = Object.entries(schema.patternProperties ?? {}).map(([pattern, property]) =>
    fc.array(fc.tuple(fc.oneof(fc.stringMatching(new RegExp(pattern)), fc.string({ maxLength: 5 })), randomValueFor(property, ids)), { maxLength: 4 }),
  )
  const unknown = fc.option(fc.tuple(fc.constantFrom('unknown', '__proto__', 'constructor', ''), fc.jsonValue({ maxDepth: 1 })), { freq: 8, nil: undefined })
  return fc.tuple(allOf([...named, ...patterned]), unknown).map(([entries, extra]) => {
    const object: Record<string, unknown> = {}
    // defineProperty: a "__proto__" key is a field like any other, not the prototype.
    for (const [key, value] of [...entries.flat(), ...(extra ? [extra] : [])])
      Object.defineProperty(object, key, { value, enumerable: true, writable: true, configurable: true })
    return object
  })
}

function validValue(schema: JsonSchema, ids: readonly string[]): fc.Arbitrary<unknown> {
  if (schema.const !== undefined) return fc.constant(schema.const)
  if (schema.enum) return fc.constantFrom(...schema.enum)
  if (schema.anyOf) return fc.oneof(...schema.anyOf.map((branch) => randomValueFor(branch, ids)))
  switch (schema.type) {
    case 'string':
      return validString(schema, ids)
    case 'integer':
      return validInteger(schema)
    case 'number':
      return fc.oneof(validInteger(schema), fc.double({ noNaN: true, noDefaultInfinity: true }))
    case 'boolean':
      return fc.boolean()
    case 'null':
      return fc.constant(null)
    case 'array': {
      const minLength = schema.minItems ?? 0
      return fc.array(randomValueFor(schema.items ?? {}, ids), { minLength, maxLength: Math.max(minLength, Math.min(schema.maxItems ?? 3, 3)) })
    }
    case 'object':
      return validObject(schema, ids)
    default:
      return fc.jsonValue({ maxDepth: 2 })
  }
}

/** Mostly values the schema allows (uuids from `ids`), sometimes a bad one, at every depth. */
export function randomValueFor(schema: JsonSchema, ids: readonly string[]): fc.Arbitrary<unknown> {
  return fc.oneof({ arbitrary: validValue(schema, ids), weight: 5 }, { arbitrary: badValue, weight: 1 })
}

type Path = readonly string[]

/** The path of every value inside `value` (not the root itself). */
export function pathsIn(value: unknown, prefix: Path = []): Path[] {
  if (value === null || typeof value !== 'object' || value instanceof RawNumber) return []
  return Object.entries(value).flatMap(([key, item]) => [[...prefix, key], ...pathsIn(item, [...prefix, key])])
}

/** The paths of the objects inside `value`, the root included: where an unknown field can go. */
export const objectPathsIn = (value: unknown): Path[] =>
  [[] as Path, ...pathsIn(value)].filter((path) => {
    const found = path.reduce<unknown>((node, key) => (node as Record<string, unknown>)[key], value)
    return found !== null && typeof found === 'object' && !Array.isArray(found) && !(found instanceof RawNumber)
  })

/** Stands for "no value here" in withValueAt. */
export const REMOVE = Symbol('remove')

/** A copy of `value` with the value at `path` replaced (or removed when `replacement` is `REMOVE`). */
export function withValueAt(value: unknown, path: Path, replacement: unknown): unknown {
  const [key, ...rest] = path
  if (key === undefined) return replacement
  const copy: Record<string, unknown> | unknown[] = Array.isArray(value) ? [...(value as unknown[])] : { ...(value as Record<string, unknown>) }
  const inner = withValueAt((copy as Record<string, unknown>)[key], rest, replacement)
  if (inner === REMOVE) {
    if (Array.isArray(copy)) copy.splice(Number(key), 1)
    else delete copy[key]
  } else {
    Object.defineProperty(copy, key, { value: inner, enumerable: true, writable: true, configurable: true })
  }
  return copy
}

/** `seed` with one to three of its values replaced by bad ones, removed, or an unknown field added. */
export function mutationsOf(seed: unknown): fc.Arbitrary<unknown> {
  const paths = pathsIn(seed)
  if (paths.length === 0) return fc.constant(seed)
  const objects = objectPathsIn(seed)
  const change = fc.oneof(
    { arbitrary: fc.tuple(fc.constantFrom(...paths), badValue), weight: 4 },
    { arbitrary: fc.tuple(fc.constantFrom(...paths), fc.constant(REMOVE)), weight: 1 },
    {
      arbitrary: fc.tuple(
        fc.constantFrom(...objects).map((path) => [...path, 'unknown_field']),
        fc.jsonValue({ maxDepth: 1 }),
      ),
      weight: 1,
    },
  )
  return fc
    .array(change, { minLength: 1, maxLength: 3 })
    .map((changes) => changes.reduce((value, [path, replacement]) => withValueAt(value, path, replacement), seed))
}
