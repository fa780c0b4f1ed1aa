import { isApiError } from '../../../api/client.ts'
import { peopleTextFor } from '../../../lib/people-text.ts'
import type { TemplateField } from './editor-state.ts'

/** A pointer into the saved list: /fields/3 (the field), /fields/3/label (one of its properties) or /fields/3/options/1 (one of its options). */
const FIELD_POINTER = /^\/fields\/(\d+)(?:\/([^/]+)|\/(options)\/\d+)?$/
/** How the server's texts name the list and a field's place in it ("Invalid fields: fields[3].label must …", "fields[3]: the field lies …"). */
const LIST_PREFIX = /^Invalid fields: /
const FIELD_PLACE = /^fields\[\d+\]: /

/** A field's properties as the field panel labels them. */
const PANEL_LABELS: Record<keyof TemplateField, string> = {
  type: 'Type',
  role: 'Signer',
  required: 'Required',
  label: 'Label',
  page: 'Page',
  x: 'X',
  y: 'Y',
  width: 'Width',
  height: 'Height',
  name: 'Name',
  options: 'Options',
  min: 'Minimum',
  max: 'Maximum',
}

/** The field of the saved list a refusal is about (its place in fieldsForSave's order) and the property, when the pointer names one. */
function refusedPlace(error: unknown): { index: number; property: string | undefined } | null {
  const match = isApiError(error) ? FIELD_POINTER.exec(error.field ?? '') : null
  return match ? { index: Number(match[1]), property: match[2] ?? match[3] } : null
}

/** Which field of the saved list a refusal is about, or null when it is about no one field. */
export const refusedFieldIndex = (error: unknown): number | null => refusedPlace(error)?.index ?? null

/**
 * A refused save in the editor's words. The server names the field by its place in the list;
 * the editor selects that field instead, so the text speaks of "this field", and a validation
 * text, whose subject peopleTextFor removes, names the panel's control it is about.
 */
export function saveErrorText(error: Error): string {
  const place = refusedPlace(error)
  if (!place || !isApiError(error)) return error.message
  const text = peopleTextFor(error.code, error.field, error.message.replace(LIST_PREFIX, '').replace(FIELD_PLACE, ''))
  const { property } = place
  if (error.code === 'validation_failed' && property !== undefined && Object.hasOwn(PANEL_LABELS, property)) {
    return `${PANEL_LABELS[property as keyof TemplateField]}: ${text.charAt(0).toLowerCase()}${text.slice(1)}`
  }
  const sentence = text.replace(/^the field /, 'this field ')
  return sentence.charAt(0).toUpperCase() + sentence.slice(1)
}
