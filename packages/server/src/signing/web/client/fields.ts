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
}

/** Signature and initials: a button showing the "Sign"/"Initial" hint until a mark replaces it. */
export interface MarkField extends FieldBase {
  type: 'signature' | 'initials'
  control: HTMLButtonElement
  hint: Element | null
}

export interface InputField extends FieldBase {
  type: 'text' | 'checkbox' | 'date'
  control: HTMLInputElement
}

export type Field = MarkField | InputField
export type MarkType = MarkField['type']

export const isMark = (field: Field): field is MarkField => field.type === 'signature' || field.type === 'initials'

/** Dates fill themselves in; marks are filled once `marks` (field id → PNG) holds one. */
export function isFilled(field: Field, marks: ReadonlyMap<string, string>): boolean {
  switch (field.type) {
    case 'date':
      return true
    case 'text':
      return field.control.value.trim() !== ''
    case 'checkbox':
      return field.control.checked
    case 'signature':
    case 'initials':
      return marks.has(field.id)
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
    const base = { el, id: el.dataset.fieldId ?? '', required: el.classList.contains('is-required'), name: control.getAttribute('aria-label') ?? '' }
    const type = el.dataset.type
    switch (type) {
      case 'signature':
      case 'initials':
        return { ...base, type, control: control as HTMLButtonElement, hint: control.firstElementChild }
      case 'text':
      case 'checkbox':
      case 'date':
        return { ...base, type, control: control as HTMLInputElement }
      default:
        throw new Error(`Field ${base.id} has an unknown type ${type}`)
    }
  })
}
