import { IntlMessageFormat } from 'intl-messageformat'
import type English from '../../i18n/messages/en.json'

/**
 * The script's texts: the server puts the page's messages (raw ICU, in the signer's language) in
 * the boot JSON (pages.ts), and this formats them; the catalogs themselves stay on the server.
 */
export type MessageKey = keyof typeof English
export type MessageValues = Record<string, string | number>

let messages: Partial<Record<MessageKey, string>> = {}
let language = 'en'
const formats = new Map<MessageKey, IntlMessageFormat>()

export function useMessages(pageMessages: Partial<Record<MessageKey, string>> | undefined, pageLanguage: string | undefined): void {
  messages = pageMessages ?? {}
  language = pageLanguage ?? 'en'
  formats.clear()
}

/** A message of the page, formatted; its key when the page did not send it (a bug the script tests see). */
export function t(key: MessageKey, values?: MessageValues): string {
  const message = messages[key]
  if (message === undefined) return key
  let format = formats.get(key)
  if (!format) {
    format = new IntlMessageFormat(message, language)
    formats.set(key, format)
  }
  return String(format.format(values))
}
