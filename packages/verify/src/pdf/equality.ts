import { PdfDict, PdfName, PdfRef, PdfStream, PdfString, type PdfValue } from './objects.ts'
import { bytesEqual } from '../util/bytes.ts'

/**
 * Structural equality of two PDF values, as a reader would see them: strings compare by
 * their bytes (hex or literal form alike), streams by dictionary and raw data. Used to
 * tell a real change from an object an incremental update merely rewrote unchanged.
 */
export function pdfEqual(a: PdfValue | undefined, b: PdfValue | undefined, bytes: Uint8Array, ignoreKeys: ReadonlySet<string> = new Set()): boolean {
  if (a === b) return true
  if (a === undefined || b === undefined || a === null || b === null) return (a ?? null) === (b ?? null)
  if (typeof a !== 'object' || typeof b !== 'object') return a === b
  if (a instanceof PdfName) return b instanceof PdfName && a.name === b.name
  if (a instanceof PdfRef) return b instanceof PdfRef && a.num === b.num && a.gen === b.gen
  if (a instanceof PdfString) return b instanceof PdfString && bytesEqual(a.bytes, b.bytes)
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((item, i) => pdfEqual(item, b[i], bytes))
  if (a instanceof PdfStream) {
    if (!(b instanceof PdfStream)) return false
    const lengthless = new Set([...ignoreKeys, 'Length'])
    return pdfEqual(a.dict, b.dict, bytes, lengthless) && bytesEqual(bytes.subarray(a.dataStart, a.dataEnd), bytes.subarray(b.dataStart, b.dataEnd))
  }
  if (a instanceof PdfDict) {
    if (!(b instanceof PdfDict)) return false
    const keys = new Set([...a.entries.keys(), ...b.entries.keys()])
    for (const key of keys) {
      if (ignoreKeys.has(key)) continue
      if (!pdfEqual(a.get(key), b.get(key), bytes)) return false
    }
    return true
  }
  return false
}

/** Keys whose values differ between two dictionaries. */
export function changedKeys(a: PdfDict, b: PdfDict, bytes: Uint8Array): string[] {
  const keys = new Set([...a.entries.keys(), ...b.entries.keys()])
  return [...keys].filter((key) => !pdfEqual(a.get(key), b.get(key), bytes)).sort()
}

/** Every reference inside a value (not following them). */
export function collectRefs(value: PdfValue | undefined, out: PdfRef[] = [], depth = 0): PdfRef[] {
  if (depth > 64 || value === undefined || value === null || typeof value !== 'object') return out
  if (value instanceof PdfRef) out.push(value)
  else if (Array.isArray(value)) for (const item of value) collectRefs(item, out, depth + 1)
  else if (value instanceof PdfDict) for (const item of value.entries.values()) collectRefs(item, out, depth + 1)
  else if (value instanceof PdfStream) collectRefs(value.dict, out, depth + 1)
  return out
}
