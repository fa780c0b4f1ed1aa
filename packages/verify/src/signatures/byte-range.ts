import type { PdfDocument } from '../pdf/document.ts'
import type { PdfString } from '../pdf/objects.ts'
import { onlyWhitespace } from '../util/bytes.ts'
import type { SignatureField } from './fields.ts'

/**
 * The ByteRange rules that defeat the known signature-wrapping attacks:
 * exactly two ranges; the first starts at byte 0; the gap between them is exactly the
 * /Contents hex string of this very signature dictionary, located at its real object
 * offset (through the cross-reference table, not by searching); and the second range
 * ends at the end of a revision (just after an %%EOF of the cross-reference chain).
 * Anything after that end must be an allowed incremental update (see changes.ts).
 */

export interface ByteRangeCheck {
  /** The /ByteRange numbers as found (empty when unreadable). */
  byteRange: number[]
  /** [start, length] pairs safe to hash, or null when out of bounds or malformed. */
  ranges: [number, number][] | null
  /** Index of the revision the signed bytes end with, or null. */
  revision: number | null
  /** End of the signed bytes. */
  end: number
  /** Structural violations; any of them makes the verdict "mismatch". */
  problems: string[]
}

export function checkByteRange(doc: PdfDocument, field: SignatureField, contents: PdfString | null): ByteRangeCheck {
  const bytes = doc.bytes
  const value = field.dict.get('ByteRange')
  const numbers = Array.isArray(value) ? value.filter((item): item is number => typeof item === 'number') : []
  const result: ByteRangeCheck = { byteRange: numbers, ranges: null, revision: null, end: -1, problems: [] }
  if (!Array.isArray(value) || value.length !== 4 || numbers.length !== 4 || numbers.some((n) => !Number.isInteger(n) || n < 0)) {
    result.problems.push(`/ByteRange must be four non-negative integers (two ranges), found ${Array.isArray(value) ? `${value.length} entries` : 'none'}`)
    return result
  }
  const [start1, length1, start2, length2] = numbers as [number, number, number, number]
  const gapStart = start1 + length1
  result.end = start2 + length2
  if (start1 !== 0) result.problems.push(`the signed ranges start at byte ${start1}, not at the beginning of the file`)
  if (start2 < gapStart) result.problems.push('the two signed ranges overlap or are out of order')
  if (result.end > bytes.length) result.problems.push(`the signed ranges end at byte ${result.end}, beyond the end of the file (${bytes.length})`)
  else if (start2 >= gapStart)
    result.ranges = [
      [start1, length1],
      [start2, length2],
    ]

  if (!contents) {
    result.problems.push('the signature dictionary has no /Contents string')
  } else if (field.container.offset < 0) {
    result.problems.push('the signature dictionary is inside an object stream, so its /Contents cannot be excluded by a ByteRange')
  } else {
    if (!contents.hex) result.problems.push('/Contents is not a hexadecimal string')
    if (gapStart !== contents.start || start2 !== contents.end) {
      result.problems.push(
        `the unsigned gap (bytes ${gapStart}–${start2}) is not exactly this signature's /Contents value (bytes ${contents.start}–${contents.end})`,
      )
    }
  }

  // Which revision do the signed bytes end with? Allow the whitespace that follows %%EOF.
  for (const revision of doc.revisions) {
    if (revision.eofEnd >= 0 && revision.eofEnd <= result.end && onlyWhitespace(bytes, revision.eofEnd, result.end)) result.revision = revision.index
  }
  if (result.revision === null && result.end <= bytes.length) {
    result.problems.push(`the signed ranges end at byte ${result.end}, which is not the end of a revision (an %%EOF of the cross-reference chain)`)
  }
  if (result.revision !== null && field.container.offset >= 0) {
    const revision = doc.revisions[result.revision]
    if (revision && field.container.end > revision.end) result.problems.push('the signature dictionary lies outside the revision it signs')
  }
  return result
}
