import type { FieldType, TemplateField } from '../../db/schema.ts'
import { signingAssetUrl } from './signing-assets.ts'
import { html, htmlPage, type SafeHtml } from '../../lib/html.ts'

/**
 * Server-rendered pages of the signing flow. Every page is a complete HTML document that
 * works under the routes' strict CSP: no inline script or style; data for the browser
 * script travels in `<script type="application/json" id="signet-boot">`, and the script
 * (client/, bundled into /sign-assets/sign.js) positions elements by setting `element.style`
 * from data attributes.
 */

/** One of the signer's fields, with its index in the template as id. */
export type SignerField = Omit<TemplateField, 'role'> & { id: number }

export interface SigningPageModel {
  token: string
  title: string
  orgName: string
  signer: { name: string | null; email: string }
  pages: { width: number; height: number }[]
  fields: SignerField[]
  today: string
  expiresAt: string | null
}

export interface CodePageModel {
  token: string
  title: string
  orgName: string
  maskedEmail: string
}

export interface StatusPageModel {
  heading: string
  message: string
  tone: 'success' | 'info' | 'warning' | 'error'
  title?: string
  downloadUrl?: string
}

const TYPE_NAMES: Record<FieldType, string> = {
  signature: 'Signature',
  initials: 'Initials',
  date: 'Date',
  text: 'Text',
  checkbox: 'Checkbox',
}

interface Shell {
  title: string
  view: 'sign' | 'code' | 'status'
  body: SafeHtml
  boot?: Record<string, unknown>
}

function shell({ title, view, body, boot }: Shell): string {
  return htmlPage({
    title,
    stylesheetUrl: signingAssetUrl('sign.css'),
    body,
    bodyClass: `view-${view}`,
    ...(boot ? { script: { url: signingAssetUrl('sign.js'), boot } } : {}),
  })
}

const signUrl = (token: string, path: string) => `/sign/${encodeURIComponent(token)}/${path}`

/** "Jean-Luc  Picard" → "JLP" (at most four letters). */
export function initialsOf(name: string | null): string {
  if (!name) return ''
  return name
    .split(/[\s\-.]+/)
    .map((word) => /\p{L}/u.exec(word)?.[0] ?? '')
    .join('')
    .toUpperCase()
    .slice(0, 4)
}

function formatExpiry(iso: string | null): string | null {
  if (!iso) return null
  const date = new Date(iso)
  if (Number.isNaN(date.getTime())) return null
  return new Intl.DateTimeFormat('en-US', { dateStyle: 'long', timeZone: 'UTC' }).format(date)
}

/** Reading order: page, then rows (10 pt bands, so fields on one line go left to right), then x. */
function byReadingOrder(a: SignerField, b: SignerField): number {
  return a.page - b.page || Math.round(a.y / 10) - Math.round(b.y / 10) || a.x - b.x || a.id - b.id
}

const percent = (value: number, of: number) => (Math.min(Math.max(value / of, 0), 1) * 100).toFixed(4)

function fieldName(field: SignerField): string {
  return field.label?.trim() || TYPE_NAMES[field.type]
}

function fieldAriaLabel(field: SignerField): string {
  const state = field.type === 'date' ? ' (filled in automatically)' : field.required ? ' (required)' : ' (optional)'
  return `${fieldName(field)}${state}, page ${field.page}`
}

const PEN_ICON = html`<svg class="icon" viewBox="0 0 24 24" width="16" height="16" aria-hidden="true" focusable="false"><path fill="currentColor" d="M3 17.25V21h3.75L17.8 9.94l-3.75-3.75L3 17.25zm17.7-10.2a1 1 0 0 0 0-1.42l-2.33-2.33a1 1 0 0 0-1.42 0l-1.83 1.83 3.75 3.75 1.83-1.83z"/></svg>`

