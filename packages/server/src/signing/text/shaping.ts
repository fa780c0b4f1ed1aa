import bidiJs, { type Bidi } from 'bidi-js'
import type * as HarfBuzz from 'harfbuzzjs'
import { textEngines } from './engines.ts'
import { placeCharacters, replacementFace, type Face, type FamilyId, type Weight } from './font-catalog.ts'
import { fontProgram, type FontProgram } from './font-programs.ts'

/*
 * One line of text as glyphs: the Unicode bidirectional algorithm (bidi-js) splits it into
 * directional runs and puts them in visual order, each run is split by the face that draws its
 * characters, and HarfBuzz shapes each piece (Arabic joining, Indic reordering and conjuncts,
 * marks, kerning, mirrored brackets in right-to-left runs).
 */

/** Lengths are in 1/1000 em, the unit of PDF text space. */
export interface ShapedGlyph {
  id: number
  /** Where the glyph's characters start in its run's text (UTF-16 code units). */
  cluster: number
  advance: number
  dx: number
  dy: number
}

export interface ShapedRun {
  program: FontProgram
  /** The run's characters in logical order. */
  text: string
  rtl: boolean
  /** In visual order, left to right. */
  glyphs: ShapedGlyph[]
  /** Characters no bundled font has: drawn as replacement glyphs, the text layer keeps them (ActualText). */
  unprintable: boolean
}

export interface ShapedLine {
  /** In visual order, left to right. */
  runs: ShapedRun[]
  width: number
  /** The paragraph reads right to left (its first strong character is): it is aligned to the right. */
  rtl: boolean
}

// bidi-js's types describe an ES module; its main file is CommonJS and exports the factory itself.
const bidi = (bidiJs as unknown as () => Bidi)()

/** Characters of right-to-left scripts and the explicit right-to-left controls: without any, a line is one left-to-right level. */
const RIGHT_TO_LEFT = /[\u0590-\u08FF\uFB1D-\uFDFF\uFE70-\uFEFF\u200F\u202B\u202E\u2067\u{10800}-\u{10FFF}\u{1E800}-\u{1EFFF}]/u
let shapingBuffer: HarfBuzz.Buffer | undefined

interface LogicalRun {
  start: number
  end: number
  face: Face | null
  level: number
}

function shapeRun(program: FontProgram, text: string, rtl: boolean): ShapedGlyph[] {
  const { hb } = textEngines()
  const buffer = (shapingBuffer ??= new hb.Buffer())
  buffer.reset()
  buffer.addText(text)
  buffer.setDirection(rtl ? hb.Direction.RTL : hb.Direction.LTR)
  buffer.guessSegmentProperties()
  hb.shape(program.font, buffer)
  const scale = 1000 / program.unitsPerEm
  const positions = buffer.getGlyphPositions()
  return buffer.getGlyphInfos().map((info, i) => {
    const position = positions[i] as HarfBuzz.GlyphPosition
    return { id: info.codepoint, cluster: info.cluster, advance: position.xAdvance * scale, dx: position.xOffset * scale, dy: position.yOffset * scale }
  })
}

/** One replacement glyph per character, each its own cluster. */
function replacementGlyphs(program: FontProgram, text: string, rtl: boolean): ShapedGlyph[] {
  const glyphs: ShapedGlyph[] = []
  let cluster = 0
  for (const char of text) {
    glyphs.push({ id: program.replacementGlyph, cluster, advance: program.advance(program.replacementGlyph), dx: 0, dy: 0 })
    cluster += char.length
  }
  return rtl ? glyphs.reverse() : glyphs
}

/**
 * `text` (one line, no controls) shaped at `weight`. Characters no face of `families` has are
 * drawn as the replacement glyph (U+FFFD).
 */
export function shapeLine(text: string, weight: Weight, families?: readonly FamilyId[]): ShapedLine {
  const embedding = RIGHT_TO_LEFT.test(text) ? bidi.getEmbeddingLevels(text) : null
  const placed = placeCharacters(text, families)
  const runs: LogicalRun[] = []
  for (const { index, char, face } of placed) {
    const level = embedding?.levels[index] ?? 0
    const last = runs[runs.length - 1]
    if (last && last.face?.id === face?.id && last.level === level) last.end = index + char.length
    else runs.push({ start: index, end: index + char.length, face, level })
  }
  if (embedding) {
    // A run's place in the line: where its first character went in the visual order.
    const visual = new Map(bidi.getReorderedIndices(text, embedding).map((logical, position) => [logical, position]))
    runs.sort((a, b) => (visual.get(a.start) ?? 0) - (visual.get(b.start) ?? 0))
  }

  let width = 0
  const shaped = runs.map((run): ShapedRun => {
    const rtl = run.level % 2 === 1
    const runText = text.slice(run.start, run.end)
    const program = fontProgram(run.face ?? replacementFace(), weight)
    const glyphs = run.face ? shapeRun(program, runText, rtl) : replacementGlyphs(program, runText, rtl)
    for (const glyph of glyphs) width += glyph.advance
    return { program, text: runText, rtl, glyphs, unprintable: run.face === null }
  })
  return { runs: shaped, width, rtl: (embedding?.paragraphs[0]?.level ?? 0) % 2 === 1 }
}
