import { Type } from 'typebox'
import { FIELD_TYPES, type TemplateField } from '../db/schema.ts'
import { invalid, validationFailed } from '../errors.ts'
import { compileStrict, validationFailure } from '../lib/validation.ts'
import { displayName } from '../lib/visible-text.ts'
import type { PageSize } from '../pdf-work/inspect.ts'
import { unprintableCharacters } from '../signing/text/font-catalog.ts'

export const MAX_ROLE = 19
export const MAX_OPTIONS = 50
export const MAX_OPTION_LENGTH = 100
/** What a field's `name` may be: an identifier a program writes, not a sentence. */
export const FIELD_NAME_PATTERN = '^[A-Za-z_][A-Za-z0-9_.-]{0,63}$'

/** One field in a fields file: page 1-based, PDF points measured from the page's top-left corner. */
export const FieldInput = Type.Object(
  {
    role: Type.Integer({ minimum: 0, maximum: MAX_ROLE }),
    type: Type.Union(FIELD_TYPES.map((t) => Type.Literal(t))),
    page: Type.Integer({ minimum: 1 }),
    x: Type.Number({ minimum: 0 }),
    y: Type.Number({ minimum: 0 }),
    width: Type.Number({ exclusiveMinimum: 0 }),
    height: Type.Number({ exclusiveMinimum: 0 }),
    required: Type.Optional(Type.Boolean({ description: 'default true' })),
    label: Type.Optional(displayName(Type.String({ minLength: 1, maxLength: 200 }))),
    name: Type.Optional(
      Type.String({
        pattern: FIELD_NAME_PATTERN,
        description: 'extension: an identifier for this field, unique in the template, that a send\'s `fields` prefill can name it by (e.g. "rent")',
      }),
    ),
    options: Type.Optional(
      Type.Array(displayName(Type.String({ minLength: 1, maxLength: MAX_OPTION_LENGTH })), {
        minItems: 1,
        maxItems: MAX_OPTIONS,
        description: 'extension: the choices of a radio or dropdown field, in order (required for those types, refused on others)',
      }),
    ),
    min: Type.Optional(Type.Number({ description: 'extension: the smallest value a number field takes (inclusive)' })),
    max: Type.Optional(Type.Number({ description: 'extension: the largest value a number field takes (inclusive)' })),
  },
  { additionalProperties: false },
)
export const FieldsInput = Type.Array(FieldInput, { minItems: 1, maxItems: 500 })

const validateFields = compileStrict(FieldsInput)

const DEFAULT_SIGNATURE = { width: 180, height: 40, margin: 72 }

/** Validates a fields list against the PDF's pages; without one, places a signature for role 0 at the foot of the last page. */
export function resolveFields(input: unknown, pages: PageSize[]): TemplateField[] {
  if (input === undefined) {
    const last = pages[pages.length - 1]
    if (!last) throw invalid('The PDF has no pages.')
    return [
      {
        role: 0,
        type: 'signature',
        page: pages.length,
        x: DEFAULT_SIGNATURE.margin,
        y: Math.max(0, last.height - DEFAULT_SIGNATURE.margin - DEFAULT_SIGNATURE.height),
        width: Math.min(DEFAULT_SIGNATURE.width, last.width),
        height: Math.min(DEFAULT_SIGNATURE.height, last.height),
        required: true,
      },
    ]
  }
  if (!validateFields(input)) {
    // The pointer is the value's place under `fields` (the body's member on PUT, the form part on create).
    const failure = validationFailure(validateFields.errors, 'fields')
    throw validationFailed(`Invalid fields: ${failure.message}`, `/fields${failure.field ?? ''}`)
  }
  return input
    .map((field, index) => {
      const page = pages[field.page - 1]
      const where = `fields[${index}]`
      if (!page) {
        throw invalid(`${where}: page ${field.page} does not exist (the PDF has ${pages.length} page${pages.length === 1 ? '' : 's'}).`, {
          field: `/fields/${index}/page`,
        })
      }
      if (field.x + field.width > page.width || field.y + field.height > page.height) {
        throw invalid(`${where}: the field lies off page ${field.page} (${page.width}×${page.height} points).`, { field: `/fields/${index}` })
      }
      checkTypeProperties(field, index)
      return { ...field, ...(field.options ? { options: field.options.map((option) => option.trim()) } : {}), required: field.required ?? true }
    })
    .map((field, index, all) => {
      const first = field.name === undefined ? index : all.findIndex((other) => other.name === field.name)
      if (first !== index)
        throw invalid(`fields[${index}]: the name "${field.name}" is already fields[${first}]'s; names are unique in a template.`, {
          field: `/fields/${index}/name`,
        })
      return field
    })
}

/** The properties only some types have: options (radio, dropdown) and bounds (number), each checked where it belongs. */
function checkTypeProperties(field: Pick<TemplateField, 'type' | 'options' | 'min' | 'max'>, index: number): void {
  const where = `fields[${index}]`
  const hasOptions = field.type === 'radio' || field.type === 'dropdown'
  if (hasOptions && field.options === undefined) {
    throw invalid(`${where}: a ${field.type} field needs its options (a list of the choices the signer picks from).`, { field: `/fields/${index}/options` })
  }
  if (!hasOptions && field.options !== undefined) {
    throw invalid(`${where}: only radio and dropdown fields have options; this is a ${field.type} field.`, { field: `/fields/${index}/options` })
  }
  const seen = new Set<string>()
  field.options?.forEach((raw, n) => {
    const option = raw.trim()
    const pointer = { field: `/fields/${index}/options/${n}` }
    if (option === '') throw invalid(`${where}: option ${n + 1} is blank.`, pointer)
    if (seen.has(option)) throw invalid(`${where}: the option "${option}" is listed twice.`, pointer)
    seen.add(option)
    // The signed PDF prints the option (a radio group prints all of them): each must be printable.
    const missing = unprintableCharacters(option)
    if (missing.length > 0) throw invalid(`${where}: the option "${option}" contains ${missing.join(' ')}, which the signed PDF cannot show.`, pointer)
  })
  for (const bound of ['min', 'max'] as const) {
    if (field[bound] !== undefined && field.type !== 'number') {
      throw invalid(`${where}: only number fields have ${bound}; this is a ${field.type} field.`, { field: `/fields/${index}/${bound}` })
    }
  }
  if (field.min !== undefined && field.max !== undefined && field.min > field.max) {
    throw invalid(`${where}: min (${field.min}) is greater than max (${field.max}).`, { field: `/fields/${index}/min` })
  }
}

export const rolesOf = (fields: TemplateField[]): number[] => [...new Set(fields.map((f) => f.role))].sort((a, b) => a - b)
