import type { CodeBoot } from './boot.ts'
import { byId } from './dom.ts'
import { t } from './i18n.ts'
import { postJson, RequestError } from './post-json.ts'

interface CodeSent {
  sent_to: string
  resend_in_seconds?: number
}

/** The e-mail code page: ask for a code, enter it, then reload into the signing page. */
export function initCode(boot: CodeBoot): void {
  const form = byId<HTMLFormElement>('code-form')
  const input = byId<HTMLInputElement>('code-input')
  const send = byId<HTMLButtonElement>('code-send')
  const resend = byId<HTMLButtonElement>('code-resend')
  const verify = byId<HTMLButtonElement>('code-verify')
  const message = byId('code-message')
  let timer: ReturnType<typeof setInterval> | undefined

  const say = (text: string, tone = '') => {
    message.textContent = text
    message.className = `message${tone ? ` is-${tone}` : ''}`
  }
  const showForm = () => {
    byId('code-start').hidden = true
    form.hidden = false
    input.focus()
  }
  // "Send a new code" stays disabled for the server's cool-down; the countdown is not a live
  // region on purpose (a screen reader would read out every second).
  const coolDown = (seconds: number) => {
    clearInterval(timer)
    let left = Math.max(0, Math.ceil(seconds))
    const tick = () => {
      resend.disabled = left > 0
      byId('code-countdown').textContent = left > 0 ? t('code.availableIn', { seconds: left }) : ''
      if (left-- <= 0) clearInterval(timer)
    }
    tick()
    timer = setInterval(tick, 1000)
  }

  async function requestCode(button: HTMLButtonElement): Promise<void> {
    button.disabled = true
    say(t('code.sending'))
    try {
      const answer = await postJson<CodeSent>(boot.urls.send, {})
      say(t('code.sent', { email: answer.sent_to }), 'success')
      showForm()
      coolDown(answer.resend_in_seconds ?? 60)
    } catch (error) {
      say((error as Error).message, 'error')
      button.disabled = false
      if (error instanceof RequestError && error.status === 429) showForm() // asked too soon: a code is already on its way
    }
  }
  send.addEventListener('click', () => void requestCode(send))
  resend.addEventListener('click', () => void requestCode(resend))

  async function submitCode(): Promise<void> {
    const code = input.value
    if (!/^\d{6}$/.test(code)) {
      say(t('code.enterSixDigits'), 'error')
      return input.focus()
    }
    verify.disabled = true
    try {
      await postJson(boot.urls.verify, { code })
      say(t('code.verified'), 'success')
      location.reload()
    } catch (error) {
      verify.disabled = false
      say((error as Error).message, 'error')
      input.select()
    }
  }
  // Digits only, so a pasted "123 456" still fits.
  input.addEventListener('input', () => (input.value = input.value.replace(/\D/g, '').slice(0, 6)))
  form.addEventListener('submit', (event) => {
    event.preventDefault()
    void submitCode()
  })
  document.body.dataset.ready = 'true'
}
