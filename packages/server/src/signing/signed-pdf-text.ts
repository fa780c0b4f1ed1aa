import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { Standard14Font, StandardFonts, type EmbeddedFont, type FontInput, type PDF, type Standard14FontName } from '@libpdf/core'

/** A font as the renderer uses it: what to pass to drawText, how wide text is, and what it can draw. */
export interface Font {
  readonly input: FontInput
  widthOf(text: string, size: number): number
  /**
   * Makes any string drawable: NFC, control characters and line breaks become spaces, characters
   * without a glyph become '?'. @libpdf/core would otherwise draw a missing glyph as .notdef and
   * map it to some unrelated character in the text layer, or silently drop it for standard fonts.
   */
  clean(text: string): string
}

export interface FontSet {
  regular: Font
  bold: Font
  /** For ids and hashes (ASCII). */
  mono: Font
}

interface FontFiles {
  regular: Uint8Array
  bold: Uint8Array
}

/*
 * Liberation Sans (SIL Open Font License 1.1, which allows embedding) ships with pdfjs-dist, a
 * dependency of the server already. It covers Latin, Greek and Cyrillic; CJK and emoji have no
 * glyph and print as '?'. The bytes are read once; subsetting at save keeps each PDF small.
 */
let fontFiles: FontFiles | null | undefined

/** Where Liberation Sans is on disk, for renderers that load fonts by path; throws when pdfjs-dist is missing. */
export function liberationSansPaths(): { regular: string; bold: string } {
  const require = createRequire(import.meta.url)
  const path = (file: string) => require.resolve(`pdfjs-dist/standard_fonts/${file}`)
  return { regular: path('LiberationSans-Regular.ttf'), bold: path('LiberationSans-Bold.ttf') }
}

function loadFontFiles(): FontFiles | null {
  if (fontFiles !== undefined) return fontFiles
  try {
    const paths = liberationSansPaths()
    fontFiles = { regular: readFileSync(paths.regular), bold: readFileSync(paths.bold) }
  } catch (error) {
    // A deployment without the font still renders: Helvetica, with non-Latin-1 text as '?'.
    process.emitWarning(`signed PDFs fall back to Helvetica: ${(error as Error).message}`)
    fontFiles = null
  }
  return fontFiles
}

/** Characters WinAnsiEncoding (the standard fonts' encoding) has beyond printable Latin-1. */
const WIN_ANSI_EXTRAS = new Set('€‚ƒ„…†‡ˆ‰Š‹ŒŽ‘’“”•–—˜™š›œžŸ')

const isWinAnsi = (char: string): boolean => {
  const code = char.codePointAt(0) ?? 0
  return (code >= 0x20 && code <= 0x7e) || (code >= 0xa0 && code <= 0xff) || WIN_ANSI_EXTRAS.has(char)
}

const isControl = (code: number): boolean => code < 0x20 || (code >= 0x7f && code <= 0x9f) || code === 0x2028 || code === 0x2029

function cleaner(canDraw: (char: string) => boolean): (text: string) => string {
  const known = new Map<string, boolean>()
  return (text) => {
    let out = ''
    for (const char of text.normalize('NFC')) {
      if (isControl(char.codePointAt(0) ?? 0)) {
        out += ' '
        continue
      }
      let drawable = known.get(char)
      if (drawable === undefined) known.set(char, (drawable = canDraw(char)))
      out += drawable ? char : '?'
    }
    return out
  }
}

function standardFont(name: Standard14FontName): Font {
  const metrics = Standard14Font.of(name)
  return { input: name, widthOf: (text, size) => metrics.widthOfTextAtSize(text, size), clean: cleaner(isWinAnsi) }
}

function embeddedFont(font: EmbeddedFont, canDraw: (char: string) => boolean): Font {
  return { input: font, widthOf: (text, size) => font.widthOfTextAtSize(text, size), clean: cleaner(canDraw) }
}

/** The fonts for one document (embedded fonts belong to the document they were embedded in). */
export function embedFonts(pdf: PDF): FontSet {
  const mono = standardFont(StandardFonts.Courier)
  const files = loadFontFiles()
  if (!files) return { regular: standardFont(StandardFonts.Helvetica), bold: standardFont(StandardFonts.HelveticaBold), mono }
  const regular = pdf.embedFont(files.regular)
  const bold = pdf.embedFont(files.bold)
  // One rule for both weights, so a value prints the same whichever of them draws it.
  const canDraw = (char: string) => regular.canEncode(char) && bold.canEncode(char)
  return { regular: embeddedFont(regular, canDraw), bold: embeddedFont(bold, canDraw), mono }
}

const ELLIPSIS = '…'

/** How many of `chars` fit in `maxWidth` at `size` when followed by `suffix`. */
function fittingCount(font: Font, chars: string[], size: number, maxWidth: number, suffix: string): number {
  let low = 0
  let high = chars.length
  while (low < high) {
    const mid = Math.ceil((low + high) / 2)
    if (font.widthOf(chars.slice(0, mid).join('') + suffix, size) <= maxWidth) low = mid
    else high = mid - 1
  }
  return low
}

function cut(font: Font, text: string, size: number, maxWidth: number): string {
  if (font.widthOf(text, size) <= maxWidth) return text
  const chars = [...text]
  return chars.slice(0, fittingCount(font, chars, size, maxWidth, ELLIPSIS)).join('').trimEnd() + ELLIPSIS
}

/** `text` (cleaned) cut to fit `maxWidth` at `size`, ending in '…' when it had to be cut. */
export function truncate(font: Font, text: string, size: number, maxWidth: number): string {
  return cut(font, font.clean(text).trim(), size, maxWidth)
}

/** `text` (cleaned) word-wrapped into at most `maxLines` lines; the last one ends in '…' if text was left over. */
export function wrap(font: Font, text: string, size: number, maxWidth: number, maxLines: number): string[] {
  const lines: string[] = []
  let rest = font.clean(text).trim()
  while (rest !== '') {
    if (lines.length === maxLines - 1 || font.widthOf(rest, size) <= maxWidth) {
      lines.push(cut(font, rest, size, maxWidth))
      break
    }
    const chars = [...rest]
    // At least one character per line, so a box narrower than a glyph still terminates.
    let count = Math.max(1, fittingCount(font, chars, size, maxWidth, ''))
    // Break after the last space that fits; a single word wider than the line (a user agent token) breaks anywhere.
    const space = chars.lastIndexOf(' ', count)
    if (space > 0) count = space
    lines.push(chars.slice(0, count).join('').trimEnd())
    rest = chars.slice(count).join('').trimStart()
  }
  return lines
}

/** `date` as ISO 8601 in UTC to the second, or an em dash when absent or invalid. */
export function utc(date: Date | null): string {
  if (date === null || Number.isNaN(date.getTime())) return '—'
  return `${date.toISOString().slice(0, 19)}Z`
}
