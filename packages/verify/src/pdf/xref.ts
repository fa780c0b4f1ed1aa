import { Lexer, PdfSyntaxError } from './lexer.ts'
import { PdfDict, PdfStream, type PdfValue } from './objects.ts'
import { parseIndirectObject, parseValue } from './parser.ts'
import { decodeStream } from './filters.ts'
import { asciiBytes, indexOfBytes, lastIndexOfBytes } from '../util/bytes.ts'

/**
 * Cross-reference sections (ISO 32000-1, 7.5.4 tables, 7.5.8 streams, 7.5.8.4 hybrid
 * files), read from the end of the file by following startxref and /Prev. Each section
 * also records where its revision ends (just after its "%%EOF"), which is where a
 * signature's ByteRange may legitimately stop.
 */

export type XrefEntry = { type: 0; gen: number } | { type: 1; offset: number; gen: number } | { type: 2; stream: number; index: number }

export interface XrefSection {
  /** Offset of the "xref" keyword or of the cross-reference stream object. */
  offset: number
  kind: 'table' | 'stream' | 'hybrid'
  entries: Map<number, XrefEntry>
  trailer: PdfDict
  /** Offsets of cross-reference stream objects that belong to this section. */
  streamOffsets: number[]
  /** Offset just past the trailer dictionary or the stream's "endobj". */
  dataEnd: number
  /** Offset just past the "%%EOF" that closes this section, or -1 when there is none. */
  eofEnd: number
}

const STARTXREF = asciiBytes('startxref')
const EOF_MARKER = asciiBytes('%%EOF')
const MAX_SECTIONS = 10_000

/**
 * Candidate startxref values, last one first (the file's real one unless junk was
 * appended). Lazy: earlier ones are only searched for when the last one fails.
 */
export function* startxrefCandidates(bytes: Uint8Array, max = 5): Generator<number> {
  let before = bytes.length
  for (let found = 0; found < max;) {
    const at = lastIndexOfBytes(bytes, STARTXREF, before)
    if (at === -1) return
    before = at
    const lexer = new Lexer(bytes, at + STARTXREF.length)
    try {
      const token = lexer.next()
      if (token.kind === 'number' && token.integer && token.value >= 0 && token.value < bytes.length) {
        found++
        yield token.value
      }
    } catch {
      // Not a number after this "startxref": keep looking.
    }
  }
}

function findEof(bytes: Uint8Array, from: number): number {
  const at = indexOfBytes(bytes, EOF_MARKER, from)
  return at === -1 ? -1 : at + EOF_MARKER.length
}

function nonNegativeInt(value: PdfValue | undefined): number | null {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0 ? value : null
}

function parseTable(bytes: Uint8Array, offset: number): { entries: Map<number, XrefEntry>; trailer: PdfDict; dataEnd: number } {
  const lexer = new Lexer(bytes, offset)
  const keyword = lexer.next()
  if (keyword.kind !== 'keyword' || keyword.value !== 'xref') throw new PdfSyntaxError('expected "xref"', offset)
  const entries = new Map<number, XrefEntry>()
  for (;;) {
    const token = lexer.next()
    if (token.kind === 'keyword' && token.value === 'trailer') break
    const countToken = lexer.next()
    if (token.kind !== 'number' || !token.integer || countToken.kind !== 'number' || !countToken.integer)
      throw new PdfSyntaxError('bad xref subsection header', token.start)
    for (let i = 0; i < countToken.value; i++) {
      const offsetToken = lexer.next()
      const genToken = lexer.next()
      const typeToken = lexer.next()
      if (offsetToken.kind !== 'number' || genToken.kind !== 'number' || typeToken.kind !== 'keyword')
        throw new PdfSyntaxError('bad xref entry', offsetToken.start)
      const num = token.value + i
      // Within one section the first entry for a number wins.
      if (entries.has(num)) continue
      if (typeToken.value === 'n') entries.set(num, { type: 1, offset: offsetToken.value, gen: genToken.value })
      else if (typeToken.value === 'f') entries.set(num, { type: 0, gen: genToken.value })
      else throw new PdfSyntaxError('bad xref entry type', typeToken.start)
    }
  }
  const trailer = parseValue(lexer)
  if (!(trailer instanceof PdfDict)) throw new PdfSyntaxError('trailer is not a dictionary', lexer.pos)
  return { entries, trailer, dataEnd: lexer.pos }
}

