/**
 * The languages signers read their pages and e-mails in (issue 22), and how one is chosen:
 * the signer's own choice on the page, else the document's `language`, else the browser's
 * Accept-Language, else the workspace's default, else English. E-mails have no browser:
 * the document's, else the workspace's, else English.
 */

/** BCP 47 tags, as the API takes them and the catalogs (messages/<tag>.json) are named. */
export const SIGNER_LANGUAGES = ['en', 'de', 'fr', 'es', 'it', 'nl', 'pt-BR', 'pl', 'ja', 'ar'] as const
export type SignerLanguage = (typeof SIGNER_LANGUAGES)[number]

export const DEFAULT_LANGUAGE: SignerLanguage = 'en'

/** Each language in itself, as the page's language menu lists it. */
export const LANGUAGE_NAMES: Record<SignerLanguage, string> = {
  en: 'English',
  de: 'Deutsch',
  fr: 'Français',
  es: 'Español',
  it: 'Italiano',
  nl: 'Nederlands',
  'pt-BR': 'Português (Brasil)',
  pl: 'Polski',
  ja: '日本語',
  ar: 'العربية',
}

export const directionOf = (language: SignerLanguage): 'ltr' | 'rtl' => (language === 'ar' ? 'rtl' : 'ltr')

/** A stored or chosen tag as one of ours (exact, as the API and the menu give them); null for anything else. */
export function signerLanguageOf(tag: string | null | undefined): SignerLanguage | null {
  return SIGNER_LANGUAGES.find((language) => language === tag) ?? null
}

/**
 * Our language for one range of an Accept-Language header: the same tag in any case, else the
 * same language in another region ("de-AT" → de, "pt" or "pt-PT" → pt-BR: the nearest we have).
 */
function matchRange(range: string): SignerLanguage | null {
  const lower = range.toLowerCase()
  const exact = SIGNER_LANGUAGES.find((language) => language.toLowerCase() === lower)
  if (exact) return exact
  const primary = lower.split('-')[0]
  return SIGNER_LANGUAGES.find((language) => language.toLowerCase().split('-')[0] === primary) ?? null
}

/** The first of the browser's languages (by q, then by order) that we have; null when none is (or for "*"). */
export function negotiateLanguage(acceptLanguage: string | undefined): SignerLanguage | null {
  if (!acceptLanguage) return null
  const ranges = acceptLanguage
    .slice(0, 1000)
    .split(',')
    .map((part, index) => {
      const [range = '', ...params] = part.trim().split(';')
      const q = params.map((p) => /^\s*q=([\d.]+)\s*$/i.exec(p)?.[1]).find((v) => v !== undefined)
      return { range: range.trim(), q: q === undefined ? 1 : Number(q), index }
    })
    .filter(({ range, q }) => range !== '' && range !== '*' && q > 0)
    .sort((a, b) => b.q - a.q || a.index - b.index)
  for (const { range } of ranges) {
    const language = matchRange(range)
    if (language) return language
  }
  return null
}

/** Where a signer page's language can come from, strongest first. */
export interface PageLanguageSources {
  /** The language the signer picked in the page's menu (query parameter, then the cookie remembering it). */
  chosen: string | null | undefined
  documentLanguage: string | null
  acceptLanguage: string | undefined
  workspaceLanguage: string | null
}

export function pageLanguage(sources: PageLanguageSources): SignerLanguage {
  return (
    signerLanguageOf(sources.chosen) ??
    signerLanguageOf(sources.documentLanguage) ??
    negotiateLanguage(sources.acceptLanguage) ??
    signerLanguageOf(sources.workspaceLanguage) ??
    DEFAULT_LANGUAGE
  )
}

/** An e-mail to a signer or copy recipient: no browser to ask. */
export function mailLanguage(documentLanguage: string | null, workspaceLanguage: string | null): SignerLanguage {
  return signerLanguageOf(documentLanguage) ?? signerLanguageOf(workspaceLanguage) ?? DEFAULT_LANGUAGE
}
