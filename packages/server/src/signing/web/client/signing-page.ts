import { showAlert, wireAlert } from './alert.ts'
import type { SigningBoot } from './boot.ts'
import { announce, byId } from './dom.ts'
import { isMark, readFields, sizePages, type MarkField } from './fields.ts'
import { renderDocument } from './pdf-view.ts'
import { postJson, RequestError } from './post-json.ts'
import { signatureDialog } from './signature-dialog.ts'
import { SigningForm } from './signing-form.ts'
import { wireSubmit } from './submit.ts'
import { tellParent } from './parent-frame.ts'
import { t } from './i18n.ts'

const reducedMotion = window.matchMedia('(prefers-reduced-motion: reduce)').matches

/** The signing page: the document with the signer's fields on it, the toolbar and the dialogs. */
export function initSigning(boot: SigningBoot): void {
  sizePages()
  const fields = readFields()
  const form = new SigningForm(fields, byId<HTMLButtonElement>('finish'))
  let lastField = -1 // index of the field that last had focus, where "Next field" continues from

  function applyMark(field: MarkField, png: string, reused: boolean): void {
    form.setMark(field, png)
    announce(t(reused ? 'signature.addedAgain' : 'signature.added', { kind: field.type, progress: byId('progress-text').textContent ?? '' }))
  }
  const dialog = signatureDialog({
    signer: boot.signer,
    fontUrl: boot.assets.font,
    hasMark: (field) => form.marks.has(field.id),
    onApply(field, png) {
      form.adopted[field.type] = png
      applyMark(field, png, false)
    },
    onRemove(field) {
      form.removeMark(field)
      announce(t('signature.removed', { kind: field.type }))
    },
  })

  fields.forEach((f, index) => {
    f.el.addEventListener('focusin', () => (lastField = index))
    if (isMark(f)) {
      f.control.addEventListener('click', () => {
        const adopted = form.adopted[f.type]
        if (adopted && !form.marks.has(f.id)) applyMark(f, adopted, true)
        else dialog.open(f)
      })
    } else if (f.type !== 'date') {
      // (A date field shows the server's UTC day in the page's language already, pages.ts; finish sends that language, so the signed PDF prints the same words.)
      // On the field, not the control: a radio group's every option reports there.
      for (const event of ['input', 'change']) f.el.addEventListener(event, () => form.update())
    }
  })
  form.update()

  byId('next-field').addEventListener('click', () => {
    const todo = fields.filter((f) => f.required && !form.isFilled(f))
    const next = todo.find((f) => fields.indexOf(f) > lastField) ?? todo[0]
    if (!next) {
      byId('finish').focus()
      announce(t('client.allDone'))
      return
    }
    next.el.scrollIntoView({ block: 'center', behavior: reducedMotion ? 'auto' : 'smooth' })
    next.control.focus({ preventScroll: true })
    next.el.classList.remove('is-pulsing')
    void next.el.offsetWidth // restart the CSS animation
    next.el.classList.add('is-pulsing')
  })

  renderDocument({
    pdfjsUrl: boot.assets.pdfjs,
    workerUrl: boot.assets.pdfWorker,
    documentUrl: boot.urls.document,
    onFirstPage: () => markViewed(boot.urls.view, form),
    onPageError: (page, error) => showAlert(form, t('client.pageError', { page: page ?? '?', error: messageOf(error) })),
  }).catch((error: unknown) => showAlert(form, t('client.documentError', { error: messageOf(error) }), true))

  wireSubmit(form, boot.urls)
  wireAlert()
}

/** Tells the server the signer saw the document (opening the link is not enough: link scanners fetch pages too). */
function markViewed(url: string, form: SigningForm): void {
  document.body.dataset.ready = 'true'
  tellParent('signet:loaded')
  postJson(url, {}).catch((error: unknown) => {
    if (error instanceof RequestError && (error.status === 409 || error.status === 410)) showAlert(form, error.message, true)
  })
}

/** `error?.message ?? error`, as the alert texts have always shown it. */
function messageOf(error: unknown): string {
  return String((error as Error | undefined)?.message ?? error)
}
