import { ops, PdfArray, PdfDict, PdfName, PdfNumber, PdfRef, PdfStream, PdfString, type Color, type PDF, type PDFPage } from '@libpdf/core'
import { subsetFont } from './font-subset.ts'
import { subsetTag, type FontProgram } from './font-programs.ts'
import type { ShapedGlyph, ShapedLine, ShapedRun } from './shaping.ts'

/*
 * Shaped text in a PDF. Each font program used becomes a Type 0 font (CIDFontType2, Identity-H:
 * the content stream holds glyph ids), subset at the end to the glyphs drawn. Glyphs are written in
 * visual order, as a viewer shows them; text extraction gets the logical text back from
 *   - the ToUnicode CMap: a cluster's text (a letter, a conjunct with its vowel sign, a ligature)
 *     goes on its base glyph, its marks map to nothing: an Arabic medial form reads as its letter,
 *     a Devanagari conjunct as its four characters, wherever they stand in the cluster; and
 *   - ActualText spans where a cluster has several glyphs that advance (a Devanagari vowel sign
 *     drawn before its consonant), where a glyph already says something else in this font (the
 *     dotless body Arabic letters share, "ب" here and "ن" there), and for characters no font has
 *     (drawn as U+FFFD).
 * pdftotext (poppler) reads right-to-left text drawn this way back in reading order; its -raw mode,
 * which keeps drawing order, gives right-to-left lines word by word from the left. One limit is
 * poppler's: it puts an Arabic vowel mark or Hebrew point before its letter (it only reverses a
 * glyph's text when every character of it is a right-to-left letter).
 */

export interface TextPlacement {
  /** The start of the baseline (the left end), in user space. */
  x: number
  y: number
  size: number
  color: Color
  /** Counter-clockwise, in degrees, about (x, y). */
  rotate?: number
}

/** @libpdf/core does not export its operator type. */
type Operator = ReturnType<typeof ops.beginText>

interface EmbeddedProgram {
  program: FontProgram
  /** The Type 0 font dictionary: registered at first use, filled in by finish(). */
  font: PdfDict
  ref: PdfRef
  /** Glyph → the text its ToUnicode entry gives. */
  unicode: Map<number, string>
  glyphs: Set<number>
  /** The objects finish() writes, kept so that another finish() updates them. */
  parts?: { file: PdfStream; descriptor: PdfDict; cidFont: PdfDict; toUnicode: PdfStream }
}

/** Resource names of our fonts start with this, apart from @libpdf/core's "F…". */
const RESOURCE_PREFIX = 'SgF'

function fill(color: Color): Operator {
  switch (color.type) {
    case 'RGB':
      return ops.setNonStrokingRGB(color.red, color.green, color.blue)
    case 'Grayscale':
      return ops.setNonStrokingGray(color.gray)
    case 'CMYK':
      return ops.setNonStrokingCMYK(color.cyan, color.magenta, color.yellow, color.black)
  }
}

const glyphCode = (glyph: number) => PdfString.fromHex(glyph.toString(16).padStart(4, '0'))

/** UTF-16BE hex, as ToUnicode CMaps write their destinations. */
const utf16Hex = (text: string) => Buffer.from(text, 'utf16le').swap16().toString('hex').toUpperCase()

function toUnicodeCMap(unicode: Map<number, string>): Uint8Array {
  const entries = [...unicode].sort(([a], [b]) => a - b).map(([glyph, text]) => `<${glyph.toString(16).padStart(4, '0').toUpperCase()}> <${utf16Hex(text)}>`)
  const blocks: string[] = []
  // A bfchar block holds at most 100 entries.
  for (let i = 0; i < entries.length; i += 100) {
    const block = entries.slice(i, i + 100)
    blocks.push(`${block.length} beginbfchar\n${block.join('\n')}\nendbfchar`)
  }
  const cmap = [
    '/CIDInit /ProcSet findresource begin',
    '12 dict begin',
    'begincmap',
    '/CIDSystemInfo << /Registry (Adobe) /Ordering (UCS) /Supplement 0 >> def',
    '/CMapName /Adobe-Identity-UCS def',
    '/CMapType 2 def',
    '1 begincodespacerange\n<0000> <FFFF>\nendcodespacerange',
    ...blocks,
    'endcmap',
    'CMapName currentdict /CMap defineresource pop',
    'end',
    'end',
  ]
  return new TextEncoder().encode(cmap.join('\n'))
}

/** /W: runs of consecutive glyph ids with their widths, `first [w1 w2 …]`. */
function widthsArray(embedded: EmbeddedProgram, glyphs: number[]): PdfArray {
  const items: (PdfNumber | PdfArray)[] = []
  let run: number[] = []
  let start = -1
  const flush = () => {
    if (run.length > 0) items.push(PdfNumber.of(start), new PdfArray(run.map((width) => PdfNumber.of(width))))
  }
  for (const glyph of glyphs) {
    if (glyph !== start + run.length) {
      flush()
      start = glyph
      run = []
    }
    run.push(Math.round(embedded.program.advance(glyph)))
  }
  flush()
  return new PdfArray(items)
}