function fieldControl(field: SignerField, today: string): SafeHtml {
  const label = fieldAriaLabel(field)
  switch (field.type) {
    case 'signature':
    case 'initials': {
      // The accessible name starts with the visible word, so speech users can say what they see (WCAG 2.5.3).
      const action = field.type === 'signature' ? 'Sign' : 'Initial'
      return html`<button type="button" class="field-control" aria-label="${action}: ${label}"><span class="field-hint">${PEN_ICON}<span>${action}</span></span></button>`
    }
    case 'text':
      return html`<input type="text" class="field-control" maxlength="500" autocomplete="off" aria-label="${label}" placeholder="${fieldName(field)}">`
    case 'checkbox':
      return html`<input type="checkbox" class="field-control" aria-label="${label}">`
    case 'date':
      return html`<input type="text" class="field-control" readonly value="${today}" aria-label="${label}">`
  }
}

function fieldElement(field: SignerField, page: { width: number; height: number }, today: string): SafeHtml {
  const box = [percent(field.x, page.width), percent(field.y, page.height), percent(field.width, page.width), percent(field.height, page.height)]
  const classes = ['field', `field--${field.type}`, field.type !== 'date' && field.required ? 'is-required' : '', field.type === 'date' ? 'is-filled' : '']
  return html`<div class="${classes.filter(Boolean).join(' ')}" data-field-id="${field.id}" data-type="${field.type}" data-box="${box.join(',')}">${fieldControl(field, today)}</div>`
}

function instruction(fields: SignerField[]): SafeHtml {
  const toFill = fields.filter((f) => f.type !== 'date')
  const required = toFill.filter((f) => f.required).length
  if (toFill.length === 0) return html`Review the document, then select <strong>Finish</strong> to sign it.`
  const what = toFill.length === 1 ? 'the highlighted field' : `the ${toFill.length} highlighted fields`
  const note = required > 0 && required < toFill.length ? ` (${required} required)` : ''
  return html`Fill in ${what}${note}, then select <strong>Finish</strong>.`
}

const DIALOG_CLOSE = html`<button type="button" class="dialog-x" data-close aria-label="Close"><svg viewBox="0 0 24 24" width="20" height="20" aria-hidden="true" focusable="false"><path fill="currentColor" d="M18.3 5.7a1 1 0 0 0-1.4 0L12 10.6 7.1 5.7a1 1 0 1 0-1.4 1.4l4.9 4.9-4.9 4.9a1 1 0 1 0 1.4 1.4l4.9-4.9 4.9 4.9a1 1 0 0 0 1.4-1.4L13.4 12l4.9-4.9a1 1 0 0 0 0-1.4z"/></svg></button>`

const SIGNATURE_DIALOG = html`<dialog id="signature-dialog" class="dialog" aria-labelledby="signature-title">
  <div class="dialog-head"><h2 id="signature-title">Add your signature</h2>${DIALOG_CLOSE}</div>
  <div class="tabs" role="tablist" aria-label="How to sign">
    <button type="button" role="tab" id="tab-draw" aria-controls="panel-draw" aria-selected="true">Draw</button>
    <button type="button" role="tab" id="tab-type" aria-controls="panel-type" aria-selected="false" tabindex="-1">Type</button>
  </div>
  <div role="tabpanel" id="panel-draw" aria-labelledby="tab-draw" class="tab-panel">
    <div class="pad-wrap">
      <canvas id="signature-pad" width="1200" height="400" role="img" aria-label="Signature drawing area" aria-describedby="pad-help"></canvas>
      <span class="pad-line" aria-hidden="true"></span>
    </div>
    <div class="pad-foot">
      <p id="pad-help" class="help">Draw with your mouse, finger or stylus. Using a keyboard? Choose <em>Type</em>.</p>
      <button type="button" id="signature-clear" class="btn btn-small btn-ghost">Clear</button>
    </div>
  </div>
  <div role="tabpanel" id="panel-type" aria-labelledby="tab-type" class="tab-panel" hidden>
    <label for="signature-text" id="signature-text-label">Type your name</label>
    <input type="text" id="signature-text" class="type-input" maxlength="60" autocomplete="off" spellcheck="false">
  </div>
  <p id="signature-error" class="form-error" role="alert"></p>
  <p class="legal" id="signature-legal">By selecting Apply, you agree that this is your electronic signature, as valid as one on paper.</p>
  <div class="dialog-actions">
    <button type="button" id="signature-remove" class="btn btn-ghost btn-left" hidden>Remove</button>
    <button type="button" class="btn btn-secondary" data-close>Cancel</button>
    <button type="button" id="signature-apply" class="btn btn-primary">Apply</button>
  </div>
</dialog>`

