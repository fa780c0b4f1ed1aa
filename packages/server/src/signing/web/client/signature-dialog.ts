import { announce, byId } from './dom.ts'
import type { MarkField } from './fields.ts'
import { croppedPng, typedPng } from './mark-image.ts'
import { signaturePad } from './signature-pad.ts'
import { t } from './i18n.ts'

/**
 * The signature and initials dialog (#signature-dialog): a "Draw" tab with the pad and a
 * "Type" tab that writes the typed name in a script face. Apply hands the mark (a PNG data
 * URL) to `onApply`; Remove, shown when the field has one, calls `onRemove`.
 */
export interface SignatureDialogOptions {
  signer: { name: string; initials: string }
  fontUrl: string
  hasMark: (field: MarkField) => boolean
  onApply: (field: MarkField, png: string) => void
  onRemove: (field: MarkField) => void
}

const SCRIPT_FONT = '120px "Signet Script", cursive'

export function signatureDialog({ signer, fontUrl, hasMark, onApply, onRemove }: SignatureDialogOptions): { open: (field: MarkField) => void } {
  const dialog = byId<HTMLDialogElement>('signature-dialog')
  const typed = byId<HTMLInputElement>('signature-text')
  const dialogError = byId('signature-error')
  const tabs = [byId('tab-draw'), byId('tab-type')]
  const pad = signaturePad(byId<HTMLCanvasElement>('signature-pad'), () => (dialogError.textContent = ''))
  const scriptFont = new FontFace('Signet Script', `url(${fontUrl})`)
  document.fonts.add(scriptFont)
  scriptFont.load().catch(() => {}) // the "cursive" fallback is fine when it cannot load
  let current: MarkField | null = null // the field being signed
  let mode: 'draw' | 'type' = 'draw'

  function open(field: MarkField): void {
    current = field
    const kind = { kind: field.type }
    byId('signature-title').textContent = t('signature.title', kind)
    byId('signature-text-label').textContent = t('signature.typeLabel', kind)
    byId('signature-legal').textContent = t('signature.legal', kind)
    typed.value = field.type === 'initials' ? signer.initials : signer.name
    byId('signature-remove').hidden = !hasMark(field)
    pad.clear()
    dialog.showModal()
    selectTab(mode === 'draw' ? 0 : 1, true)
  }
  dialog.addEventListener('close', () => current?.control.focus())

  function selectTab(index: number, focus: boolean): void {
    tabs.forEach((tab, i) => {
      tab.setAttribute('aria-selected', String(i === index))
      tab.tabIndex = i === index ? 0 : -1
      byId(tab.getAttribute('aria-controls') ?? '').hidden = i !== index
    })
    mode = index === 0 ? 'draw' : 'type'
    dialogError.textContent = ''
    if (focus) tabs[index]?.focus()
  }
  tabs.forEach((tab, i) => {
    // A mouse or touch click on "Type" goes straight to the input; keyboard users stay on the tab.
    tab.addEventListener('click', (event) => {
      selectTab(i, true)
      if (event.detail > 0 && mode === 'type') typed.focus()
    })
    tab.addEventListener('keydown', (event) => {
      const step = ({ ArrowRight: 1, ArrowLeft: -1, Home: -i, End: tabs.length - 1 - i } as Record<string, number>)[event.key]
      if (step === undefined) return
      event.preventDefault()
      selectTab((i + step + tabs.length) % tabs.length, true)
    })
  })

  byId('signature-clear').addEventListener('click', () => {
    pad.clear()
    announce(t('signature.cleared'))
  })

  const apply = byId('signature-apply')
  async function applyMark(): Promise<void> {
    if (!current) return
    const field = current
    let png: string
    if (mode === 'draw') {
      const ink = pad.ink()
      if (!ink) return void (dialogError.textContent = t('signature.drawFirst', { kind: field.type }))
      png = croppedPng(pad.canvas, ink)
    } else {
      const text = typed.value.trim()
      if (!text) {
        dialogError.textContent = t('signature.typeFirst', { kind: field.type })
        return typed.focus()
      }
      await scriptFont.load().catch(() => {})
      png = typedPng(text, SCRIPT_FONT)
    }
    dialog.close()
    onApply(field, png)
  }
  apply.addEventListener('click', () => void applyMark())

  typed.addEventListener('keydown', (event) => {
    if (event.key !== 'Enter') return
    event.preventDefault() // else the Enter's keypress would also "click" the field focused after closing
    apply.click()
  })

  byId('signature-remove').addEventListener('click', () => {
    if (!current) return
    dialog.close()
    onRemove(current)
  })

  return { open }
}
