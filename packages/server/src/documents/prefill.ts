import { Type, type Static } from 'typebox'
import type { PrefilledValue, StoredFieldValue, TemplateField } from '../db/schema.ts'
import { invalid } from '../errors.ts'
import { describeField, isTypedFieldType, typedValue } from '../signing/field-values.ts'
import { FIELD_NAME_PATTERN } from '../templates/fields.ts'

/*
 * Prefill (issue 22, an extension): a send may set values on the template's text, number,
 * e-mail, checkbox, radio and dropdown fields. The signer sees them (locked when read_only), and
 * the value is checked exactly as the signer's own entry would be at finish (typedValue).
 */

export const MAX_PREFILLED_FIELDS = 500

export const PrefillInput = Type.Array(
  Type.Object(
    {
      name: Type.Optional(Type.String({ pattern: FIELD_NAME_PATTERN, description: "the field's `name` in the template" })),
      id: Type.Optional(Type.Integer({ minimum: 0, description: "or the field's index in the template's `fields` (0 is the first)" })),
      value: Type.Union([Type.String({ maxLength: 500 }), Type.Number(), Type.Boolean()], {
        description:
          "text for text and email fields, a number within the field's min/max, true/false for a checkbox, one of the options for radio and dropdown",
      }),
      read_only: Type.Optional(
        Type.Boolean({ description: 'the signer sees the value but cannot change it (default false: it is a suggestion they may change)' }),
      ),
    },
    { additionalProperties: false },
  ),
  {
    maxItems: MAX_PREFILLED_FIELDS,
    description:
      'extension: values set on template fields before sending, each naming its field by `name` or `id`. Signature, initials, date and name fields cannot be prefilled.',
  },
)
export type PrefillInput = Static<typeof PrefillInput>

/** The prefill as stored (documents.prefill, by field index), or null for none; any entry that does not fit its field is a 400 naming it. */
export function resolvePrefill(fields: TemplateField[], input: PrefillInput | undefined): Record<string, PrefilledValue> | null {
  if (!input || input.length === 0) return null
  const prefill: Record<string, PrefilledValue> = {}
  input.forEach((entry, index) => {
    const at = `/fields/${index}`
    const id = fieldIdOf(fields, entry, index)
    const field = fields[id]
    if (!field) throw new Error('fieldIdOf returned an unknown field')
    const what = `fields[${index}]: ${describeField(id, field)}`
    if (!isTypedFieldType(field.type) || field.type === 'name') {
      throw invalid(
        `${what} is a ${field.type} field, which the signer fills; only text, number, email, checkbox, radio and dropdown fields can be prefilled.`,
        {
          field: at,
        },
      )
    }
    if (prefill[String(id)]) throw invalid(`${what} is prefilled twice.`, { field: at })
    const stored = typedValue(field, entry.value, what, `${at}/value`)
    if (stored === null) throw invalid(`${what}: a prefilled value cannot be empty; leave the field out instead.`, { field: `${at}/value` })
    const readOnly = entry.read_only ?? false
    if (readOnly && field.required && stored.type === 'checkbox' && !stored.checked) {
      throw invalid(`${what} is a required checkbox: prefilled read-only it must be true, or the signer could never finish.`, { field: `${at}/value` })
    }
    prefill[String(id)] = { value: valueOf(stored), readOnly }
  })
  return prefill
}

/** The field an entry names: by `name` or by `id`, exactly one of them. */
function fieldIdOf(fields: TemplateField[], entry: PrefillInput[number], index: number): number {
  const at = `/fields/${index}`
  if ((entry.name === undefined) === (entry.id === undefined)) {
    throw invalid(`fields[${index}]: name the field by either \`name\` or \`id\`, not ${entry.name === undefined ? 'neither' : 'both'}.`, { field: at })
  }
  if (entry.name !== undefined) {
    const id = fields.findIndex((f) => f.name === entry.name)
    if (id < 0) throw invalid(`fields[${index}]: the template has no field named "${entry.name}".`, { field: `${at}/name` })
    return id
  }
  const id = entry.id ?? -1
  if (!fields[id]) throw invalid(`fields[${index}]: the template has no field ${id} (it has ${fields.length}, numbered from 0).`, { field: `${at}/id` })
  return id
}

/** A checked entry as the prefill keeps it: trimmed text, the number, the box's state. */
function valueOf(stored: StoredFieldValue): PrefilledValue['value'] {
  switch (stored.type) {
    case 'checkbox':
      return stored.checked
    case 'number':
      return stored.number
    case 'signature':
    case 'initials':
      throw new Error('an image is never a prefilled value')
    case 'date':
    case 'text':
    case 'email':
    case 'name':
    case 'radio':
    case 'dropdown':
      return stored.text
  }
}