function declineDialog(orgName: string): SafeHtml {
  return html`<dialog id="decline-dialog" class="dialog" aria-labelledby="decline-title" aria-describedby="decline-desc">
  <form id="decline-form" method="dialog" novalidate>
    <div class="dialog-head"><h2 id="decline-title">Decline to sign?</h2>${DIALOG_CLOSE}</div>
    <p id="decline-desc">${orgName} will be told that you declined, and you won't be able to sign this document afterwards.</p>
    <label for="decline-reason">Reason <span class="optional">(optional)</span></label>
    <textarea id="decline-reason" maxlength="500" rows="4"></textarea>
    <p id="decline-error" class="form-error" role="alert"></p>
    <div class="dialog-actions">
      <button type="button" class="btn btn-secondary" data-close>Cancel</button>
      <button type="submit" id="decline-confirm" class="btn btn-danger">Decline to sign</button>
    </div>
  </form>
</dialog>`
}

export function signingPage(model: SigningPageModel): string {
  const fields = [...model.fields].sort(byReadingOrder)
  const expiry = formatExpiry(model.expiresAt)
  const signerName = model.signer.name?.trim() || null
  const pageCount = model.pages.length
  const pages = model.pages.map((size, index) => {
    const number = index + 1
    const own = fields.filter((f) => f.page === number)
    return html`<section class="page" id="page-${number}" data-page="${number}" data-size="${size.width},${size.height}" aria-label="Page ${number} of ${pageCount}">
<div class="page-loading" aria-hidden="true"><span class="spinner"></span></div>
${own.map((f) => fieldElement(f, size, model.today))}
</section>`
  })
  const requiredCount = fields.filter((f) => f.type !== 'date' && f.required).length

  const body = html`<a class="skip-link" href="#document">Skip to the document</a>
<header class="masthead">
  <div class="masthead-inner">
    <p class="eyebrow">${model.orgName} sent you a document to sign</p>
    <h1>${model.title}</h1>
    <p class="lede">${instruction(fields)}</p>
    <p class="meta">
      <span>Signing as <strong>${signerName ?? model.signer.email}</strong>${signerName ? html` (${model.signer.email})` : ''}</span>
      ${expiry ? html`<span>Link expires ${expiry}</span>` : ''}
      <a href="${signUrl(model.token, 'document.pdf')}" download>Download the PDF</a>
    </p>
  </div>
</header>
<div id="sign-alert" class="alert" role="alert" hidden>
  <p id="sign-alert-text"></p>
  <button type="button" id="sign-alert-reload" class="btn btn-small btn-secondary" hidden>Reload the page</button>
  <button type="button" id="sign-alert-dismiss" class="btn btn-small btn-ghost">Dismiss</button>
</div>
<main id="document" class="document" tabindex="-1" aria-label="Document: ${model.title}">
<noscript><p class="alert">Signing needs JavaScript. Please enable it and reload this page.</p></noscript>
${pages}
</main>
<div class="toolbar" role="region" aria-label="Signing progress and actions">
  <div class="toolbar-inner">
    <div class="progress">
      <p id="progress-text">${requiredCount === 0 ? 'No required fields' : `0 of ${requiredCount} required fields done`}</p>
      <div class="progress-track" aria-hidden="true"><span id="progress-bar"></span></div>
    </div>
    <div class="toolbar-actions">
      <button type="button" id="decline-open" class="btn btn-ghost">Decline</button>
      <button type="button" id="next-field" class="btn btn-secondary">Next field</button>
      <button type="button" id="finish" class="btn btn-primary" disabled>Finish</button>
    </div>
  </div>
</div>
<p id="live" class="sr-only" role="status" aria-live="polite"></p>
${SIGNATURE_DIALOG}
${declineDialog(model.orgName)}`

  return shell({
    title: `Sign: ${model.title} – ${model.orgName}`,
    view: 'sign',
    body,
    boot: {
      view: 'sign',
      urls: {
        document: signUrl(model.token, 'document.pdf'),
        view: signUrl(model.token, 'view'),
        finish: signUrl(model.token, 'finish'),
        decline: signUrl(model.token, 'decline'),
      },
      assets: {
        pdfjs: signingAssetUrl('pdf.min.mjs'),
        pdfWorker: signingAssetUrl('pdf.worker.min.mjs'),
        font: signingAssetUrl('dancing-script.woff2'),
      },
      signer: { name: signerName ?? '', initials: initialsOf(signerName) },
    },
  })
}