/** The fonts of one PDF: draws shaped lines and, at the end, writes each font's subset. */
export class PdfTextFonts {
  private readonly embedded = new Map<string, EmbeddedProgram>()
  private readonly resourceNames = new WeakMap<PDFPage, Map<string, string>>()

  constructor(private readonly pdf: PDF) {}

  private embed(program: FontProgram): EmbeddedProgram {
    let embedded = this.embedded.get(program.key)
    if (!embedded) {
      const font = new PdfDict()
      embedded = { program, font, ref: this.pdf.register(font), unicode: new Map(), glyphs: new Set([0]) }
      this.embedded.set(program.key, embedded)
    }
    return embedded
  }

  /** The name `embedded` has in `page`'s font resources (added on first use). */
  private resourceName(page: PDFPage, embedded: EmbeddedProgram): string {
    let names = this.resourceNames.get(page)
    if (!names) this.resourceNames.set(page, (names = new Map<string, string>()))
    let name = names.get(embedded.program.key)
    if (name) return name
    const resources = page.getResources()
    let fonts = resources.get('Font', (ref) => this.pdf.getObject(ref))
    if (!(fonts instanceof PdfDict)) resources.set('Font', (fonts = new PdfDict()))
    for (const [key, value] of fonts) {
      if (value instanceof PdfRef && value.objectNumber === embedded.ref.objectNumber && value.generation === embedded.ref.generation) name = key.value
    }
    if (!name) {
      let n = 0
      while (fonts.has(`${RESOURCE_PREFIX}${n}`)) n++
      name = `${RESOURCE_PREFIX}${n}`
      fonts.set(name, embedded.ref)
    }
    names.set(embedded.program.key, name)
    return name
  }

  /** Draws `line` with its baseline starting at (x, y). */
  draw(page: PDFPage, line: ShapedLine, placement: TextPlacement): void {
    const { x, y, size } = placement
    const radians = ((placement.rotate ?? 0) * Math.PI) / 180
    const [cos, sin] = [Math.cos(radians), Math.sin(radians)]
    /** Puts the text cursor at `along` (1/1000 em) along the baseline, `rise` above it. */
    const moveTo = (along: number, rise: number): Operator => {
      const [u, v] = [(along * size) / 1000, (rise * size) / 1000]
      return ops.setTextMatrix(cos, sin, -sin, cos, x + u * cos - v * sin, y + u * sin + v * cos)
    }
    const out: Operator[] = [ops.pushGraphicsState(), fill(placement.color), ops.beginText()]
    let pen = 0
    for (const run of line.runs) {
      const embedded = this.embed(run.program)
      out.push(ops.setFont(`/${this.resourceName(page, embedded)}`, size))
      pen = this.drawRun(out, embedded, run, pen, moveTo)
    }
    out.push(ops.endText(), ops.popGraphicsState())
    page.drawOperators(out)
  }

  /** Appends the operators that draw `run` from `pen`; returns the pen after it. */
  private drawRun(out: Operator[], embedded: EmbeddedProgram, run: ShapedRun, start: number, moveTo: (along: number, rise: number) => Operator): number {
    const { glyphs, text } = run
    const pens: number[] = []
    let pen = start
    for (const glyph of glyphs) {
      pens.push(pen)
      pen += glyph.advance
    }
    // Where each cluster's text ends: the next cluster start in logical order.
    const starts = [...new Set(glyphs.map((glyph) => glyph.cluster))].sort((a, b) => a - b)
    const textOf = (cluster: number) => text.slice(cluster, starts[starts.indexOf(cluster) + 1] ?? text.length)

    let shown: (PdfString | PdfNumber)[] = []
    let last = -2
    const flush = () => {
      if (shown.length > 0) out.push(ops.showTextArray(new PdfArray(shown)))
      shown = []
    }
    /** Draws glyphs[i]: in the running TJ when it follows the last glyph drawn, else placed afresh. */
    const draw = (i: number) => {
      const glyph = glyphs[i] as ShapedGlyph
      embedded.glyphs.add(glyph.id)
      const positioned = glyph.dx !== 0 || glyph.dy !== 0
      if (positioned || i !== last + 1) {
        flush()
        out.push(moveTo((pens[i] as number) + glyph.dx, glyph.dy))
      }
      shown.push(glyphCode(glyph.id))
      // The viewer advances by the font's width; shaping (kerning, marks) may want another advance.
      const correction = embedded.program.advance(glyph.id) - glyph.advance
      if (Math.abs(correction) > 0.01) shown.push(PdfNumber.of(Math.round(correction * 100) / 100))
      // After a positioned mark the cursor is off the pen: the next glyph is placed afresh.
      last = positioned ? -2 : i
    }
    const span = (actualText: string, indexes: number[]) => {
      flush()
      out.push(ops.beginMarkedContentProps('/Span', PdfDict.of({ ActualText: PdfString.fromString(actualText) })))
      indexes.forEach(draw)
      flush()
      out.push(ops.endMarkedContent())
      last = -2
    }

    if (run.unprintable) {
      span(
        text,
        glyphs.map((_, i) => i),
      )
      return pen
    }
    for (let i = 0; i < glyphs.length;) {
      const cluster = glyphs[i]?.cluster ?? 0
      let end = i + 1
      while (glyphs[end]?.cluster === cluster) end++
      const indexes = Array.from({ length: end - i }, (_, k) => i + k)
      // The cluster's text goes on its glyph that advances (its base); its marks map to nothing.
      const advancing = indexes.filter((k) => glyphs[k]?.advance !== 0)
      const bases = advancing.length > 0 ? advancing : indexes
      const marks = indexes.filter((k) => !bases.includes(k))
      const wanted = new Map<number, string>()
      let consistent = true
      for (const k of indexes) {
        const id = (glyphs[k] as ShapedGlyph).id
        const mapping = k === bases[0] ? textOf(cluster) : ''
        if (wanted.has(id) && wanted.get(id) !== mapping) consistent = false
        wanted.set(id, mapping)
      }
      const claimable = (id: number, mapping: string) => (embedded.unicode.get(id) ?? mapping) === mapping
      if (bases.length === 1 && consistent && [...wanted].every(([id, mapping]) => claimable(id, mapping))) {
        for (const [id, mapping] of wanted) embedded.unicode.set(id, mapping)
        indexes.forEach(draw)
      } else {
        // Several glyphs advance (a reordered vowel sign and its consonant: a silent one would leave
        // a gap extraction reads as a space), or a glyph says something else elsewhere: the bases
        // carry the text as ActualText (a span from the leftmost to the rightmost, where extraction
        // puts it), the marks are drawn after it, silent.
        span(textOf(cluster), bases)
        const silent = marks.filter((k) => claimable((glyphs[k] as ShapedGlyph).id, ''))
        for (const k of silent) embedded.unicode.set((glyphs[k] as ShapedGlyph).id, '')
        silent.forEach(draw)
        const loud = marks.filter((k) => !silent.includes(k))
        if (loud.length > 0) span('', loud)
      }
      i = end
    }
    flush()
    return pen
  }

