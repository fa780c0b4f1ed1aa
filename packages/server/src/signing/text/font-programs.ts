import { createHash } from 'node:crypto'
import { readFileSync } from 'node:fs'
import type * as HarfBuzz from 'harfbuzzjs'
import { textEngines } from './engines.ts'
import type { Face, FontFile, Weight } from './font-catalog.ts'

/** The weights the variable fonts are fixed at. */
const WEIGHTS: Record<Weight, number> = { regular: 400, bold: 700 }

/**
 * One face at one weight, opened: its TrueType bytes, the HarfBuzz font that shapes with it, and
 * what a PDF font dictionary needs to know about it. Opened on first use and kept for the life of
 * the worker (a face is a few hundred kilobytes at most).
 */
export interface FontProgram {
  /** Stable across processes: "japanese/57@bold". */
  readonly key: string
  readonly bytes: Uint8Array
  readonly font: HarfBuzz.Font
  readonly unitsPerEm: number
  /** The wght value to fix a variable font at when embedding it; undefined for a static font. */
  readonly weight: number | undefined
  /** A PostScript name for the instance, e.g. "NotoSansArabic-Bold". */
  readonly postScriptName: string
  readonly bold: boolean
  /** Design metrics in 1/1000 em, for the PDF font descriptor. */
  readonly metrics: { ascent: number; descent: number; capHeight: number; bbox: [number, number, number, number] }
  /** The glyph that stands for a character no font has (U+FFFD, else "?"). */
  readonly replacementGlyph: number
  /** Advance of a glyph in 1/1000 em, as the PDF's /W array gives it. */
  advance(glyph: number): number
}

const programs = new Map<string, FontProgram>()
/** Decoded font files by path: a variable font's two weights share one. */
const files = new Map<string, Uint8Array>()

function fontBytes(file: FontFile): Uint8Array {
  let bytes = files.get(file.path)
  if (!bytes) {
    const raw = readFileSync(file.path)
    files.set(file.path, (bytes = file.format === 'woff2' ? textEngines().decodeWoff2(raw) : new Uint8Array(raw.buffer, raw.byteOffset, raw.byteLength)))
  }
  return bytes
}

function open(face: Face, weight: Weight): FontProgram {
  const file = face.file(weight)
  const bytes = fontBytes(file)
  const { hb } = textEngines()
  const hbFace = new hb.Face(new hb.Blob(bytes))
  const font = new hb.Font(hbFace)
  const wght = file.variable ? WEIGHTS[weight] : undefined
  if (wght !== undefined) font.setVariations([new hb.Variation('wght', wght)])
  const unitsPerEm = hbFace.upem
  const perMille = (units: number) => Math.round((units * 1000) / unitsPerEm)
  const head = hbFace.referenceTable('head')
  const view = head ? new DataView(head.buffer, head.byteOffset, head.byteLength) : undefined
  const bbox = (view ? [36, 38, 40, 42].map((at) => perMille(view.getInt16(at))) : [0, -250, 1000, 1000]) as [number, number, number, number]
  const extents = font.hExtents()
  const advances = new Map<number, number>()
  return {
    key: `${face.id}@${weight}`,
    bytes,
    font,
    unitsPerEm,
    weight: wght,
    postScriptName: face.postScriptName(weight),
    bold: weight === 'bold',
    metrics: {
      ascent: perMille(extents.ascender),
      descent: perMille(extents.descender),
      capHeight: perMille(font.getMetricPositionWithFallback(hb.MetricsTag.CAP_HEIGHT)),
      bbox,
    },
    replacementGlyph: font.nominalGlyph(0xfffd) ?? font.nominalGlyph(0x3f) ?? 0,
    advance(glyph) {
      let advance = advances.get(glyph)
      if (advance === undefined) advances.set(glyph, (advance = (font.glyphHAdvance(glyph) * 1000) / unitsPerEm))
      return advance
    },
  }
}

export function fontProgram(face: Face, weight: Weight): FontProgram {
  const key = `${face.id}@${weight}`
  let program = programs.get(key)
  if (!program) programs.set(key, (program = open(face, weight)))
  return program
}

/** A six-letter subset tag (PDF 32000 §9.6.4) derived from what the subset holds, so equal input gives an equal PDF. */
export function subsetTag(program: FontProgram, glyphs: number[]): string {
  const digest = createHash('sha256').update(program.key).update(glyphs.join(',')).digest()
  return Array.from(digest.subarray(0, 6), (byte) => String.fromCharCode(65 + (byte % 26))).join('')
}