const ICONS: Record<StatusPageModel['tone'] | 'lock', SafeHtml> = {
  success: html`<path fill="currentColor" d="M12 2a10 10 0 1 0 0 20 10 10 0 0 0 0-20zm-1.2 14.2-4-4 1.4-1.4 2.6 2.6 5.6-5.6 1.4 1.4-7 7z"/>`,
  info: html`<path fill="currentColor" d="M12 2a10 10 0 1 0 0 20 10 10 0 0 0 0-20zm1 15h-2v-6h2v6zm0-8h-2V7h2v2z"/>`,
  warning: html`<path fill="currentColor" d="M1 21h22L12 2 1 21zm12-3h-2v-2h2v2zm0-4h-2v-4h2v4z"/>`,
  error: html`<path fill="currentColor" d="M12 2a10 10 0 1 0 0 20 10 10 0 0 0 0-20zm4.3 12.9-1.4 1.4L12 13.4l-2.9 2.9-1.4-1.4 2.9-2.9-2.9-2.9 1.4-1.4 2.9 2.9 2.9-2.9 1.4 1.4-2.9 2.9 2.9 2.9z"/>`,
  lock: html`<path fill="currentColor" d="M20 4H4a2 2 0 0 0-2 2v12a2 2 0 0 0 2 2h16a2 2 0 0 0 2-2V6a2 2 0 0 0-2-2zm0 4-8 5-8-5V6l8 5 8-5v2z"/>`,
}

const icon = (name: keyof typeof ICONS) =>
  html`<svg class="card-icon" viewBox="0 0 24 24" width="48" height="48" aria-hidden="true" focusable="false">${ICONS[name]}</svg>`

export function codePage(model: CodePageModel): string {
  const body = html`<main class="card-page">
  <div class="card tone-info">
    ${icon('lock')}
    <p class="eyebrow">${model.orgName}</p>
    <h1>Confirm it's you</h1>
    <p>To open <strong>${model.title}</strong>, enter the 6-digit code we email to <strong>${model.maskedEmail}</strong>.</p>
    <p id="code-message" class="message" role="status" aria-live="polite"></p>
    <div id="code-start">
      <button type="button" id="code-send" class="btn btn-primary btn-block">Email me a code</button>
    </div>
    <form id="code-form" class="code-form" novalidate hidden>
      <label for="code-input">6-digit code</label>
      <input type="text" id="code-input" class="code-input" name="code" inputmode="numeric" autocomplete="one-time-code" pattern="[0-9]{6}" required aria-describedby="code-message">
      <button type="submit" id="code-verify" class="btn btn-primary btn-block">Verify</button>
      <div class="resend">
        <button type="button" id="code-resend" class="btn btn-link">Send a new code</button>
        <span id="code-countdown" class="muted"></span>
      </div>
    </form>
    <noscript><p class="message is-error">This page needs JavaScript. Please enable it and reload.</p></noscript>
  </div>
</main>`
  return shell({
    title: `Confirm it's you – ${model.title}`,
    view: 'code',
    body,
    boot: { view: 'code', urls: { send: signUrl(model.token, 'code'), verify: signUrl(model.token, 'code/verify') } },
  })
}

export function statusPage(model: StatusPageModel): string {
  const body = html`<main class="card-page">
  <div class="card tone-${model.tone}">
    ${icon(model.tone)}
    ${model.title ? html`<p class="eyebrow">${model.title}</p>` : ''}
    <h1>${model.heading}</h1>
    <p>${model.message}</p>
    ${model.downloadUrl ? html`<a class="btn btn-primary btn-block" href="${model.downloadUrl}" download>Download signed PDF</a>` : ''}
  </div>
</main>`
  return shell({ title: model.title ? `${model.heading} – ${model.title}` : model.heading, view: 'status', body })
}
