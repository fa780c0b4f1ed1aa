import { byId } from './dom.ts'
import { tellParent } from './parent-frame.ts'
import type { SigningForm } from './signing-form.ts'

/**
 * The error banner (#sign-alert, role=alert). A fatal one (the document can no longer be
 * signed from this page) offers "Reload the page" and disables every action; others can be dismissed.
 */
export function showAlert(form: SigningForm, text: string, fatal = false): void {
  byId('sign-alert-text').textContent = text
  byId('sign-alert-reload').hidden = !fatal
  byId('sign-alert-dismiss').hidden = fatal
  byId('sign-alert').hidden = false
  tellParent('signet:error', { message: text, fatal })
  if (fatal) {
    form.busy = true
    for (const id of ['next-field', 'decline-open']) byId<HTMLButtonElement>(id).disabled = true
    form.update()
  }
}

export function wireAlert(): void {
  byId('sign-alert-reload').addEventListener('click', () => location.reload())
  byId('sign-alert-dismiss').addEventListener('click', () => (byId('sign-alert').hidden = true))
}
