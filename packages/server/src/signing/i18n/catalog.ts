import { readFileSync } from 'node:fs'
import { IntlMessageFormat } from 'intl-messageformat'
import { escapeHtml, SafeHtml } from '../../lib/html.ts'
import type English from './messages/en.json'
import { SIGNER_LANGUAGES, type SignerLanguage } from './languages.ts'

/**
 * The signer-facing texts, one ICU MessageFormat catalog per language (messages/<tag>.json, flat
 * keys), formatted with intl-messageformat. English is the reference: test/signer-language.test.ts
 * fails when another catalog lacks one of its keys, has one it lacks, or a message does not parse
 * or uses other placeholders. Messages may mark words with <strong> and <em>; `html` renders
 * them (everything else escaped), `text` drops the tags.
 */

export type MessageKey = keyof typeof English
export type MessageValues = Record<string, string | number>

const catalogs = new Map<SignerLanguage, Record<string, string>>()

/** A language's catalog as written (read once). */
export function catalogOf(language: SignerLanguage): Record<string, string> {
  let catalog = catalogs.get(language)
  if (!catalog) {
    catalog = JSON.parse(readFileSync(new URL(`./messages/${language}.json`, import.meta.url), 'utf8')) as Record<string, string>
    catalogs.set(language, catalog)
  }
  return catalog
}

export const catalogLanguages = (): readonly SignerLanguage[] => SIGNER_LANGUAGES

const formats = new Map<string, IntlMessageFormat>()

function formatOf(language: SignerLanguage, key: MessageKey): IntlMessageFormat {
  const id = `${language}\u0000${key}`
  let format = formats.get(id)
  if (!format) {
    // A key missing from a catalog is a bug the catalog test catches; English keeps the page whole meanwhile.
    const message = catalogOf(language)[key] ?? catalogOf('en')[key]
    if (message === undefined) throw new Error(`No message "${key}"`)
    format = new IntlMessageFormat(message, language)
    formats.set(id, format)
  }
  return format
}

const RICH_TAGS = ['strong', 'em'] as const

const htmlOf = (part: unknown): string => (part instanceof SafeHtml ? part.value : escapeHtml(String(part)))

export interface Translator {
  language: SignerLanguage
  /** Plain text (e-mail text, attributes, titles): rich tags dropped. */
  text(key: MessageKey, values?: MessageValues): string
  /** HTML: literal text and values escaped, <strong>/<em> kept. */
  html(key: MessageKey, values?: MessageValues): SafeHtml
  /** A day, e.g. "1. Juni 2026" (UTC, as the server keeps dates). */
  date(date: Date): string
  /** A day and time with its zone, e.g. "1. Juni 2026 um 14:05 UTC". */
  dateTime(date: Date): string
  /** The raw messages of `keys`, for the page's script to format itself. */
  messages(keys: readonly MessageKey[]): Record<string, string>
}

export function translator(language: SignerLanguage): Translator {
  const plainTags = Object.fromEntries(RICH_TAGS.map((tag) => [tag, (chunks: unknown[]) => chunks.join('')]))
  const htmlTags = Object.fromEntries(RICH_TAGS.map((tag) => [tag, (chunks: unknown[]) => new SafeHtml(`<${tag}>${chunks.map(htmlOf).join('')}</${tag}>`)]))
  const dateFormat = new Intl.DateTimeFormat(language, { dateStyle: 'long', timeZone: 'UTC' })
  const dateTimeFormat = new Intl.DateTimeFormat(language, {
    year: 'numeric',
    month: 'long',
    day: 'numeric',
    hour: '2-digit',
    minute: '2-digit',
    timeZone: 'UTC',
    timeZoneName: 'short',
  })
  return {
    language,
    text: (key, values = {}) => {
      const out = formatOf(language, key).format<string>({ ...values, ...plainTags })
      return Array.isArray(out) ? out.join('') : String(out)
    },
    html: (key, values = {}) => {
      const out = formatOf(language, key).format<SafeHtml>({ ...values, ...htmlTags })
      return new SafeHtml(Array.isArray(out) ? out.map(htmlOf).join('') : htmlOf(out))
    },
    date: (date) => dateFormat.format(date),
    dateTime: (date) => dateTimeFormat.format(date),
    messages: (keys) => Object.fromEntries(keys.map((key) => [key, catalogOf(language)[key] ?? catalogOf('en')[key] ?? ''])),
  }
}
