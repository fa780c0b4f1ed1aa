import { AppError, type TranslatableText } from '../../errors.ts'
import { catalogOf, type MessageKey, type MessageValues, type Translator } from './catalog.ts'

/**
 * The errors a signer can see on their page, in their language. The domain raises them as
 * always (an AppError with its English text, code and field, which the API and every other
 * channel write unchanged) and marks each with a message of the signer catalogs (`forSigner`);
 * the signing routes (http/routes/signing.ts) write that message in the page's language.
 */

/** A message of the signer catalogs with its values: a date is written as a day and time, a SignerText as its own message. */
export interface SignerText extends TranslatableText {
  key: MessageKey
  values?: Record<string, string | number | Date | SignerText>
}

export const signerText = (key: MessageKey, values?: SignerText['values']): SignerText => (values ? { key, values } : { key })

/** Marks `error` as one a signer can see, with its message for pages in other languages than English. */
export function forSigner<E extends AppError>(error: E, key: MessageKey, values?: SignerText['values']): E {
  error.translatable = signerText(key, values)
  return error
}

const isMessageKey = (key: string): key is MessageKey => key in catalogOf('en')

/** A translatable text in `t`'s language. */
export function signerTextIn(t: Translator, text: TranslatableText): string {
  if (!isMessageKey(text.key)) throw new Error(`No message "${text.key}"`)
  const values: MessageValues = {}
  for (const [name, value] of Object.entries(text.values ?? {})) {
    values[name] = value instanceof Date ? t.dateTime(value) : typeof value === 'object' ? signerTextIn(t, value) : value
  }
  return t.text(text.key, values)
}

/**
 * The error as a signer reading `t`'s language gets it: the same code, field, extra body fields
 * and headers, with its text in that language. English, and an error without a message of the
 * catalogs, stay exactly as raised (the English of the catalogs mirrors the domain's texts).
 */
export function inSignerLanguage(error: unknown, t: Translator): unknown {
  if (!(error instanceof AppError) || !error.translatable || t.language === 'en') return error
  let text: string
  try {
    text = signerTextIn(t, error.translatable)
  } catch {
    return error // a message the catalogs lack: English rather than no answer
  }
  return new AppError(error.code, text, error.extra, error.headers, error.field)
}
