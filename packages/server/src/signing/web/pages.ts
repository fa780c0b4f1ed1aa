import { signingDateText } from '@signet/vocabulary'
import type { FieldType, PrefilledValue, TemplateField } from '../../db/schema.ts'
import { signingAssetUrl } from './signing-assets.ts'
import { typedFieldControl } from './typed-field-controls.ts'
import { html, htmlPage, type SafeHtml } from '../../lib/html.ts'
import type { MessageKey, Translator } from '../i18n/catalog.ts'
import { directionOf, LANGUAGE_NAMES, SIGNER_LANGUAGES } from '../i18n/languages.ts'

/**
 * Server-rendered pages of the signing flow. Every page is a complete HTML document that
 * works under the routes' strict CSP: no inline script or style; data for the browser
 * script travels in `<script type="application/json" id="signet-boot">`, and the script
 * (client/, bundled into /sign-assets/sign.js) positions elements by setting `element.style`
 * from data attributes.
 */

/**
 * Every text comes from the page's Translator (signing/i18n): the signer's language, chosen
 * by signing-view.ts. The script's own texts travel in the boot JSON (`messages`, raw ICU).
 */

/** One of the signer's fields, with its index in the template as id. */
export type SignerField = Omit<TemplateField, 'role'> & { id: number; prefill?: PrefilledValue | undefined }

/** What every signer page knows: its texts' language, and the signing link (for the language menu) when it has one. */
interface PageBase {
  t: Translator
  token?: string
}

export interface SigningPageModel extends PageBase {
  token: string
  title: string
  orgName: string
  /** roleName: the template's name of the signer's role as the document was sent (extension); null: not named. */
  signer: { name: string | null; email: string; roleName?: string | null }
  pages: { width: number; height: number }[]
  fields: SignerField[]
  today: string
  expiresAt: Date | null
  /** On an embedded page (signing/embed): the framing origin the script posts its signet:* messages to. */
  parentOrigin?: string | null
}

export interface CodePageModel extends PageBase {
  token: string
  title: string
  orgName: string
  maskedEmail: string
}

export interface StatusPageModel extends PageBase {
  heading: string
  message: string
  tone: 'success' | 'info' | 'warning' | 'error'
  title?: string
  downloadUrl?: string
}

const TYPE_NAMES: Record<FieldType, MessageKey> = {
  signature: 'field.signature',
  initials: 'field.initials',
  date: 'field.date',
  text: 'field.text',
  checkbox: 'field.checkbox',
  radio: 'field.radio',
  dropdown: 'field.dropdown',
  number: 'field.number',
  email: 'field.email',
  name: 'field.name',
}

/** The texts the script formats itself (client/i18n.ts), sent raw in the boot JSON. */
export const SIGNING_SCRIPT_MESSAGES: MessageKey[] = [
  'sign.progress',
  'signature.title',
  'signature.typeLabel',
  'signature.legal',
  'signature.drawFirst',
  'signature.typeFirst',
  'signature.cleared',
  'signature.added',
  'signature.addedAgain',
  'signature.removed',
  'signature.filled',
  'client.allDone',
  'client.signing',
  'client.pageError',
  'client.documentError',
  'client.invalidEmail',
  'client.numberBelow',
  'client.numberAbove',
  'client.notNumber',
  'client.required',
  'client.invalidEntry',
  'client.unreachable',
  'client.httpError',
]
export const CODE_SCRIPT_MESSAGES: MessageKey[] = [
  'code.availableIn',
  'code.sending',
  'code.sent',
  'code.enterSixDigits',
  'code.verified',
  'client.unreachable',
  'client.httpError',
]

interface Shell extends PageBase {
  title: string
  view: 'sign' | 'code' | 'status'
  body: SafeHtml
  boot?: Record<string, unknown>
}