async function parseStream(bytes: Uint8Array, offset: number): Promise<{ entries: Map<number, XrefEntry>; trailer: PdfDict; dataEnd: number }> {
  const object = parseIndirectObject(bytes, offset, () => null)
  const stream = object.value
  if (!(stream instanceof PdfStream) || stream.dict.name('Type') !== 'XRef') throw new PdfSyntaxError('expected a cross-reference stream', offset)
  const dict = stream.dict
  const widths = dict.get('W')
  const size = nonNegativeInt(dict.get('Size'))
  if (!Array.isArray(widths) || widths.length < 3 || size === null) throw new PdfSyntaxError('bad cross-reference stream /W or /Size', offset)
  const w = widths.slice(0, 3).map((width) => nonNegativeInt(width) ?? -1)
  const [w1, w2, w3] = w as [number, number, number]
  if (w1 < 0 || w2 < 0 || w3 < 0 || w1 > 4 || w2 > 8 || w3 > 8) throw new PdfSyntaxError('bad cross-reference stream /W', offset)
  const indexValue = dict.get('Index')
  const index = Array.isArray(indexValue) ? indexValue.map((value) => nonNegativeInt(value) ?? -1) : [0, size]
  if (index.some((value) => value < 0) || index.length % 2 !== 0) throw new PdfSyntaxError('bad cross-reference stream /Index', offset)
  const data = await decodeStream(dict, bytes.subarray(stream.dataStart, stream.dataEnd))
  const rowLength = w1 + w2 + w3
  const field = (position: number, width: number): number => {
    let value = 0
    for (let i = 0; i < width; i++) value = value * 256 + (data[position + i] as number)
    return value
  }
  const entries = new Map<number, XrefEntry>()
  let position = 0
  for (let i = 0; i < index.length; i += 2) {
    const first = index[i] as number
    const count = index[i + 1] as number
    for (let k = 0; k < count; k++) {
      if (position + rowLength > data.length) throw new PdfSyntaxError('cross-reference stream too short', offset)
      const type = w1 === 0 ? 1 : field(position, w1)
      const second = field(position + w1, w2)
      const third = field(position + w1 + w2, w3)
      position += rowLength
      const num = first + k
      if (entries.has(num)) continue
      if (type === 0) entries.set(num, { type: 0, gen: third })
      else if (type === 1) entries.set(num, { type: 1, offset: second, gen: third })
      else if (type === 2) entries.set(num, { type: 2, stream: second, index: third })
      // Other types are reserved and mean "null object" (7.5.8.3).
    }
  }
  return { entries, trailer: dict, dataEnd: object.end }
}

async function parseSection(bytes: Uint8Array, offset: number): Promise<XrefSection> {
  const lexer = new Lexer(bytes, offset)
  lexer.skipWhitespace()
  const start = lexer.pos
  const first = lexer.next()
  if (first.kind === 'keyword' && first.value === 'xref') {
    const table = parseTable(bytes, start)
    const section: XrefSection = {
      offset: start,
      kind: 'table',
      entries: table.entries,
      trailer: table.trailer,
      streamOffsets: [],
      dataEnd: table.dataEnd,
      eofEnd: findEof(bytes, table.dataEnd),
    }
    const xrefStm = nonNegativeInt(table.trailer.get('XRefStm'))
    if (xrefStm !== null) {
      // Hybrid file: the stream supplements the table; the table's entries take precedence.
      const stream = await parseStream(bytes, xrefStm)
      for (const [num, entry] of stream.entries) if (!section.entries.has(num)) section.entries.set(num, entry)
      section.kind = 'hybrid'
      section.streamOffsets.push(xrefStm)
    }
    return section
  }
  const stream = await parseStream(bytes, start)
  return {
    offset: start,
    kind: 'stream',
    entries: stream.entries,
    trailer: stream.trailer,
    streamOffsets: [start],
    dataEnd: stream.dataEnd,
    eofEnd: findEof(bytes, stream.dataEnd),
  }
}

/** Every section reachable from `startxref`, newest first. */
export async function readXrefChain(bytes: Uint8Array, startxref: number): Promise<XrefSection[]> {
  const sections: XrefSection[] = []
  const visited = new Set<number>()
  let next: number | null = startxref
  while (next !== null) {
    if (visited.has(next)) throw new PdfSyntaxError('cross-reference /Prev loop', next)
    if (sections.length > MAX_SECTIONS) throw new PdfSyntaxError('too many cross-reference sections', next)
    visited.add(next)
    const section = await parseSection(bytes, next)
    sections.push(section)
    next = nonNegativeInt(section.trailer.get('Prev'))
  }
  return sections
}
