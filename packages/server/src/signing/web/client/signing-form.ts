import { announce, byId } from './dom.ts'
import { isFilled, isMark, problemOf, valueOf, type Field, type MarkField, type MarkType } from './fields.ts'
import { t } from './i18n.ts'

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

  /** What Finish sends: marks, every entry made (non-empty texts, numbers, choices) and every checkbox; nothing for a locked field. */
  values(): Record<string, string | number | boolean> {
    const values: Record<string, string | number | boolean> = {}
    for (const f of this.fields) {
      const value = isMark(f) ? this.marks.get(f.id) : valueOf(f)
      if (value !== undefined) values[f.id] = value
    }
    return values
  }

  update(): void {
    const done = this.required.filter((f) => this.isFilled(f)).length
    const total = this.required.length
    let problems = 0
    for (const f of this.fields) {
      f.el.classList.toggle('is-filled', this.isFilled(f))
      // An entry the browser finds wrong (an address, a number out of bounds) keeps Finish off and says why.
      const problem = problemOf(f)
      if (problem) problems++
      f.el.classList.toggle('is-invalid', problem !== null)
      if (problem) f.control.setAttribute('aria-invalid', 'true')
      else f.control.removeAttribute('aria-invalid')
      f.el.title = problem ?? ''
      // Once a mark replaces the visible "Sign"/"Initial", the name says the field is done.
      // data-label: the name without the action word (pages.ts), in any language.
      if (isMark(f)) f.control.setAttribute('aria-label', this.marks.has(f.id) ? t('signature.filled', { label: f.control.dataset.label ?? f.name }) : f.name)
    }
    byId('progress-text').textContent = t('sign.progress', { done, total })
    byId('progress-bar').style.width = `${total ? (done / total) * 100 : 100}%`
    this.finish.disabled = this.busy || done < total || problems > 0
    const complete = done === total
    if (complete && !this.wasComplete && total) announce(t('client.allDone'))
    this.wasComplete = complete
  }
}
