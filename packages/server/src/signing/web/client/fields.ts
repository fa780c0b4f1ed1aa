import { t } from './i18n.ts'

/**
 * The signer's fields as pages.ts renders them: `.field[data-field-id][data-type][data-box]`
 * holding one `.field-control`. Boxes are percentages of the page, applied through
 * element.style because the CSP forbids inline style attributes.
 */

interface FieldBase {
  el: HTMLElement
  id: string
  required: boolean
  /** The control's accessible name as rendered, e.g. "Sign: Signature (required), page 1". */
  name: string
  /** Prefilled by the sender as read-only: shown, never sent (the server keeps the sender's value). */
  locked: boolean
}

/** Signature and initials: a button showing the "Sign"/"Initial" hint until a mark replaces it. */
export interface MarkField extends FieldBase {
  type: 'signature' | 'initials'
  control: HTMLButtonElement
  hint: Element | null
}

export interface InputField extends FieldBase {
  type: 'text' | 'checkbox' | 'date' | 'number' | 'email' | 'name'
  control: HTMLInputElement
}

/** A dropdown: a <select> whose first, empty option means "nothing chosen". */
export interface SelectField extends FieldBase {
  type: 'dropdown'
  control: HTMLSelectElement
}

/** A radio group: `control` is its first option (where focus goes), `options` all of them. */
export interface RadioField extends FieldBase {
  type: 'radio'
  control: HTMLInputElement
  options: HTMLInputElement[]
}

export type Field = MarkField | InputField | SelectField | RadioField
export type MarkType = MarkField['type']

export const isMark = (field: Field): field is MarkField => field.type === 'signature' || field.type === 'initials'

/** Dates fill themselves in; marks are filled once `marks` (field id → PNG) holds one. */
export function isFilled(field: Field, marks: ReadonlyMap<string, string>): boolean {
  switch (field.type) {
    case 'date':
      return true
    case 'text':
    case 'name':
      return field.control.value.trim() !== ''
    case 'email':
    case 'number':
      return field.control.value.trim() !== '' && field.control.validity.valid
    case 'checkbox':
      return field.control.checked
    case 'dropdown':
      return field.control.value !== ''
    case 'radio':
      return field.options.some((option) => option.checked)
    case 'signature':
    case 'initials':
      return marks.has(field.id)
  }
}

/**
 * What is wrong with an entry the browser can check (an e-mail address, a number within its
 * bounds), in the page's language (not the browser's validationMessage, which speaks the
 * browser's); null when nothing is. The server checks again.
 */
export function problemOf(field: Field): string | null {
  if (field.type !== 'email' && field.type !== 'number') return null
  const { control } = field
  // A number input whose text is not a number reports badInput with an empty value.
  if (control.value.trim() === '' && !control.validity.badInput) return null
  const validity = control.validity
  if (validity.valid) return null
  if (validity.badInput) return t(field.type === 'number' ? 'client.notNumber' : 'client.invalidEmail')
  if (validity.typeMismatch) return t('client.invalidEmail')
  if (validity.rangeUnderflow) return t('client.numberBelow', { min: Number(control.min) })
  if (validity.rangeOverflow) return t('client.numberAbove', { max: Number(control.max) })
  if (validity.valueMissing) return t('client.required')
  return t('client.invalidEntry')
}

/** The entry Finish sends for a field, or undefined for none (an empty one, a mark, a date, a locked one). */
export function valueOf(field: Field): string | number | boolean | undefined {
  if (field.locked) return undefined
  switch (field.type) {
    case 'text':
    case 'name':
    case 'email':
      return field.control.value.trim() || undefined
    case 'number':
      return field.control.value.trim() === '' ? undefined : Number(field.control.value)
    case 'checkbox':
      return field.control.checked
    case 'dropdown':
      return field.control.value || undefined
    case 'radio':
      return field.options.find((option) => option.checked)?.value
    case 'date':
    case 'signature':
    case 'initials':
      return undefined
  }
}

/** Gives each page its PDF aspect ratio, so fields sit right before the page is drawn. */
export function sizePages(): void {
  for (const page of document.querySelectorAll<HTMLElement>('.page')) {
    const [width, height] = (page.dataset.size ?? '').split(',')
    page.style.aspectRatio = `${width} / ${height}`
  }
}

/** Reads the fields in document (reading) order and positions each on its page. */
export function readFields(): Field[] {
  return [...document.querySelectorAll<HTMLElement>('.field')].map((el) => {
    const control = el.querySelector<HTMLElement>('.field-control')
    if (!control) throw new Error(`Field ${el.dataset.fieldId} has no control`)
    const [left, top, width, height] = (el.dataset.box ?? '').split(',')
    Object.assign(el.style, { left: `${left}%`, top: `${top}%`, width: `${width}%`, height: `${height}%` })
    const base = {
      el,
      id: el.dataset.fieldId ?? '',
      required: el.classList.contains('is-required'),
      name: control.getAttribute('aria-label') ?? '',
      locked: control.hasAttribute('data-locked'),
    }
    const type = el.dataset.type
    switch (type) {
      case 'signature':
      case 'initials':
        return { ...base, type, control: control as HTMLButtonElement, hint: control.firstElementChild }
      case 'text':
      case 'checkbox':
      case 'date':
      case 'number':
      case 'email':
      case 'name':
        return { ...base, type, control: control as HTMLInputElement }
      case 'dropdown':
        return { ...base, type, control: control as HTMLSelectElement }
      case 'radio': {
        const options = [...control.querySelectorAll<HTMLInputElement>('input[type=radio]')]
        const first = options[0]
        if (!first) throw new Error(`Radio field ${base.id} has no options`)
        return { ...base, type, control: first, options }
      }
      default:
        throw new Error(`Field ${base.id} has an unknown type ${type}`)
    }
  })
}
