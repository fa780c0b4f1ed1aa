const BYTE_RANGE = /\/ByteRange\s*\[\s*(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s*\]/g

/**
 * The CMS bytes (/Contents) of the signature made last, or null if the PDF has none.
 *
 * A signature's /ByteRange leaves out exactly its /Contents string, so the gap between
 * the two ranges *is* the hex string; no object parsing is needed. Signature
 * dictionaries are never compressed (their ranges are patched in place), so the scan
 * finds them all. The last signature is the one covering the most of the file: each
 * later incremental signature covers everything before it.
 */
export function lastSignatureContents(pdf: Uint8Array): Uint8Array | null {
  const text = Buffer.from(pdf.buffer, pdf.byteOffset, pdf.byteLength).toString('latin1')
  let last: { gapStart: number; gapEnd: number; coveredUpTo: number } | null = null
  for (const match of text.matchAll(BYTE_RANGE)) {
    const [start, firstLength, secondStart, secondLength] = match.slice(1).map(Number) as [number, number, number, number]
    const coveredUpTo = secondStart + secondLength
    // Only a complete range over this file's own bytes (placeholders and mangled ranges are skipped).
    if (start !== 0 || secondStart <= firstLength || coveredUpTo > pdf.length) continue
    if (!last || coveredUpTo >= last.coveredUpTo) last = { gapStart: firstLength, gapEnd: secondStart, coveredUpTo }
  }
  if (!last) return null
  const hexString = /^<([0-9A-Fa-f\s]*)>$/.exec(text.slice(last.gapStart, last.gapEnd))
  if (!hexString?.[1]) return null
  return new Uint8Array(Buffer.from(hexString[1].replace(/\s+/g, ''), 'hex'))
}
