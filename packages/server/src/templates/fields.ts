import { Type } from 'typebox'
import { FIELD_TYPES, type TemplateField } from '../db/schema.ts'
import { invalid, validationFailed } from '../errors.ts'
import { compileStrict, validationFailure } from '../lib/validation.ts'
import { displayName } from '../lib/visible-text.ts'
import type { PageSize } from '../pdf-work/inspect.ts'

export const MAX_ROLE = 19

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
  return input.map((field, index) => {
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
    return { ...field, required: field.required ?? true }
  })
}

export const rolesOf = (fields: TemplateField[]): number[] => [...new Set(fields.map((f) => f.role))].sort((a, b) => a - b)
