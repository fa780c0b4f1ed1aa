import type { MessageKey } from './i18n.ts'

/**
 * What pages.ts hands the script in `<script type="application/json" id="signet-boot">`:
 * the pages run under a strict CSP (no inline script), so data travels as JSON.
 */

/** Every page's texts for the script (raw ICU in the signer's language) and that language: client/i18n.ts. */
interface Texts {
  language: string
  messages: Partial<Record<MessageKey, string>>
}

export interface SigningBoot extends Texts {
  view: 'sign'
  urls: { document: string; view: string; finish: string; decline: string }
  assets: { pdfjs: string; pdfWorker: string; font: string }
  signer: { name: string; initials: string }
  /** On an embedded page: the integrator's origin, where parent-frame.ts posts the page's events. */
  parentOrigin?: string
}

export interface CodeBoot extends Texts {
  view: 'code'
  urls: { send: string; verify: string }
}

/** The status page has no script; an empty or missing boot element wires nothing but dialogs. */
export type Boot = SigningBoot | CodeBoot | { view?: undefined }

export function readBoot(): Boot {
  return JSON.parse(document.getElementById('signet-boot')?.textContent || '{}') as Boot
}
