import { Lexer, PdfSyntaxError, type Token } from './lexer.ts'
import { PdfDict, PdfName, PdfRef, PdfStream, PdfString, type PdfValue } from './objects.ts'
import { indexOfBytes, asciiBytes } from '../util/bytes.ts'

/** Nesting deeper than this is refused: no real file needs it, and it bounds recursion. */
const MAX_DEPTH = 64

/** Reads one value, turning `n g R` into a reference. */
export function parseValue(lexer: Lexer, depth = 0): PdfValue {
  return valueFromToken(lexer, lexer.next(), depth)
}

function valueFromToken(lexer: Lexer, token: Token, depth: number): PdfValue {
  if (depth > MAX_DEPTH) throw new PdfSyntaxError('objects nested too deeply', token.start)
  switch (token.kind) {
    case 'number': {
      if (token.integer && token.value >= 0) {
        // Look ahead for "gen R" without consuming anything if it is not there.
        const save = lexer.pos
        const second = lexer.next()
        if (second.kind === 'number' && second.integer && second.value >= 0) {
          const third = lexer.next()
          if (third.kind === 'keyword' && third.value === 'R') return new PdfRef(token.value, second.value)
        }
        lexer.pos = save
      }
      return token.value
    }
    case 'name':
      return new PdfName(token.value)
    case 'string':
      return new PdfString(token.value, token.hex, token.start, token.end)
    case 'keyword':
      if (token.value === 'true') return true
      if (token.value === 'false') return false
      if (token.value === 'null') return null
      throw new PdfSyntaxError(`unexpected keyword "${token.value}"`, token.start)
    case 'delimiter':
      if (token.value === '[') {
        const items: PdfValue[] = []
        for (;;) {
          const next = lexer.next()
          if (next.kind === 'delimiter' && next.value === ']') return items
          if (next.kind === 'eof') throw new PdfSyntaxError('unterminated array', token.start)
          items.push(valueFromToken(lexer, next, depth + 1))
        }
      }
      if (token.value === '<<') {
        const entries = new Map<string, PdfValue>()
        for (;;) {
          const key = lexer.next()
          if (key.kind === 'delimiter' && key.value === '>>') return new PdfDict(entries)
          if (key.kind !== 'name') throw new PdfSyntaxError('dictionary key is not a name', key.start)
          const value = valueFromToken(lexer, lexer.next(), depth + 1)
          // A null value means the key is absent (7.3.7); the first definition wins.
          if (value !== null && !entries.has(key.value)) entries.set(key.value, value)
        }
      }
      throw new PdfSyntaxError(`unexpected "${token.value}"`, token.start)
    case 'eof':
      throw new PdfSyntaxError('unexpected end of data', token.start)
    default: {
      const never: never = token
      throw new Error(`unknown token ${String(never)}`)
    }
  }
}

export interface IndirectObject {
  num: number
  gen: number
  value: PdfValue
  /** File offset of "n g obj", or -1 for objects inside an object stream. */
  offset: number
  /** File offset just after "endobj" (or after the value when endobj is missing); -1 inside object streams. */
  end: number
}

const ENDSTREAM = asciiBytes('endstream')

/**
 * Parses "n g obj … endobj" at `offset`. `streamLength` resolves an indirect /Length;
 * when it cannot, or the length is wrong, the data is taken up to "endstream".
 */
export function parseIndirectObject(bytes: Uint8Array, offset: number, streamLength: (ref: PdfRef) => number | null): IndirectObject {
  const lexer = new Lexer(bytes, offset)
  const numToken = lexer.next()
  const genToken = lexer.next()
  const objToken = lexer.next()
  if (
    numToken.kind !== 'number' ||
    !numToken.integer ||
    genToken.kind !== 'number' ||
    !genToken.integer ||
    objToken.kind !== 'keyword' ||
    objToken.value !== 'obj'
  ) {
    throw new PdfSyntaxError('expected "n g obj"', offset)
  }
  let value = parseValue(lexer)
  const afterValue = lexer.pos
  const keyword = lexer.next()
  let end = afterValue
  if (keyword.kind === 'keyword' && keyword.value === 'stream') {
    if (!(value instanceof PdfDict)) throw new PdfSyntaxError('stream without a dictionary', keyword.start)
    let dataStart = keyword.end
    // "stream" is followed by CRLF or LF (a lone CR is tolerated).
    if (bytes[dataStart] === 0x0d) dataStart++
    if (bytes[dataStart] === 0x0a) dataStart++
    const lengthValue = value.get('Length')
    let length = typeof lengthValue === 'number' ? lengthValue : lengthValue instanceof PdfRef ? streamLength(lengthValue) : null
    if (length !== null && (!Number.isInteger(length) || length < 0 || !endstreamAt(bytes, dataStart + length))) length = null
    let dataEnd: number
    if (length === null) {
      const found = indexOfBytes(bytes, ENDSTREAM, dataStart)
      if (found === -1) throw new PdfSyntaxError('stream without endstream', dataStart)
      dataEnd = found
      // The EOL before "endstream" is not part of the data.
      if (bytes[dataEnd - 1] === 0x0a) dataEnd--
      if (bytes[dataEnd - 1] === 0x0d) dataEnd--
      dataEnd = Math.max(dataStart, dataEnd)
    } else {
      dataEnd = dataStart + length
    }
    value = new PdfStream(value, dataStart, dataEnd)
    const tail = new Lexer(bytes, dataEnd)
    tail.skipWhitespace()
    tail.pos = indexOfBytes(bytes, ENDSTREAM, tail.pos) + ENDSTREAM.length
    const endobj = tail.next()
    end = endobj.kind === 'keyword' && endobj.value === 'endobj' ? endobj.end : tail.pos
  } else if (keyword.kind === 'keyword' && keyword.value === 'endobj') {
    end = keyword.end
  }
  return { num: numToken.value, gen: genToken.value, value, offset, end }
}

function endstreamAt(bytes: Uint8Array, position: number): boolean {
  let i = position
  while (i < bytes.length && (bytes[i] === 0x0d || bytes[i] === 0x0a || bytes[i] === 0x20)) i++
  for (let k = 0; k < ENDSTREAM.length; k++) if (bytes[i + k] !== ENDSTREAM[k]) return false
  return true
}
