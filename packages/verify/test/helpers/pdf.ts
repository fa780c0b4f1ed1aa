import { PDF, rgb } from '@libpdf/core'

/* Building and editing test PDFs. Edits keep byte lengths so offsets stay valid unless a test wants otherwise. */

export async function makeBasePdf(text = 'Signet test document'): Promise<Uint8Array> {
  const pdf = PDF.create()
  const page = pdf.addPage()
  page.drawText(text, { x: 72, y: 700, size: 18, color: rgb(0, 0, 0) })
  return pdf.save()
}

const encoder = new TextEncoder()
const decoder = new TextDecoder('latin1')

export function latin1(bytes: Uint8Array): string {
  return decoder.decode(bytes)
}

export function indexOf(bytes: Uint8Array, needle: string, from = 0): number {
  return latin1(bytes).indexOf(needle, from)
}

export function lastIndexOf(bytes: Uint8Array, needle: string): number {
  return latin1(bytes).lastIndexOf(needle)
}

/** Replaces bytes at `offset` with `text` (same length required unless `allowResize`). */
export function overwrite(bytes: Uint8Array, offset: number, text: string | Uint8Array): Uint8Array {
  const patch = typeof text === 'string' ? encoder.encode(text) : text
  const out = bytes.slice()
  out.set(patch, offset)
  return out
}

export interface SignatureLocation {
  /** Offset of "/ByteRange [" value's "[" and of its "]" */
  byteRangeStart: number
  byteRangeEnd: number
  byteRange: [number, number, number, number]
  /** Offsets of "<" and just after ">" of /Contents. */
  contentsStart: number
  contentsEnd: number
}

/** The n-th signature dictionary's ByteRange and Contents, by text search (tests only: the library never does this). */
export function locateSignature(bytes: Uint8Array, index = 0): SignatureLocation {
  const text = latin1(bytes)
  let at = -1
  for (let i = 0; i <= index; i++) at = text.indexOf('/ByteRange', at + 1)
  if (at < 0) throw new Error('no /ByteRange')
  const byteRangeStart = text.indexOf('[', at)
  const byteRangeEnd = text.indexOf(']', byteRangeStart)
  const numbers = text
    .slice(byteRangeStart + 1, byteRangeEnd)
    .trim()
    .split(/\s+/)
    .map(Number) as [number, number, number, number]
  const contentsKey = text.indexOf('/Contents', at - 400 > 0 ? at - 400 : 0)
  const contentsStart = text.indexOf('<', contentsKey)
  const contentsEnd = text.indexOf('>', contentsStart) + 1
  return { byteRangeStart, byteRangeEnd, byteRange: numbers, contentsStart, contentsEnd }
}

/** Writes a ByteRange with the same total width (padding with spaces) so no offset moves. */
export function setByteRange(bytes: Uint8Array, location: SignatureLocation, values: readonly number[]): Uint8Array {
  const width = location.byteRangeEnd - location.byteRangeStart - 1
  const body = values.join(' ')
  if (body.length > width) throw new Error('ByteRange does not fit')
  return overwrite(bytes, location.byteRangeStart + 1, body.padEnd(width, ' '))
}

/** The CMS bytes in /Contents (zero padding included). */
export function contentsBytes(bytes: Uint8Array, location: SignatureLocation): Uint8Array {
  return Buffer.from(latin1(bytes.subarray(location.contentsStart + 1, location.contentsEnd - 1)), 'hex')
}

/** Replaces /Contents with `der`, zero-padded to the placeholder's size. */
export function setContents(bytes: Uint8Array, location: SignatureLocation, der: Uint8Array): Uint8Array {
  const width = location.contentsEnd - location.contentsStart - 2
  const hex = Buffer.from(der).toString('hex').toUpperCase()
  if (hex.length > width) throw new Error('CMS does not fit the placeholder')
  return overwrite(bytes, location.contentsStart + 1, hex.padEnd(width, '0'))
}

/** The bytes a ByteRange covers, concatenated. */
export function signedBytes(bytes: Uint8Array, byteRange: readonly number[]): Uint8Array {
  const [a = 0, b = 0, c = 0, d = 0] = byteRange
  return Buffer.concat([bytes.subarray(a, a + b), bytes.subarray(c, c + d)])
}

export function append(bytes: Uint8Array, text: string): Uint8Array {
  return Buffer.concat([bytes, encoder.encode(text)])
}
