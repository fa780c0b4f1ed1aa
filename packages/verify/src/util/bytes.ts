/** Small byte helpers that work the same in Node and browsers (no Buffer). */

const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'))

export function toHex(bytes: Uint8Array): string {
  let out = ''
  for (const byte of bytes) out += HEX[byte]
  return out
}

export function toBase64(bytes: Uint8Array): string {
  let binary = ''
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000))
  return btoa(binary)
}

export function fromBase64(text: string): Uint8Array {
  const binary = atob(text.replace(/\s+/g, ''))
  const out = new Uint8Array(binary.length)
  for (let i = 0; i < binary.length; i++) out[i] = binary.charCodeAt(i)
  return out
}

/** Bytes as ISO-8859-1 text: every byte maps to one character, so offsets stay aligned. */
export function latin1(bytes: Uint8Array, start = 0, end = bytes.length): string {
  let out = ''
  for (let i = start; i < end; i += 0x8000) out += String.fromCharCode(...bytes.subarray(i, Math.min(end, i + 0x8000)))
  return out
}

export function asciiBytes(text: string): Uint8Array {
  const out = new Uint8Array(text.length)
  for (let i = 0; i < text.length; i++) out[i] = text.charCodeAt(i) & 0xff
  return out
}

export function bytesEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false
  return true
}

export function concatBytes(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0))
  let offset = 0
  for (const part of parts) {
    out.set(part, offset)
    offset += part.length
  }
  return out
}

/** Finds `needle` in `haystack` from `from`; -1 when absent. Uses the native single-byte indexOf to skip ahead. */
export function indexOfBytes(haystack: Uint8Array, needle: Uint8Array, from = 0, to = haystack.length): number {
  const first = needle[0]
  if (first === undefined) return from
  let i = haystack.indexOf(first, from)
  while (i !== -1 && i + needle.length <= to) {
    let j = 1
    while (j < needle.length && haystack[i + j] === needle[j]) j++
    if (j === needle.length) return i
    i = haystack.indexOf(first, i + 1)
  }
  return -1
}

/** Finds the last `needle` that starts before `before`; -1 when absent. */
export function lastIndexOfBytes(haystack: Uint8Array, needle: Uint8Array, before = haystack.length): number {
  const first = needle[0]
  if (first === undefined) return before
  let i = haystack.lastIndexOf(first, before - 1)
  while (i !== -1) {
    let j = 1
    while (j < needle.length && haystack[i + j] === needle[j]) j++
    if (j === needle.length && i + needle.length <= haystack.length) return i
    if (i === 0) return -1
    i = haystack.lastIndexOf(first, i - 1)
  }
  return -1
}

/** PDF white-space characters (ISO 32000-1, 7.2.2). */
export function isPdfWhitespace(byte: number | undefined): boolean {
  return byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09 || byte === 0x0c || byte === 0x00
}

/** True when bytes[start, end) hold only PDF white-space. */
export function onlyWhitespace(bytes: Uint8Array, start: number, end: number): boolean {
  for (let i = start; i < end; i++) if (!isPdfWhitespace(bytes[i])) return false
  return true
}

/**
 * TypeScript types Web Crypto and stream inputs as ArrayBuffer-backed views; ours always
 * are (the library never creates SharedArrayBuffers), so this only narrows the type.
 */
export function bufferSource(view: Uint8Array): Uint8Array<ArrayBuffer> {
  return view as Uint8Array<ArrayBuffer>
}

/** A copy. (Not `.slice()`: on a Node Buffer, which callers may pass, that is a view.) */
export function copyBytes(view: Uint8Array): Uint8Array<ArrayBuffer> {
  return new Uint8Array(view)
}
