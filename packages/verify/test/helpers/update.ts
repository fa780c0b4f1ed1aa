import { latin1 } from './pdf.ts'

/*
 * Hand-written incremental updates (always with a classic xref table, after a table or a stream),
 * to build attacks that no library would produce on purpose. Text search is fine here:
 * these are our own fixtures, and only the verifier must not work this way.
 */

/** The body (between "obj" and "endobj") of the last definition of object `num`. */
export function latestObject(bytes: Uint8Array, num: number): string {
  const text = latin1(bytes)
  const pattern = new RegExp(`(?:^|[\\r\\n])${num} 0 obj`, 'g')
  let start = -1
  for (const match of text.matchAll(pattern)) start = (match.index ?? 0) + match[0].length
  if (start < 0) throw new Error(`object ${num} not found`)
  return text.slice(start, text.indexOf('endobj', start)).trim()
}

function lastTrailer(bytes: Uint8Array): { startxref: number; size: number; root: string; info: string | null } {
  const text = latin1(bytes)
  const startxref = Number(/startxref\s+(\d+)\s+%%EOF\s*$/.exec(text)?.[1])
  // A table's trailer follows it; a cross-reference stream carries the same keys in its dictionary.
  const section = text.slice(startxref)
  const trailer = section.startsWith('xref') ? section.slice(section.indexOf('trailer')) : section.slice(0, section.indexOf('stream'))
  const size = Number(/\/Size (\d+)/.exec(trailer)?.[1])
  const root = /\/Root (\d+ \d+ R)/.exec(trailer)?.[1]
  if (!root || Number.isNaN(startxref) || Number.isNaN(size)) throw new Error('cannot read the last trailer')
  return { startxref, size, root, info: /\/Info (\d+ \d+ R)/.exec(trailer)?.[1] ?? null }
}

export interface UpdateOptions {
  /** Objects to free. */
  free?: number[]
  /** Bytes to write before the objects, unlisted in the xref (to test that they are noticed). */
  unlisted?: string
  /** Replaces the /Root reference. */
  root?: string
  /** Replaces the /Info reference. */
  info?: string
}

/** Appends an incremental update defining `objects` (number → body text) with an xref table and trailer. */
export function appendUpdate(bytes: Uint8Array, objects: Record<number, string>, options: UpdateOptions = {}): Uint8Array {
  const previous = lastTrailer(bytes)
  let text = options.unlisted ?? ''
  const offsets = new Map<number, number>()
  for (const [num, body] of Object.entries(objects)) {
    offsets.set(Number(num), bytes.length + text.length)
    text += `${num} 0 obj\n${body}\nendobj\n`
  }
  const xref = bytes.length + text.length
  const entries = [...offsets.entries()].map(([num, offset]) => ({ num, line: `${String(offset).padStart(10, '0')} 00000 n \n` }))
  for (const num of options.free ?? []) entries.push({ num, line: '0000000000 00001 f \n' })
  entries.sort((a, b) => a.num - b.num)
  text += 'xref\n'
  for (const entry of entries) text += `${entry.num} 1\n${entry.line}`
  const size = Math.max(previous.size, ...entries.map((entry) => entry.num + 1))
  text += `trailer\n<< /Size ${size} /Root ${options.root ?? previous.root}${(options.info ?? previous.info) ? ` /Info ${options.info ?? previous.info}` : ''} /Prev ${previous.startxref} >>\nstartxref\n${xref}\n%%EOF\n`
  return Buffer.concat([bytes, Buffer.from(text, 'latin1')])
}

/** Object number of the first object whose latest body matches `pattern`. */
export function findObject(bytes: Uint8Array, pattern: RegExp): number {
  const text = latin1(bytes)
  for (const match of text.matchAll(/(?:^|[\r\n])(\d+) 0 obj/g)) {
    const num = Number(match[1])
    if (pattern.test(latestObject(bytes, num))) return num
  }
  throw new Error(`no object matches ${pattern}`)
}
