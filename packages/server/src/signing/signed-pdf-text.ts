import { Standard14Font, StandardFonts, type PDF, type PDFPage } from '@libpdf/core'
import { loadTextEngines } from './text/engines.ts'
import { ALL_FAMILIES, placeCharacters, type FamilyId, type Weight } from './text/font-catalog.ts'
import { PdfTextFonts, type TextPlacement } from './text/pdf-fonts.ts'
import { shapeLine, type ShapedLine } from './text/shaping.ts'

export { liberationSansPaths } from './text/font-catalog.ts'
export type { TextPlacement } from './text/pdf-fonts.ts'

/** What layout needs of a font: how wide text is, and the text made printable. */
export interface Font {
  /** Width of `text` (clean, one line) at `size`, from its shaped glyphs. */
  widthOf(text: string, size: number): number
  /** NFC, with control characters and line breaks as spaces (and, for a font that cannot show every script, '?' for what it lacks). */
  clean(text: string): string
}

/** A font that draws into one PDF. */
export interface PdfFont extends Font {
  /** Draws `text` (clean, one line) with the left end of its baseline at (x, y). */
  draw(page: PDFPage, text: string, placement: TextPlacement): void
  /** Whether `text` reads right to left (its first strong character does): a line of it is aligned to the right. */
  isRightToLeft(text: string): boolean
}

export interface FontSet {
  regular: Font
  bold: Font
  /** For ids and hashes (ASCII). */
  mono: Font
}

export interface PdfFontSet extends FontSet {
  regular: PdfFont
  bold: PdfFont
  mono: PdfFont
  /** Writes the fonts' subsets into the PDF: after the last drawing, before saving. */
  finish(): void
}

const CONTROL = /[\p{Cc}\u2028\u2029]/gu

const printable = (text: string): string => text.normalize('NFC').replace(CONTROL, ' ')

/** Lines shaped recently, per font: layout measures a line, then draws the same line. */
const MEMO_SIZE = 256

function shaper(weight: Weight, families: readonly FamilyId[]): (text: string) => ShapedLine {
  const memo = new Map<string, ShapedLine>()
  return (text) => {
    let line = memo.get(text)
    if (!line) {
      if (memo.size >= MEMO_SIZE) memo.clear()
      memo.set(text, (line = shapeLine(text, weight, families)))
    }
    return line
  }
}

/*
 * Any script: text is shaped with HarfBuzz in the bundled font that has its characters (see
 * text/font-catalog.ts) and embedded as a subset. A character no bundled font has (emoji) prints
 * as U+FFFD while the text layer keeps it; signers cannot submit such characters (field-values.ts).
 */
function shapedPdfFont(fonts: PdfTextFonts, weight: Weight): PdfFont {
  const shape = shaper(weight, ALL_FAMILIES)
  return {
    widthOf: (text, size) => (shape(text).width * size) / 1000,
    clean: printable,
    draw: (page, text, placement) => {
      if (text !== '') fonts.draw(page, shape(text), placement)
    },
    isRightToLeft: (text) => shape(text).rtl,
  }
}

/** Characters WinAnsiEncoding (the standard fonts' encoding) has beyond printable Latin-1. */
const WIN_ANSI_EXTRAS = new Set('€‚ƒ„…†‡ˆ‰Š‹ŒŽ‘’“”•–—˜™š›œžŸ')

const isWinAnsi = (char: string): boolean => {
  const code = char.codePointAt(0) ?? 0
  return (code >= 0x20 && code <= 0x7e) || (code >= 0xa0 && code <= 0xff) || WIN_ANSI_EXTRAS.has(char)
}

/** Courier, one of the standard fonts, for ids and hashes: ASCII only, anything else prints as '?'. */
function courier(): PdfFont {
  const metrics = Standard14Font.of(StandardFonts.Courier)
  return {
    widthOf: (text, size) => metrics.widthOfTextAtSize(text, size),
    clean: (text) => [...printable(text)].map((char) => (isWinAnsi(char) ? char : '?')).join(''),
    draw: (page, text, { x, y, size, color, rotate }) => {
      if (text !== '')
        page.drawText(text, { x, y, size, color, font: StandardFonts.Courier, ...(rotate ? { rotate: { angle: rotate, origin: { x, y } } } : {}) })
    },
    isRightToLeft: () => false,
  }
}

/** The fonts for one document (embedded fonts belong to the document they are drawn in). */
export async function embedFonts(pdf: PDF): Promise<PdfFontSet> {
  await loadTextEngines()
  const fonts = new PdfTextFonts(pdf)
  return { regular: shapedPdfFont(fonts, 'regular'), bold: shapedPdfFont(fonts, 'bold'), mono: courier(), finish: () => fonts.finish() }
}

/**
 * Liberation Sans alone, for drawing that cannot use the other fonts (the badge, which resvg draws
 * with Liberation Sans only): characters it lacks are cleaned to '?'.
 */
export async function liberationSansFonts(): Promise<FontSet> {
  await loadTextEngines()
  const measure = (weight: Weight): Font => {
    const shape = shaper(weight, ['liberation'])
    return {
      widthOf: (text, size) => (shape(text).width * size) / 1000,
      clean: (text) => {
        const placed = placeCharacters(printable(text), ['liberation'])
        return placed.map(({ char, face }) => (face || char === ' ' ? char : '?')).join('')
      },
    }
  }
  return { regular: measure('regular'), bold: measure('bold'), mono: courier() }
}

const ELLIPSIS = '…'

const graphemes = new Intl.Segmenter('und', { granularity: 'grapheme' })

/** How many of `clusters` fit in `maxWidth` at `size` when followed by `suffix`. */
function fittingCount(font: Font, clusters: string[], size: number, maxWidth: number, suffix: string): number {
  let low = 0
  let high = clusters.length
  while (low < high) {
    const mid = Math.ceil((low + high) / 2)
    if (font.widthOf(clusters.slice(0, mid).join('') + suffix, size) <= maxWidth) low = mid
    else high = mid - 1
  }
  return low
}

/** A text's graphemes: a line is never cut inside one (a letter and its marks, a conjunct, an emoji). */
const clustersOf = (text: string): string[] => Array.from(graphemes.segment(text), ({ segment }) => segment)

function cut(font: Font, text: string, size: number, maxWidth: number): string {
  if (font.widthOf(text, size) <= maxWidth) return text
  const clusters = clustersOf(text)
  return (
    clusters
      .slice(0, fittingCount(font, clusters, size, maxWidth, ELLIPSIS))
      .join('')
      .trimEnd() + ELLIPSIS
  )
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
    const clusters = clustersOf(rest)
    // At least one grapheme per line, so a box narrower than a glyph still terminates.
    let count = Math.max(1, fittingCount(font, clusters, size, maxWidth, ''))
    // Break after the last space that fits; a single word wider than the line (a user agent token, CJK text) breaks anywhere.
    const space = clusters.lastIndexOf(' ', count)
    if (space > 0) count = space
    lines.push(clusters.slice(0, count).join('').trimEnd())
    rest = clusters.slice(count).join('').trimStart()
  }
  return lines
}

/** `date` as ISO 8601 in UTC to the second, or an em dash when absent or invalid. */
export function utc(date: Date | null): string {
  if (date === null || Number.isNaN(date.getTime())) return '—'
  return `${date.toISOString().slice(0, 19)}Z`
}
