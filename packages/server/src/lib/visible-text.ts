import type { TSchema } from 'typebox'

/**
 * Text that must show everything it holds. Names and titles (a person's, a workspace's, a
 * signer's, a template's or a seal's, a legal name, a field's label) are read on one line by
 * people, in mails, on PDFs, and by agents, which read characters a screen never shows: tag
 * characters spell out ASCII invisibly ("ASCII smuggling"), zero-width and other
 * default-ignorable characters hide text or split it, line separators and tabs break the one
 * line, and a letter under dozens of combining marks ("Zalgo") covers its neighbours.
 *
 * Kept, because scripts need them and they cannot hide or reorder text: the zero-width
 * non-joiner and joiner (Persian, Arabic, Indic scripts; emoji sequences), the directional
 * marks (right-to-left names; the bidi embeddings, overrides and isolates are refused
 * everywhere by lib/validation.ts), a variation selector right after the character it varies
 * (emoji, CJK, Mongolian), and up to MAX_STACKED marks on one letter (Vietnamese, Hebrew
 * points, Indic vowel signs need two or three).
 *
 * Free text (messages, subjects, reasons, what a signer types in a field) keeps all of these
 * but tag characters: prose uses zero-width spaces (Thai, Khmer word breaks), soft hyphens
 * and line breaks, and is shown as a block, where a person sees its breaks.
 */

export const MAX_STACKED = 4

/** The directional marks and the joiners: format characters that are text (see above). */
const KEPT_FORMAT = new Set(['\u200C', '\u200D', '\u200E', '\u200F', '\u061C'])
const VARIATION_SELECTOR = /^[\uFE00-\uFE0F\u180B-\u180D\u180F\u{E0100}-\u{E01EF}]$/u
const DEFAULT_IGNORABLE = /^\p{Default_Ignorable_Code_Point}$/u
const MARK = /^\p{M}$/u
/** Tab, line feed, carriage return and the Unicode line and paragraph separators (the other breaks are control characters). */
const LINE_BREAK = /^[\t\n\r\u2028\u2029]$/

const TAG = /[\u{E0000}-\u{E007F}]/u
/** England, Scotland, Wales: the only flags written with tag characters that emoji fonts draw (UTS #51's recommended set). */
const TAG_FLAGS = /\u{1F3F4}\u{E0067}\u{E0062}(?:\u{E0065}\u{E006E}\u{E0067}|\u{E0073}\u{E0063}\u{E0074}|\u{E0077}\u{E006C}\u{E0073})\u{E007F}/gu

export type HiddenTextProblem = { kind: 'invisible' | 'line'; character: string } | { kind: 'stacked' }

/** The first tag character outside the three flags, in any text: what an agent would read and a person would not see. */
export function hiddenTagIn(text: string): string | null {
  if (!TAG.test(text)) return null
  return TAG.exec(text.replace(TAG_FLAGS, ''))?.[0] ?? null
}

/** What keeps `name` (a name or a title) from showing all it holds, or null when nothing does. */
export function problemInName(name: string): HiddenTextProblem | null {
  let stacked = 0
  let afterBase = false
  // A flag's tags are one picture: checked as the black flag they follow.
  for (const character of name.replace(TAG_FLAGS, '\u{1F3F4}')) {
    if (LINE_BREAK.test(character)) return { kind: 'line', character }
    const variation = VARIATION_SELECTOR.test(character)
    const invisible = variation ? !afterBase : DEFAULT_IGNORABLE.test(character) && !KEPT_FORMAT.has(character)
    if (invisible) return { kind: 'invisible', character }
    const joins = variation || MARK.test(character) || KEPT_FORMAT.has(character)
    stacked = joins ? stacked + 1 : 0
    if (stacked > MAX_STACKED) return { kind: 'stacked' }
    afterBase = !joins
  }
  return null
}

/** U+200B */
export const codePointOf = (character: string): string => `U+${(character.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0')}`

/** The end of a sentence that starts with the field's name: "name must not contain invisible characters (U+200B)". */
export function describeHiddenText(problem: HiddenTextProblem): string {
  switch (problem.kind) {
    case 'invisible':
      return `must not contain invisible characters (${codePointOf(problem.character)})`
    case 'line':
      return `must be a single line, without line breaks or tabs (${codePointOf(problem.character)})`
    case 'stacked':
      return `must not stack more than ${MAX_STACKED} accents or marks on one letter`
  }
}

/** Marks a string schema as a name or title: lib/validation.ts then refuses what problemInName finds. Invisible in OpenAPI and tool schemas. */
const DISPLAY_NAME = Symbol('display name')

export function displayName<T extends TSchema>(schema: T): T {
  Object.assign(schema, { [DISPLAY_NAME]: true })
  return schema
}

export const isDisplayName = (schema: object): boolean => DISPLAY_NAME in schema
