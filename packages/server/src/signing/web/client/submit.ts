import { showAlert } from './alert.ts'
import type { SigningBoot } from './boot.ts'
import { announce, byId } from './dom.ts'
import { postJson, RequestError } from './post-json.ts'
import type { SigningForm } from './signing-form.ts'
import { t } from './i18n.ts'
import { tellParent, type ParentMessage } from './parent-frame.ts'

/** Finish (sign with the form's values) and Decline (with an optional reason); both reload into the status page. */
export function wireSubmit(form: SigningForm, urls: SigningBoot['urls']): void {
  const finish = byId<HTMLButtonElement>('finish')
  const declineOpen = byId<HTMLButtonElement>('decline-open')

  function setBusy(on: boolean, button: HTMLButtonElement): void {
    form.busy = on
    button.classList.toggle('is-busy', on)
    button.disabled = on
    declineOpen.disabled = on
    form.update()
  }

  /** Posts, then reloads: the server answers the reload with the status page. Returns an error the caller shows. */
  async function send(button: HTMLButtonElement, url: string, body: unknown, done: ParentMessage): Promise<Error | null> {
    setBusy(true, button)
    try {
      const result = await postJson<Record<string, unknown>>(url, body)
      // An embedding page learns the outcome before the reload (parent-frame.ts).
      tellParent(done, result)
      location.reload()
      return null
    } catch (error) {
      setBusy(false, button)
      // The document changed meanwhile (voided, expired, completed…): nothing left to do but reload.
      if (error instanceof RequestError && (error.status === 409 || error.status === 410)) {
        document.querySelectorAll('dialog[open]').forEach((d) => (d as HTMLDialogElement).close())
        showAlert(form, error.message, true)
        return null
      }
      return error as Error
    }
  }

  finish.addEventListener('click', () => {
    const values = form.values()
    announce(t('client.signing'))
    // The page's language makes date fields print as the page shows them (the server formats its own day in it).
    void send(finish, urls.finish, { values, locale: document.documentElement.lang }, 'signet:signed').then((error) => {
      if (error) showAlert(form, error.message)
    })
  })

  const declineDialog = byId<HTMLDialogElement>('decline-dialog')
  const reason = byId<HTMLTextAreaElement>('decline-reason')
  declineOpen.addEventListener('click', () => {
    byId('decline-error').textContent = ''
    declineDialog.showModal()
    reason.focus()
  })
  byId('decline-form').addEventListener('submit', (event) => {
    event.preventDefault()
    const text = reason.value.trim()
    void send(byId<HTMLButtonElement>('decline-confirm'), urls.decline, text ? { reason: text } : {}, 'signet:declined').then((error) => {
      if (error) byId('decline-error').textContent = error.message
    })
  })
}
