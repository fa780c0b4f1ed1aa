import type { PdfDocument } from '../pdf/document.ts'
import { Lexer } from '../pdf/lexer.ts'
import { parseIndirectObject } from '../pdf/parser.ts'

/**
 * The bytes of an incremental update must be exactly what its cross-reference section
 * says: a sequence of listed objects, the cross-reference table or stream, the trailer,
 * startxref and %%EOF. An object body that is not listed (which a repairing reader might
 * still pick up), an entry pointing into the middle of other data, or any other bytes
 * are reported: that is how content "appended without an xref" is caught.
 */
export function checkUpdateLayout(doc: PdfDocument, revisionIndex: number): string[] {
  const revision = doc.revisions[revisionIndex]
  if (!revision) return []
  const bytes = doc.bytes
  const problems: string[] = []
  const where = `the update ending at byte ${revision.end}`
  if (revision.eofEnd < 0) return [`${where} has no %%EOF`]
  const start = revision.start
  const stop = revision.eofEnd

  // Offsets this revision's cross-reference data expects to find objects at.
  const listed = new Map<number, number>()
  for (const [num, entry] of revision.entries) if (entry.type === 1 && entry.offset >= start && entry.offset < stop) listed.set(entry.offset, num)
  const streams = new Set(revision.sections.flatMap((section) => section.streamOffsets))
  const tables = new Map(revision.sections.filter((section) => section.kind !== 'stream').map((section) => [section.offset, section.dataEnd]))
  const seen = new Set<number>()

  const lexer = new Lexer(bytes, start, stop)
  for (;;) {
    lexer.skipWhitespace()
    const position = lexer.pos
    if (position >= stop) break
    const token = lexer.next()
    if (token.kind === 'keyword' && token.value === 'xref' && tables.has(position)) {
      lexer.pos = tables.get(position) as number
      continue
    }
    if (token.kind === 'keyword' && token.value === 'startxref') {
      const value = lexer.next()
      if (value.kind !== 'number') {
        problems.push(`${where}: malformed startxref at byte ${position}`)
        break
      }
      continue
    }
    if (token.kind === 'number' && token.integer) {
      const num = listed.get(position)
      if (num === undefined && !streams.has(position)) {
        problems.push(`${where}: object data at byte ${position} is not listed in its cross-reference section`)
        break
      }
      try {
        const object = parseIndirectObject(bytes, position, () => null)
        if (num !== undefined && object.num !== num) {
          problems.push(`${where}: the cross-reference entry for object ${num} points at object ${object.num}`)
          break
        }
        seen.add(position)
        lexer.pos = object.end
        continue
      } catch (error) {
        problems.push(`${where}: unreadable object at byte ${position} (${error instanceof Error ? error.message : String(error)})`)
        break
      }
    }
    problems.push(`${where}: unexpected data at byte ${position}`)
    break
  }
  if (problems.length === 0) {
    for (const [offset, num] of listed)
      if (!seen.has(offset)) problems.push(`${where}: the cross-reference entry for object ${num} points into other data (byte ${offset})`)
  }
  return problems
}
