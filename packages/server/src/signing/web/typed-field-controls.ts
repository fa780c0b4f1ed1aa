import type { PrefilledValue, TemplateField } from '../../db/schema.ts'
import { html, type SafeHtml } from '../../lib/html.ts'
import { MAX_TEXT_LENGTH, type TypedFieldType } from '../field-values.ts'
import type { Translator } from '../i18n/catalog.ts'

/**
 * The signer page's controls for the fields a signer types or picks in — text, name, e-mail,
 * number, checkbox, dropdown and radio group — with what the sender prefilled in them (locked
 * when read-only). The markup client/fields.ts reads: one `.field-control` per field (a radio
 * group's holds its options), `data-locked` on a read-only one.
 */

/** A field as the page renders it: no role, its template index as id, and the sender's prefill. */
export type TypedField = Omit<TemplateField, 'role' | 'type'> & { id: number; type: TypedFieldType; prefill?: PrefilledValue | undefined }

/**
 * One control, its words in the page's language (`t`): a dropdown's empty first choice
 * (field.choose), and what a read-only field's accessible name says (field.lockedLabel).
 * `label` is the accessible name pages.ts composed ("Rent (required), page 1"),
 * `placeholder` the field's visible name.
 */
export function typedFieldControl(t: Translator, field: TypedField, label: string, placeholder: string): SafeHtml {
  const locked = field.prefill?.readOnly === true
  const name = locked ? t.text('field.lockedLabel', { label }) : label
  const value = field.prefill?.value
  const text = typeof value === 'string' || typeof value === 'number' ? String(value) : ''
  const lock = locked ? html` readonly aria-readonly="true" data-locked` : ''
  switch (field.type) {
    case 'text':
      return html`<input type="text" class="field-control" maxlength="${MAX_TEXT_LENGTH}" autocomplete="off" aria-label="${name}" placeholder="${placeholder}" dir="auto" value="${text}"${lock}>`
    case 'name':
      return html`<input type="text" class="field-control" maxlength="${MAX_TEXT_LENGTH}" autocomplete="name" aria-label="${name}" placeholder="${placeholder}" dir="auto" value="${text}"${lock}>`
    case 'email':
      return html`<input type="email" class="field-control" maxlength="254" autocomplete="email" spellcheck="false" aria-label="${name}" placeholder="${placeholder}" dir="ltr" value="${text}"${lock}>`
    case 'number':
      return html`<input type="number" class="field-control" step="any" inputmode="decimal"${bound('min', field.min)}${bound('max', field.max)} aria-label="${name}" placeholder="${placeholder}" value="${text}"${lock}>`
    case 'checkbox':
      // A checkbox has no read-only state: a locked one is disabled (and still named as locked).
      return html`<input type="checkbox" class="field-control" aria-label="${name}"${value === true ? html` checked` : ''}${locked ? html` disabled data-locked` : ''}>`
    case 'dropdown': {
      const options = (field.options ?? []).map((option) => html`<option value="${option}"${option === value ? html` selected` : ''}>${option}</option>`)
      return html`<select class="field-control" aria-label="${name}"${locked ? html` disabled data-locked` : ''}><option value="">${t.text('field.choose')}</option>${options}</select>`
    }
    case 'radio': {
      const options = (field.options ?? []).map(
        (option) =>
          html`<label class="radio-option"><input type="radio" name="field-${field.id}" value="${option}"${option === value ? html` checked` : ''}${locked ? html` disabled` : ''}><span dir="auto">${option}</span></label>`,
      )
      return html`<div class="field-control radio-group" role="radiogroup" aria-label="${name}"${locked ? html` aria-readonly="true" data-locked` : ''}>${options}</div>`
    }
  }
}

const bound = (attribute: 'min' | 'max', value: number | undefined): SafeHtml => (value === undefined ? html`` : html` ${attribute}="${value}"`)
