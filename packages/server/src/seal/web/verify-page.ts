import { html, htmlPage, type SafeHtml } from '../../lib/html.ts'
import type { PublicVerification } from '../public-verification.ts'

export interface VerifyPageAssets {
  scriptUrl: string
  styleUrl: string
  rootPemUrl: string
}

const utc = (iso: string) => `${iso.slice(0, 10)} ${iso.slice(11, 19)} UTC`

function shell(title: string, body: SafeHtml, assets: VerifyPageAssets, boot?: Record<string, unknown>): string {
  return htmlPage({
    title,
    stylesheetUrl: assets.styleUrl,
    body: html`<header class="brand"><span class="mark" aria-hidden="true">✓</span> Signet verification</header>
${body}`,
    ...(boot ? { script: { url: assets.scriptUrl, boot } } : {}),
  })
}

function row(label: string, value: SafeHtml | string): SafeHtml {
  return html`<div class="row"><dt>${label}</dt><dd>${value}</dd></div>`
}

/** The public page of a sealed document: what was sealed, by whom, when, the hash, and an in-browser checker. */
export function verifyPage(facts: PublicVerification, assets: VerifyPageAssets): string {
  const selfSealed = facts.kind === 'self-sealed'
  const who = selfSealed
    ? html`${facts.sealed_by} <span class="note">(identity verified ${facts.identity_verified_at ? utc(facts.identity_verified_at).slice(0, 10) : ''})</span>`
    : html`${facts.signer_count ?? 0} signer${facts.signer_count === 1 ? '' : 's'}, sent by ${facts.sealed_by}`
  const tsa = facts.built_in_timestamp_authority
    ? html`${facts.timestamp_authority} <span class="note">(this service's own time-stamp authority, not a third party)</span>`
    : facts.timestamp_authority
  const body = html`<main>
  <section class="card" aria-labelledby="heading">
    <p class="eyebrow">${selfSealed ? 'Self-sealed document' : 'Signed document'}</p>
    <h1 id="heading">${facts.title}</h1>
    <p class="status"><span class="badge-ok">Sealed</span> ${selfSealed ? 'Certified unaltered by its owner' : 'Signed by every party'} and time-stamped under RFC 3161.</p>
    <dl class="facts">
      ${row(selfSealed ? 'Sealed by' : 'Parties', who)}
      ${row('Sealed at', html`<time datetime="${facts.sealed_at}">${utc(facts.sealed_at)}</time>`)}
      ${row('Time-stamp authority', tsa)}
      ${row('SHA-256 of the sealed file', html`<code class="hash">${facts.sealed_file_sha256}</code>`)}
      ${facts.original_sha256 ? row('SHA-256 of the original upload', html`<code class="hash">${facts.original_sha256}</code>`) : ''}
      ${facts.certificate_mode ? row('Certificate', facts.certificate_mode) : ''}
      ${row('Document id', html`<code>${facts.document_id}</code>`)}
    </dl>
  </section>
  <section class="card" aria-labelledby="check-heading">
    <h2 id="check-heading">Check a copy</h2>
    <p>Choose or drop the PDF you received. It is checked in this browser with the open-source <code>@signet/verify</code> library and never uploaded.</p>
    <label class="drop" id="drop">
      <input type="file" id="file" accept="application/pdf,.pdf">
      <span>Drop a PDF here, or <u>choose a file</u></span>
    </label>
    <div id="result" class="result" role="status" aria-live="polite"></div>
  </section>
  <section class="card small" aria-labelledby="offline-heading">
    <h2 id="offline-heading">Check it yourself</h2>
    <p>Download this service's <a href="${assets.rootPemUrl}" download>root certificate</a> and run <code>npx signet-verify file.pdf --trust signet-root.pem</code>, or open the file in any PAdES-aware reader.</p>
  </section>
</main>`
  return shell(`${facts.title} – Signet verification`, body, assets, {
    sealedFileSha256: facts.sealed_file_sha256,
    originalSha256: facts.original_sha256,
    rootPemUrl: assets.rootPemUrl,
  })
}

export function verifyNotFoundPage(assets: VerifyPageAssets): string {
  const body = html`<main><section class="card"><h1>No sealed document here</h1>
  <p>There is no sealed document with this address. Check the link, or ask the sender for it; a document appears here once its seal is complete.</p></section></main>`
  return shell('Not found – Signet verification', body, assets)
}
