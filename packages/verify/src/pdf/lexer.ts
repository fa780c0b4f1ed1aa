import { isPdfWhitespace } from '../util/bytes.ts'

/**
 * A PDF tokenizer that works from any offset of the file: we never tokenize the
 * whole file, only the objects the verifier needs (ISO 32000-1, 7.2 and 7.3).
 */

export type Token =
  | { kind: 'number'; value: number; integer: boolean; start: number; end: number }
  | { kind: 'name'; value: string; start: number; end: number }
  | { kind: 'string'; value: Uint8Array; hex: boolean; start: number; end: number }
  | { kind: 'keyword'; value: string; start: number; end: number }
  | { kind: 'delimiter'; value: '[' | ']' | '<<' | '>>' | '{' | '}'; start: number; end: number }
  | { kind: 'eof'; start: number; end: number }

export class PdfSyntaxError extends Error {
  constructor(
    message: string,
    readonly offset: number,
  ) {
    super(`${message} at offset ${offset}`)
  }
}

function isDelimiter(byte: number | undefined): boolean {
  // ( ) < > [ ] { } / %
  return (
    byte === 0x28 ||
    byte === 0x29 ||
    byte === 0x3c ||
    byte === 0x3e ||
    byte === 0x5b ||
    byte === 0x5d ||
    byte === 0x7b ||
    byte === 0x7d ||
    byte === 0x2f ||
    byte === 0x25
  )
}

function hexValue(byte: number): number {
  if (byte >= 0x30 && byte <= 0x39) return byte - 0x30
  if (byte >= 0x41 && byte <= 0x46) return byte - 0x37
  if (byte >= 0x61 && byte <= 0x66) return byte - 0x57
  return -1
}

/**
 * A PDF number ([+-] digits [. digits] or [+-] . digits), or null when the token is not one.
 * Integers (most of what objects hold) are read straight from the bytes: the lexer's hot path.
 */
function parseNumber(bytes: Uint8Array, start: number, end: number): { value: number; integer: boolean } | null {
  let i = start
  let negative = false
  if (bytes[i] === 0x2b || bytes[i] === 0x2d) negative = bytes[i++] === 0x2d
  let value = 0
  let digits = 0
  for (; i < end && (bytes[i] as number) >= 0x30 && (bytes[i] as number) <= 0x39; i++, digits++) value = value * 10 + ((bytes[i] as number) - 0x30)
  if (i === end) return digits > 0 ? { value: negative ? -value : value, integer: true } : null
  if (bytes[i] !== 0x2e) return null
  for (i++; i < end && (bytes[i] as number) >= 0x30 && (bytes[i] as number) <= 0x39; i++) digits++
  if (i !== end || digits === 0) return null
  // Decimals go through Number() so they round exactly as the text says.
  let text = ''
  for (let k = start; k < end; k++) text += String.fromCharCode(bytes[k] as number)
  return { value: Number(text), integer: false }
}

/** Upper bound on one string token, so a malformed file cannot make us allocate the whole buffer twice. */
const MAX_STRING_BYTES = 64 * 1024 * 1024

export class Lexer {
  pos: number

  constructor(
    readonly bytes: Uint8Array,
    start = 0,
    readonly limit = bytes.length,
  ) {
    this.pos = start
  }

  /** Skips white-space and comments. */
  skipWhitespace(): void {
    const { bytes, limit } = this
    while (this.pos < limit) {
      const byte = bytes[this.pos]
      if (isPdfWhitespace(byte)) {
        this.pos++
      } else if (byte === 0x25) {
        while (this.pos < limit && bytes[this.pos] !== 0x0a && bytes[this.pos] !== 0x0d) this.pos++
      } else {
        return
      }
    }
  }