  /**
   * Writes every font used: the subset of its glyphs (a variable font fixed at its weight), widths,
   * descriptor and ToUnicode CMap. Call after the last drawing and before saving (another call,
   * after more drawing, rewrites them).
   */
  finish(): void {
    for (const embedded of this.embedded.values()) {
      const { program } = embedded
      if (!embedded.parts) {
        const parts = { file: new PdfStream(), descriptor: new PdfDict(), cidFont: new PdfDict(), toUnicode: new PdfStream() }
        embedded.font.set('Type', PdfName.of('Font'))
        embedded.font.set('Subtype', PdfName.of('Type0'))
        embedded.font.set('Encoding', PdfName.of('Identity-H'))
        embedded.font.set('DescendantFonts', new PdfArray([this.pdf.register(parts.cidFont)]))
        embedded.font.set('ToUnicode', this.pdf.register(parts.toUnicode))
        parts.cidFont.set('FontDescriptor', this.pdf.register(parts.descriptor))
        parts.descriptor.set('FontFile2', this.pdf.register(parts.file))
        embedded.parts = parts
      }
      const { file, descriptor, cidFont, toUnicode } = embedded.parts
      const glyphs = [...embedded.glyphs].sort((a, b) => a - b)
      const subset = subsetFont(program.bytes, glyphs, program.weight)
      file.setData(subset)
      file.set('Length1', PdfNumber.of(subset.length))
      toUnicode.setData(toUnicodeCMap(embedded.unicode))

      const name = PdfName.of(`${subsetTag(program, glyphs)}+${program.postScriptName}`)
      const { ascent, descent, capHeight, bbox } = program.metrics
      embedded.font.set('BaseFont', name)
      const entries: Record<string, PdfName | PdfNumber | PdfArray | PdfDict> = {
        Type: PdfName.of('FontDescriptor'),
        FontName: name,
        // Symbolic: glyphs are addressed by id, not through a standard encoding.
        Flags: PdfNumber.of(4),
        FontBBox: new PdfArray(bbox.map((value) => PdfNumber.of(value))),
        ItalicAngle: PdfNumber.of(0),
        Ascent: PdfNumber.of(ascent),
        Descent: PdfNumber.of(descent),
        CapHeight: PdfNumber.of(capHeight),
        StemV: PdfNumber.of(program.bold ? 140 : 80),
      }
      for (const [key, value] of Object.entries(entries)) descriptor.set(key, value)
      const cid: Record<string, PdfName | PdfArray | PdfDict> = {
        Type: PdfName.of('Font'),
        Subtype: PdfName.of('CIDFontType2'),
        BaseFont: name,
        CIDSystemInfo: PdfDict.of({ Registry: PdfString.fromString('Adobe'), Ordering: PdfString.fromString('Identity'), Supplement: PdfNumber.of(0) }),
        W: widthsArray(embedded, glyphs),
        CIDToGIDMap: PdfName.of('Identity'),
      }
      for (const [key, value] of Object.entries(cid)) cidFont.set(key, value)
    }
  }
}
