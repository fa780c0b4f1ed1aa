import { concatBytes } from '../util/bytes.ts'
/**
 * A minimal BER/DER reader that keeps the raw bytes of every element. Signatures are
 * computed over exact encodings (signed attributes, TBSCertificate, SubjectPublicKeyInfo),
 * so we slice those from the input rather than re-encode parsed structures.
 */

export class Asn1Error extends Error {}

export interface Der {
  readonly buffer: Uint8Array
  /** Identifier octet (tag class, constructed bit, low tag number). */
  readonly tag: number
  readonly constructed: boolean
  readonly start: number
  readonly contentStart: number
  /** End of the contents (before an end-of-contents marker for indefinite lengths). */
  readonly contentEnd: number
  readonly end: number
}

export const TAG = {
  BOOLEAN: 0x01,
  INTEGER: 0x02,
  BIT_STRING: 0x03,
  OCTET_STRING: 0x04,
  NULL: 0x05,
  OID: 0x06,
  SEQUENCE: 0x30,
  SET: 0x31,
  UTC_TIME: 0x17,
  GENERALIZED_TIME: 0x18,
} as const

/** Context-specific tag [n], constructed or primitive. */
export function contextTag(n: number, constructed: boolean): number {
  return 0x80 | (constructed ? 0x20 : 0) | n
}

const MAX_DEPTH = 64

export function readDer(buffer: Uint8Array, offset = 0, limit = buffer.length, depth = 0): Der {
  if (depth > MAX_DEPTH) throw new Asn1Error('ASN.1 nested too deeply')
  let pos = offset
  if (pos >= limit) throw new Asn1Error('truncated ASN.1 element')
  const tag = buffer[pos++] as number
  if ((tag & 0x1f) === 0x1f) throw new Asn1Error('high tag numbers are not supported')
  const constructed = (tag & 0x20) !== 0
  if (pos >= limit) throw new Asn1Error('truncated ASN.1 length')
  const first = buffer[pos++] as number
  if (first === 0x80) {
    if (!constructed) throw new Asn1Error('indefinite length on a primitive element')
    const contentStart = pos
    for (;;) {
      if (pos + 2 > limit) throw new Asn1Error('unterminated indefinite length')
      if (buffer[pos] === 0 && buffer[pos + 1] === 0) return { buffer, tag, constructed, start: offset, contentStart, contentEnd: pos, end: pos + 2 }
      pos = readDer(buffer, pos, limit, depth + 1).end
    }
  }
  let length = first
  if (first & 0x80) {
    const count = first & 0x7f
    if (count > 4) throw new Asn1Error('ASN.1 length too large')
    length = 0
    for (let i = 0; i < count; i++) {
      if (pos >= limit) throw new Asn1Error('truncated ASN.1 length')
      length = length * 256 + (buffer[pos++] as number)
    }
  }
  const end = pos + length
  if (end > limit) throw new Asn1Error('ASN.1 element runs past its container')
  return { buffer, tag, constructed, start: offset, contentStart: pos, contentEnd: end, end }
}

export function children(element: Der, depth = 0): Der[] {
  if (!element.constructed) throw new Asn1Error('expected a constructed element')
  const out: Der[] = []
  let pos = element.contentStart
  while (pos < element.contentEnd) {
    const child = readDer(element.buffer, pos, element.contentEnd, depth + 1)
    out.push(child)
    pos = child.end
  }
  return out
}

/** The element with its header, as encoded. */
export function raw(element: Der): Uint8Array {
  return element.buffer.subarray(element.start, element.end)
}

export function content(element: Der): Uint8Array {
  return element.buffer.subarray(element.contentStart, element.contentEnd)
}

export function expect(element: Der | undefined, tag: number, what: string): Der {
  if (!element || element.tag !== tag) throw new Asn1Error(`expected ${what}`)
  return element
}

/** Contents of an OCTET STRING, joining the segments of a (BER) constructed one. */
export function octets(element: Der): Uint8Array {
  if ((element.tag & 0x1f) !== TAG.OCTET_STRING && (element.tag & 0xc0) === 0) throw new Asn1Error('expected OCTET STRING')
  if (!element.constructed) return content(element)
  return concatBytes(children(element).map(octets))
}

export function oid(element: Der): string {
  if (element.tag !== TAG.OID) throw new Asn1Error('expected OBJECT IDENTIFIER')
  const bytes = content(element)
  const parts: number[] = []
  let value = 0
  for (const byte of bytes) {
    value = value * 128 + (byte & 0x7f)
    if ((byte & 0x80) === 0) {
      if (parts.length === 0) {
        const first = value < 80 ? Math.floor(value / 40) : 2
        parts.push(first, value - first * 40)
      } else {
        parts.push(value)
      }
      value = 0
    }
  }
  return parts.join('.')
}

/** An INTEGER's magnitude as lowercase hex without leading zero bytes. */
export function integerHex(element: Der): string {
  if (element.tag !== TAG.INTEGER) throw new Asn1Error('expected INTEGER')
  let bytes = content(element)
  while (bytes.length > 1 && bytes[0] === 0) bytes = bytes.subarray(1)
  let out = ''
  for (const byte of bytes) out += byte.toString(16).padStart(2, '0')
  return out
}

export function smallInteger(element: Der): number {
  if (element.tag !== TAG.INTEGER) throw new Asn1Error('expected INTEGER')
  let value = 0
  for (const byte of content(element)) value = value * 256 + byte
  return value
}

/** UTCTime or GeneralizedTime (with optional fractional seconds) as a Date. */
export function time(element: Der): Date {
  let text = ''
  for (const byte of content(element)) text += String.fromCharCode(byte)
  let match: RegExpExecArray | null
  if (element.tag === TAG.UTC_TIME) {
    match = /^(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})?Z$/.exec(text)
    if (!match) throw new Asn1Error('bad UTCTime')
    const year = Number(match[1])
    return new Date(
      Date.UTC(year < 50 ? 2000 + year : 1900 + year, Number(match[2]) - 1, Number(match[3]), Number(match[4]), Number(match[5]), Number(match[6] ?? 0)),
    )
  }
  if (element.tag === TAG.GENERALIZED_TIME) {
    match = /^(\d{4})(\d{2})(\d{2})(\d{2})(\d{2})?(\d{2})?(?:[.,](\d+))?Z$/.exec(text)
    if (!match) throw new Asn1Error('bad GeneralizedTime')
    const millis = match[7] ? Math.floor(Number(`0.${match[7]}`) * 1000) : 0
    return new Date(Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3]), Number(match[4]), Number(match[5] ?? 0), Number(match[6] ?? 0), millis))
  }
  throw new Asn1Error('expected a time')
}