  next(): Token {
    this.skipWhitespace()
    const { bytes, limit } = this
    const start = this.pos
    if (start >= limit) return { kind: 'eof', start, end: start }
    const byte = bytes[start] as number
    switch (byte) {
      case 0x5b:
        this.pos++
        return { kind: 'delimiter', value: '[', start, end: this.pos }
      case 0x5d:
        this.pos++
        return { kind: 'delimiter', value: ']', start, end: this.pos }
      case 0x7b:
        this.pos++
        return { kind: 'delimiter', value: '{', start, end: this.pos }
      case 0x7d:
        this.pos++
        return { kind: 'delimiter', value: '}', start, end: this.pos }
      case 0x3c:
        if (bytes[start + 1] === 0x3c) {
          this.pos += 2
          return { kind: 'delimiter', value: '<<', start, end: this.pos }
        }
        return this.hexString()
      case 0x3e:
        if (bytes[start + 1] === 0x3e) {
          this.pos += 2
          return { kind: 'delimiter', value: '>>', start, end: this.pos }
        }
        throw new PdfSyntaxError('unexpected ">"', start)
      case 0x28:
        return this.literalString()
      case 0x2f:
        return this.name()
      case 0x29:
        throw new PdfSyntaxError('unexpected ")"', start)
      default:
        break
    }
    // A regular token: a number or a keyword.
    let end = start
    while (end < limit && !isPdfWhitespace(bytes[end]) && !isDelimiter(bytes[end])) end++
    this.pos = end
    const number = parseNumber(bytes, start, end)
    if (number) return { kind: 'number', value: number.value, integer: number.integer, start, end }
    let text = ''
    for (let i = start; i < end; i++) text += String.fromCharCode(bytes[i] as number)
    return { kind: 'keyword', value: text, start, end }
  }

  private name(): Token {
    const { bytes, limit } = this
    const start = this.pos
    let end = start + 1
    while (end < limit && !isPdfWhitespace(bytes[end]) && !isDelimiter(bytes[end])) end++
    let value = ''
    for (let i = start + 1; i < end; i++) {
      const byte = bytes[i] as number
      if (byte === 0x23 && i + 2 < end + 1) {
        const high = hexValue(bytes[i + 1] ?? 0)
        const low = hexValue(bytes[i + 2] ?? 0)
        if (high >= 0 && low >= 0) {
          value += String.fromCharCode(high * 16 + low)
          i += 2
          continue
        }
      }
      value += String.fromCharCode(byte)
    }
    this.pos = end
    return { kind: 'name', value, start, end }
  }

  private hexString(): Token {
    const { bytes, limit } = this
    const start = this.pos
    const close = bytes.indexOf(0x3e, start + 1)
    if (close === -1 || close >= limit) throw new PdfSyntaxError('unterminated hex string', start)
    if (close - start > MAX_STRING_BYTES * 2) throw new PdfSyntaxError('hex string too long', start)
    const out = new Uint8Array(Math.ceil((close - start - 1) / 2))
    let count = 0
    let high = -1
    for (let i = start + 1; i < close; i++) {
      const byte = bytes[i] as number
      if (isPdfWhitespace(byte)) continue
      const value = hexValue(byte)
      if (value < 0) throw new PdfSyntaxError('invalid character in hex string', i)
      if (high < 0) {
        high = value
      } else {
        out[count++] = high * 16 + value
        high = -1
      }
    }
    if (high >= 0) out[count++] = high * 16
    this.pos = close + 1
    return { kind: 'string', value: out.subarray(0, count), hex: true, start, end: this.pos }
  }

  private literalString(): Token {
    const { bytes, limit } = this
    const start = this.pos
    const out: number[] = []
    let depth = 1
    let i = start + 1
    while (i < limit) {
      const byte = bytes[i] as number
      if (byte === 0x5c) {
        const escaped = bytes[i + 1]
        i += 2
        switch (escaped) {
          case 0x6e:
            out.push(0x0a)
            break
          case 0x72:
            out.push(0x0d)
            break
          case 0x74:
            out.push(0x09)
            break
          case 0x62:
            out.push(0x08)
            break
          case 0x66:
            out.push(0x0c)
            break
          case 0x28:
          case 0x29:
          case 0x5c:
            out.push(escaped)
            break
          case 0x0d:
            if (bytes[i] === 0x0a) i++
            break
          case 0x0a:
            break
          case undefined:
            break
          default:
            if (escaped >= 0x30 && escaped <= 0x37) {
              let code = escaped - 0x30
              for (let k = 0; k < 2 && (bytes[i] ?? 0) >= 0x30 && (bytes[i] ?? 0) <= 0x37; k++) code = code * 8 + ((bytes[i++] as number) - 0x30)
              out.push(code & 0xff)
            } else {
              out.push(escaped)
            }
        }
        continue
      }
      if (byte === 0x28) depth++
      if (byte === 0x29 && --depth === 0) {
        this.pos = i + 1
        return { kind: 'string', value: Uint8Array.from(out), hex: false, start, end: this.pos }
      }
      out.push(byte)
      if (out.length > MAX_STRING_BYTES) throw new PdfSyntaxError('string too long', start)
      i++
    }
    throw new PdfSyntaxError('unterminated string', start)
  }
}