function shell({ t, token, title, view, body, boot }: Shell): string {
  return htmlPage({
    title,
    lang: t.language,
    dir: directionOf(t.language),
    stylesheetUrl: signingAssetUrl('sign.css'),
    body: token ? html`${languageMenu(t, token)}${body}` : body,
    bodyClass: `view-${view}`,
    ...(boot ? { script: { url: signingAssetUrl('sign.js'), boot: { ...boot, language: t.language } } } : {}),
  })
}

/**
 * The signer's own choice of language: a GET of the same link with ?lang=, which the route
 * remembers in a cookie. Submitted with its button, not on change: arrowing through a
 * closed select must not reload the page (WCAG 3.2.2), and it works without the script.
 */
function languageMenu(t: Translator, token: string): SafeHtml {
  const options = SIGNER_LANGUAGES.map(
    (language) => html`<option value="${language}" lang="${language}"${language === t.language ? html` selected` : ''}>${LANGUAGE_NAMES[language]}</option>`,
  )
  return html`<form class="language-menu" method="get" action="/sign/${encodeURIComponent(token)}">
  <label for="language-select">${t.text('language.label')}</label>
  <select id="language-select" name="lang">${options}</select>
  <button type="submit" class="btn btn-small btn-ghost" id="language-change">${t.text('language.change')}</button>
</form>`
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

/** Reading order: page, then rows (10 pt bands, so fields on one line go left to right), then x. */
function byReadingOrder(a: SignerField, b: SignerField): number {
  return a.page - b.page || Math.round(a.y / 10) - Math.round(b.y / 10) || a.x - b.x || a.id - b.id
}

const percent = (value: number, of: number) => (Math.min(Math.max(value / of, 0), 1) * 100).toFixed(4)

function fieldName(t: Translator, field: SignerField): string {
  return field.label?.trim() || t.text(TYPE_NAMES[field.type])
}

function fieldAriaLabel(t: Translator, field: SignerField): string {
  const state = field.type === 'date' ? 'automatic' : field.required ? 'required' : 'optional'
  return t.text('sign.fieldLabel', { name: fieldName(t, field), state, page: field.page })
}

const PEN_ICON = html`<svg class="icon" viewBox="0 0 24 24" width="16" height="16" aria-hidden="true" focusable="false"><path fill="currentColor" d="M3 17.25V21h3.75L17.8 9.94l-3.75-3.75L3 17.25zm17.7-10.2a1 1 0 0 0 0-1.42l-2.33-2.33a1 1 0 0 0-1.42 0l-1.83 1.83 3.75 3.75 1.83-1.83z"/></svg>`

function fieldControl(t: Translator, field: SignerField, today: string): SafeHtml {
  const label = fieldAriaLabel(t, field)
  switch (field.type) {
    case 'signature':
    case 'initials': {
      // The accessible name starts with the visible word, so speech users can say what they see (WCAG 2.5.3).
      // data-label: the name without that word, for the script's "…, filled; select to change".
      const action = t.text('sign.markAction', { kind: field.type })
      return html`<button type="button" class="field-control" aria-label="${t.text('sign.markLabel', { kind: field.type, label })}" data-label="${label}"><span class="field-hint">${PEN_ICON}<span>${action}</span></span></button>`
    }
    case 'text':
    case 'checkbox':
    case 'name':
    case 'email':
    case 'number':
    case 'dropdown':
    case 'radio':
      return typedFieldControl(t, { ...field, type: field.type }, label, fieldName(t, field))
    case 'date': {
      // The server's UTC day in the page's language, as the finish writes it (transitions.ts).
      // data-fit: its width in ems, for sign.css to size the text to the box ("27 de noviembre de 2026" on a phone).
      const text = signingDateText(today, t.language)
      return html`<input type="text" class="field-control" readonly value="${text}" data-fit="${fitEms(text)}" aria-label="${label}">`
    }
  }
}

/**
 * About how many ems wide `text` is in a wide sans-serif (DejaVu Sans; the usual UI fonts are
 * narrower), rounded up and kept within the 4–24 that sign.css has rules for: the widths of
 * digits and spaces, narrow and wide letters, capitals, and full-width (CJK) characters.
 */
function fitEms(text: string): number {
  let ems = 0
  for (const char of text) {
    if (/\s/u.test(char)) ems += 0.32
    else if (/[.,:;'!|]/.test(char)) ems += 0.32
    else if (/[fijlrtI]/.test(char)) ems += 0.36
    else if (/[mwMW]/.test(char)) ems += 0.95
    else if (/\p{Lu}/u.test(char)) ems += 0.74
    else if (/[\u1100-\u115f\u2e80-\ua4cf\uac00-\ud7a3\uf900-\ufaff\ufe30-\ufe4f\uff00-\uff60\uffe0-\uffe6]/u.test(char)) ems += 1
    else ems += 0.64
  }
  return Math.min(24, Math.max(4, Math.ceil(ems)))
}

function fieldElement(t: Translator, field: SignerField, page: { width: number; height: number }, today: string): SafeHtml {
  const box = [percent(field.x, page.width), percent(field.y, page.height), percent(field.width, page.width), percent(field.height, page.height)]
  const classes = ['field', `field--${field.type}`, field.type !== 'date' && field.required ? 'is-required' : '', field.type === 'date' ? 'is-filled' : '']
  return html`<div class="${classes.filter(Boolean).join(' ')}" data-field-id="${field.id}" data-type="${field.type}" data-box="${box.join(',')}">${fieldControl(t, field, today)}</div>`
}

function instruction(t: Translator, fields: SignerField[]): SafeHtml {
  const toFill = fields.filter((f) => f.type !== 'date')
  const required = toFill.filter((f) => f.required).length
  if (toFill.length === 0) return t.html('sign.instructionReview')
  // The "(n required)" note only when some, not all, are required.
  return t.html('sign.instructionFill', { count: toFill.length, required: required < toFill.length ? required : 0 })
}

const dialogClose = (t: Translator) =>
  html`<button type="button" class="dialog-x" data-close aria-label="${t.text('dialog.close')}"><svg viewBox="0 0 24 24" width="20" height="20" aria-hidden="true" focusable="false"><path fill="currentColor" d="M18.3 5.7a1 1 0 0 0-1.4 0L12 10.6 7.1 5.7a1 1 0 1 0-1.4 1.4l4.9 4.9-4.9 4.9a1 1 0 1 0 1.4 1.4l4.9-4.9 4.9 4.9a1 1 0 0 0 1.4-1.4L13.4 12l4.9-4.9a1 1 0 0 0 0-1.4z"/></svg></button>`

// The drawing pad stays left-to-right in every language: its line and "×" mark where a pen starts, as on paper forms.
const signatureDialog = (t: Translator) => html`<dialog id="signature-dialog" class="dialog" aria-labelledby="signature-title">
  <div class="dialog-head"><h2 id="signature-title">${t.text('signature.title', { kind: 'signature' })}</h2>${dialogClose(t)}</div>
  <div class="tabs" role="tablist" aria-label="${t.text('signature.howToSign')}">
    <button type="button" role="tab" id="tab-draw" aria-controls="panel-draw" aria-selected="true">${t.text('signature.draw')}</button>
    <button type="button" role="tab" id="tab-type" aria-controls="panel-type" aria-selected="false" tabindex="-1">${t.text('signature.type')}</button>
  </div>
  <div role="tabpanel" id="panel-draw" aria-labelledby="tab-draw" class="tab-panel">
    <div class="pad-wrap" dir="ltr">
      <canvas id="signature-pad" width="1200" height="400" role="img" aria-label="${t.text('signature.padLabel')}" aria-describedby="pad-help"></canvas>
      <span class="pad-line" aria-hidden="true"></span>
    </div>
    <div class="pad-foot">
      <p id="pad-help" class="help">${t.html('signature.padHelp')}</p>
      <button type="button" id="signature-clear" class="btn btn-small btn-ghost">${t.text('signature.clear')}</button>
    </div>
  </div>
  <div role="tabpanel" id="panel-type" aria-labelledby="tab-type" class="tab-panel" hidden>
    <label for="signature-text" id="signature-text-label">${t.text('signature.typeLabel', { kind: 'signature' })}</label>
    <input type="text" id="signature-text" class="type-input" maxlength="60" autocomplete="off" spellcheck="false" dir="auto">
  </div>
  <p id="signature-error" class="form-error" role="alert"></p>
  <p class="legal" id="signature-legal">${t.text('signature.legal', { kind: 'signature' })}</p>
  <div class="dialog-actions">
    <button type="button" id="signature-remove" class="btn btn-ghost btn-left" hidden>${t.text('signature.remove')}</button>
    <button type="button" class="btn btn-secondary" data-close>${t.text('dialog.cancel')}</button>
    <button type="button" id="signature-apply" class="btn btn-primary">${t.text('signature.apply')}</button>
  </div>
</dialog>`

function declineDialog(t: Translator, orgName: string): SafeHtml {
  return html`<dialog id="decline-dialog" class="dialog" aria-labelledby="decline-title" aria-describedby="decline-desc">
  <form id="decline-form" method="dialog" novalidate>
    <div class="dialog-head"><h2 id="decline-title">${t.text('decline.title')}</h2>${dialogClose(t)}</div>
    <p id="decline-desc">${t.text('decline.description', { org: orgName })}</p>
    <label for="decline-reason">${t.text('decline.reason')} <span class="optional">${t.text('decline.optional')}</span></label>
    <textarea id="decline-reason" maxlength="500" rows="4" dir="auto"></textarea>
    <p id="decline-error" class="form-error" role="alert"></p>
    <div class="dialog-actions">
      <button type="button" class="btn btn-secondary" data-close>${t.text('dialog.cancel')}</button>
      <button type="submit" id="decline-confirm" class="btn btn-danger">${t.text('decline.confirm')}</button>
    </div>
  </form>
</dialog>`
}

export function signingPage(model: SigningPageModel): string {
  const { t } = model
  const fields = [...model.fields].sort(byReadingOrder)
  const signerName = model.signer.name?.trim() || null
  const pageCount = model.pages.length
  // The document keeps its own geometry in every language: fields sit where they are on the PDF, even on a right-to-left page.
  const pages = model.pages.map((size, index) => {
    const number = index + 1
    const own = fields.filter((f) => f.page === number)
    return html`<section class="page" id="page-${number}" data-page="${number}" data-size="${size.width},${size.height}" dir="ltr" aria-label="${t.text('sign.pageLabel', { page: number, count: pageCount })}">
<div class="page-loading" aria-hidden="true"><span class="spinner"></span></div>
${own.map((f) => fieldElement(t, f, size, model.today))}
</section>`
  })
  const requiredCount = fields.filter((f) => f.type !== 'date' && f.required).length
  const signingAs = signerName
    ? t.html('sign.signingAsWithEmail', { name: signerName, email: model.signer.email })
    : t.html('sign.signingAs', { name: model.signer.email })

  const body = html`<a class="skip-link" href="#document">${t.text('sign.skipLink')}</a>
<header class="masthead">
  <div class="masthead-inner">
    <p class="eyebrow">${t.text('sign.eyebrow', { org: model.orgName })}</p>
    <h1>${model.title}</h1>
    <p class="lede">${instruction(t, fields)}</p>
    <p class="meta">
      <span>${signingAs}</span>
      ${model.signer.roleName ? html`<span class="signer-role">${t.html('sign.role', { role: model.signer.roleName })}</span>` : ''}
      ${model.expiresAt ? html`<span>${t.text('sign.linkExpires', { date: t.date(model.expiresAt) })}</span>` : ''}
      <a href="${signUrl(model.token, 'document.pdf')}" download>${t.text('sign.download')}</a>
    </p>
  </div>
</header>
<div id="sign-alert" class="alert" role="alert" hidden>
  <p id="sign-alert-text"></p>
  <button type="button" id="sign-alert-reload" class="btn btn-small btn-secondary" hidden>${t.text('sign.reload')}</button>
  <button type="button" id="sign-alert-dismiss" class="btn btn-small btn-ghost">${t.text('sign.dismiss')}</button>
</div>
<main id="document" class="document" tabindex="-1" aria-label="${t.text('sign.documentLabel', { title: model.title })}">
<noscript><p class="alert">${t.text('sign.noscript')}</p></noscript>
${pages}
</main>
<div class="toolbar" role="region" aria-label="${t.text('sign.toolbarLabel')}">
  <div class="toolbar-inner">
    <div class="progress">
      <p id="progress-text">${t.text('sign.progress', { done: 0, total: requiredCount })}</p>
      <div class="progress-track" aria-hidden="true"><span id="progress-bar"></span></div>
    </div>
    <div class="toolbar-actions">
      <button type="button" id="decline-open" class="btn btn-ghost">${t.text('sign.decline')}</button>
      <button type="button" id="next-field" class="btn btn-secondary">${t.text('sign.nextField')}</button>
      <button type="button" id="finish" class="btn btn-primary" disabled>${t.text('sign.finish')}</button>
    </div>
  </div>
</div>
<p id="live" class="sr-only" role="status" aria-live="polite"></p>
${signatureDialog(t)}
${declineDialog(t, model.orgName)}`

  return shell({
    t,
    token: model.token,
    title: t.text('sign.pageTitle', { title: model.title, org: model.orgName }),
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
      messages: t.messages(SIGNING_SCRIPT_MESSAGES),
      ...(model.parentOrigin ? { parentOrigin: model.parentOrigin } : {}),
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
  const { t } = model
  const body = html`<main class="card-page">
  <div class="card tone-info">
    ${icon('lock')}
    <p class="eyebrow">${model.orgName}</p>
    <h1>${t.text('code.heading')}</h1>
    <p>${t.html('code.intro', { title: model.title, email: model.maskedEmail })}</p>
    <p id="code-message" class="message" role="status" aria-live="polite"></p>
    <div id="code-start">
      <button type="button" id="code-send" class="btn btn-primary btn-block">${t.text('code.send')}</button>
    </div>
    <form id="code-form" class="code-form" novalidate hidden>
      <label for="code-input">${t.text('code.inputLabel')}</label>
      <input type="text" id="code-input" class="code-input" name="code" inputmode="numeric" autocomplete="one-time-code" pattern="[0-9]{6}" required aria-describedby="code-message" dir="ltr">
      <button type="submit" id="code-verify" class="btn btn-primary btn-block">${t.text('code.verify')}</button>
      <div class="resend">
        <button type="button" id="code-resend" class="btn btn-link">${t.text('code.resend')}</button>
        <span id="code-countdown" class="muted"></span>
      </div>
    </form>
    <noscript><p class="message is-error">${t.text('code.noscript')}</p></noscript>
  </div>
</main>`
  return shell({
    t,
    token: model.token,
    title: t.text('code.pageTitle', { title: model.title }),
    view: 'code',
    body,
    boot: {
      view: 'code',
      urls: { send: signUrl(model.token, 'code'), verify: signUrl(model.token, 'code/verify') },
      messages: t.messages(CODE_SCRIPT_MESSAGES),
    },
  })
}

export function statusPage(model: StatusPageModel): string {
  const { t } = model
  const body = html`<main class="card-page">
  <div class="card tone-${model.tone}">
    ${icon(model.tone)}
    ${model.title ? html`<p class="eyebrow">${model.title}</p>` : ''}
    <h1>${model.heading}</h1>
    <p>${model.message}</p>
    ${model.downloadUrl ? html`<a class="btn btn-primary btn-block" href="${model.downloadUrl}" download>${t.text('status.downloadSigned')}</a>` : ''}
  </div>
</main>`
  return shell({
    t,
    ...(model.token ? { token: model.token } : {}),
    title: model.title ? `${model.heading} – ${model.title}` : model.heading,
    view: 'status',
    body,
  })
}
