import { announce, byId } from './dom.ts'
import { isFilled, isMark, type Field, type MarkField, type MarkType } from './fields.ts'

/**
 * The signer's answers and what follows from them: the progress line, each mark's accessible
 * name, and whether Finish may be pressed.
 */
export class SigningForm {
  readonly required: Field[]
  /** Field id → PNG data URL, for signature and initials fields. */
  readonly marks = new Map<string, string>()
  /** Field type → the last mark applied, reused by a single click on the next empty field. */
  readonly adopted: Partial<Record<MarkType, string>> = {}
  /** A request is running or the document can no longer be signed. */
  busy = false
  private wasComplete = false

  constructor(
    readonly fields: Field[],
    private readonly finish: HTMLButtonElement,
  ) {
    this.required = fields.filter((f) => f.required)
  }

  isFilled(field: Field): boolean {
    return isFilled(field, this.marks)
  }

  setMark(field: MarkField, png: string): void {
    this.marks.set(field.id, png)
    field.control.replaceChildren(Object.assign(new Image(), { src: png, alt: '' }))
    this.update()
  }

  removeMark(field: MarkField): void {
    // Removing means "not this one": stop offering it for one-click reuse too.
    if (this.adopted[field.type] === this.marks.get(field.id)) delete this.adopted[field.type]
    this.marks.delete(field.id)
    field.control.replaceChildren(...(field.hint ? [field.hint] : []))
    this.update()
  }

  /** What Finish sends: marks, non-empty texts and every checkbox. */
  values(): Record<string, string | boolean> {
    const values: Record<string, string | boolean> = {}
    for (const f of this.fields) {
      if (isMark(f) && this.marks.has(f.id)) values[f.id] = this.marks.get(f.id) ?? ''
      if (f.type === 'text' && f.control.value.trim()) values[f.id] = f.control.value.trim()
      if (f.type === 'checkbox') values[f.id] = f.control.checked
    }
    return values
  }

  update(): void {
    const done = this.required.filter((f) => this.isFilled(f)).length
    const total = this.required.length
    for (const f of this.fields) {
      f.el.classList.toggle('is-filled', this.isFilled(f))
      // Once a mark replaces the visible "Sign"/"Initial", the name says the field is done.
      if (isMark(f)) f.control.setAttribute('aria-label', this.marks.has(f.id) ? `${f.name.replace(/^\w+: /, '')}, filled; select to change` : f.name)
    }
    byId('progress-text').textContent = total ? `${done} of ${total} required fields done` : 'No required fields'
    byId('progress-bar').style.width = `${total ? (done / total) * 100 : 100}%`
    this.finish.disabled = this.busy || done < total
    const complete = done === total
    if (complete && !this.wasComplete && total) announce('All required fields are done. Select Finish to sign.')
    this.wasComplete = complete
  }
}
