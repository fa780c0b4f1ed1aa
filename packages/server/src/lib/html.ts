/**
 * A tiny escaping HTML template: `html` escapes every interpolated value unless it is
 * already `SafeHtml` (the result of another `html` call). Arrays are joined; null,
 * undefined and false render nothing.
 */
export class SafeHtml {
  constructor(readonly value: string) {}
  toString(): string {
    return this.value
  }
}

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ESCAPES[c] ?? c)
}

function render(value: unknown): string {
  if (value instanceof SafeHtml) return value.value
  if (Array.isArray(value)) return value.map(render).join('')
  if (value === null || value === undefined || value === false) return ''
  if (typeof value === 'string') return escapeHtml(value)
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return escapeHtml(String(value))
  throw new TypeError(`Cannot interpolate a ${typeof value} into HTML`)
}

export function html(strings: TemplateStringsArray, ...values: unknown[]): SafeHtml {
  let out = strings[0] ?? ''
  values.forEach((value, i) => {
    out += render(value) + (strings[i + 1] ?? '')
  })
  return new SafeHtml(out)
}

/**
 * JSON for a `<script type="application/json">` element. `<`, `>` and `&` are escaped so the
 * text can never close the element or open a comment; JSON.parse reads the escapes back.
 */
export function jsonForScript(value: unknown): SafeHtml {
  const json = JSON.stringify(value).replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)
  return new SafeHtml(json)
}

export interface HtmlPage {
  title: string
  stylesheetUrl: string
  body: SafeHtml
  bodyClass?: string
  /** The page's language and direction (default English, left to right): the signer's pages set them (signing/i18n). */
  lang?: string
  dir?: 'ltr' | 'rtl'
  /** The page's module script and the JSON it boots from (read from #signet-boot). */
  script?: { url: string; boot: Record<string, unknown> }
}

/**
 * A whole page of ours: no inline script or style (the pages' CSP forbids both), not indexed,
 * no Referer sent (signing links carry their secret in the URL).
 */
export function htmlPage({ title, stylesheetUrl, body, bodyClass, lang = 'en', dir = 'ltr', script }: HtmlPage): string {
  const scripts = script
    ? html`<script type="application/json" id="signet-boot">${jsonForScript(script.boot)}</script>
<script type="module" src="${script.url}"></script>`
    : ''
  return html`<!doctype html>
<html lang="${lang}" dir="${dir}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex, nofollow">
<meta name="referrer" content="no-referrer">
<meta name="color-scheme" content="light">
<link rel="icon" href="data:,">
<title>${title}</title>
<link rel="stylesheet" href="${stylesheetUrl}">
${scripts}
</head>
<body${bodyClass ? html` class="${bodyClass}"` : ''}>
${body}
</body>
</html>
`.value
}
