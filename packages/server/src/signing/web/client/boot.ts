/**
 * What pages.ts hands the script in `<script type="application/json" id="signet-boot">`:
 * the pages run under a strict CSP (no inline script), so data travels as JSON.
 */

export interface SigningBoot {
  view: 'sign'
  urls: { document: string; view: string; finish: string; decline: string }
  assets: { pdfjs: string; pdfWorker: string; font: string }
  signer: { name: string; initials: string }
}

export interface CodeBoot {
  view: 'code'
  urls: { send: string; verify: string }
}

/** The status page has no script; an empty or missing boot element wires nothing but dialogs. */
export type Boot = SigningBoot | CodeBoot | { view?: undefined }

export function readBoot(): Boot {
  return JSON.parse(document.getElementById('signet-boot')?.textContent || '{}') as Boot
}
