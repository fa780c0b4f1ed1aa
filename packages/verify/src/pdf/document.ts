import { Lexer, PdfSyntaxError } from './lexer.ts'
import { PdfDict, PdfRef, PdfStream, type PdfValue } from './objects.ts'
import { parseIndirectObject, parseValue, type IndirectObject } from './parser.ts'
import { decodeStream } from './filters.ts'
import { readXrefChain, startxrefCandidates, type XrefEntry, type XrefSection } from './xref.ts'

/**
 * A PDF opened for verification: its revisions (one per cross-reference section, in
 * file order) and lazy access to objects as of any revision. Nothing is parsed until
 * asked for, so a 50 MB file costs a few small reads here.
 */

export interface Revision {
  index: number
  /** The cross-reference sections closed by this revision's %%EOF (usually one), newest first. */
  sections: XrefSection[]
  entries: Map<number, XrefEntry>
  trailer: PdfDict
  /** First byte of the revision: the previous revision's `end`, or 0. */
  start: number
  /** Offset just past this revision's "%%EOF" (-1 when the section has none). */
  eofEnd: number
  /** `eofEnd` plus one end-of-line marker: where an incremental update would start. */
  end: number
}

interface ObjectStream {
  data: Uint8Array
  first: number
  offsets: Map<number, number>
  order: number[]
}

export class PdfDocument {
  private readonly objects = new Map<number, IndirectObject>()
  private readonly compressed = new Map<string, IndirectObject>()
  private readonly objectStreams = new Map<number, Promise<ObjectStream>>()

  private constructor(
    readonly bytes: Uint8Array,
    readonly revisions: Revision[],
    /** True when the file's last "startxref" was unusable and an earlier one was followed. */
    readonly skippedStartxref: boolean,
  ) {}

  /** Reads the cross-reference chain; throws PdfSyntaxError when the file has no usable one. */
  static async open(bytes: Uint8Array): Promise<PdfDocument> {
    let lastError: unknown = null
    let attempt = 0
    for (const startxref of startxrefCandidates(bytes)) {
      try {
        const sections = await readXrefChain(bytes, startxref)
        return new PdfDocument(bytes, buildRevisions(bytes, sections), attempt > 0)
      } catch (error) {
        lastError = error
      }
      attempt++
    }
    if (lastError === null) throw new PdfSyntaxError('no startxref found', bytes.length)
    throw lastError instanceof Error ? lastError : new PdfSyntaxError('unreadable cross-reference table', bytes.length)
  }

  get last(): number {
    return this.revisions.length - 1
  }

  trailer(revision = this.last): PdfDict {
    return (this.revisions[revision] as Revision).trailer
  }

  /** The cross-reference entry of object `num` as of `revision` (null when never defined). */
  entry(num: number, revision = this.last): XrefEntry | null {
    for (let r = Math.min(revision, this.last); r >= 0; r--) {
      const found = (this.revisions[r] as Revision).entries.get(num)
      if (found) return found
    }
    return null
  }

  /** The object `num` as of `revision`; null when free or undefined. Throws when it cannot be parsed. */
  async getObject(num: number, revision = this.last): Promise<IndirectObject | null> {
    const entry = this.entry(num, revision)
    if (!entry || entry.type === 0 || num === 0) return null
    if (entry.type === 1) return this.objectAt(num, entry.offset, revision)
    const key = `${entry.stream}:${this.entryKey(entry.stream, revision)}:${entry.index}`
    const cached = this.compressed.get(key)
    if (cached) return cached
    const container = await this.objectStream(entry.stream, revision)
    const offset = container.offsets.get(num)
    if (offset === undefined || container.order[entry.index] !== num) throw new PdfSyntaxError(`object ${num} is not in object stream ${entry.stream}`, 0)
    const lexer = new Lexer(container.data, container.first + offset)
    const object: IndirectObject = { num, gen: 0, value: parseValue(lexer), offset: -1, end: -1 }
    this.compressed.set(key, object)
    return object
  }

  /** Like getObject, but the generation must match the reference's, as a reader would require. */
  async getRef(ref: PdfRef, revision = this.last): Promise<IndirectObject | null> {
    const entry = this.entry(ref.num, revision)
    if (!entry) return null
    if (entry.type === 1 && entry.gen !== ref.gen) return null
    if (entry.type === 2 && ref.gen !== 0) return null
    return this.getObject(ref.num, revision)
  }

  /** Follows references; anything missing or unparseable is null, as for a PDF reader. */
  async resolve(value: PdfValue | undefined, revision = this.last): Promise<PdfValue> {
    let current: PdfValue | undefined = value
    for (let hops = 0; current instanceof PdfRef; hops++) {
      if (hops > 32) return null
      try {
        current = (await this.getRef(current, revision))?.value ?? null
      } catch {
        return null
      }
    }
    return current ?? null
  }

  async resolveDict(value: PdfValue | undefined, revision = this.last): Promise<PdfDict | null> {
    const resolved = await this.resolve(value, revision)
    return resolved instanceof PdfDict ? resolved : null
  }

  async resolveArray(value: PdfValue | undefined, revision = this.last): Promise<PdfValue[] | null> {
    const resolved = await this.resolve(value, revision)
    return Array.isArray(resolved) ? resolved : null
  }

  /** Raw (still encoded) stream data, a view into the file. */
  rawStream(stream: PdfStream): Uint8Array {
    return this.bytes.subarray(stream.dataStart, stream.dataEnd)
  }

  async decodedStream(stream: PdfStream): Promise<Uint8Array> {
    return decodeStream(stream.dict, this.rawStream(stream))
  }

  private entryKey(num: number, revision: number): number {
    const entry = this.entry(num, revision)
    return entry?.type === 1 ? entry.offset : -1
  }

  private objectAt(num: number, offset: number, revision: number): IndirectObject {
    const cached = this.objects.get(offset)
    if (cached) {
      if (cached.num !== num) throw new PdfSyntaxError(`cross-reference entry for object ${num} points at object ${cached.num}`, offset)
      return cached
    }
    if (offset >= this.bytes.length) throw new PdfSyntaxError(`object ${num} lies beyond the end of the file`, offset)
    const object = parseIndirectObject(this.bytes, offset, (ref) => this.directLength(ref, revision))
    if (object.num !== num) throw new PdfSyntaxError(`cross-reference entry for object ${num} points at object ${object.num}`, offset)
    this.objects.set(offset, object)
    return object
  }

  /** An indirect /Length, resolved synchronously when it is a plain object in the file. */
  private directLength(ref: PdfRef, revision: number): number | null {
    const entry = this.entry(ref.num, revision)
    if (entry?.type !== 1) return null
    try {
      const value = parseIndirectObject(this.bytes, entry.offset, () => null).value
      return typeof value === 'number' ? value : null
    } catch {
      return null
    }
  }

  private objectStream(num: number, revision: number): Promise<ObjectStream> {
    const key = this.entryKey(num, revision)
    let pending = this.objectStreams.get(key)
    if (!pending) {
      pending = this.loadObjectStream(num, revision)
      this.objectStreams.set(key, pending)
    }
    return pending
  }

  private async loadObjectStream(num: number, revision: number): Promise<ObjectStream> {
    const entry = this.entry(num, revision)
    if (entry?.type !== 1) throw new PdfSyntaxError(`object stream ${num} is not a plain object`, 0)
    const object = this.objectAt(num, entry.offset, revision)
    const stream = object.value
    if (!(stream instanceof PdfStream) || stream.dict.name('Type') !== 'ObjStm') throw new PdfSyntaxError(`object ${num} is not an object stream`, entry.offset)
    const count = stream.dict.get('N')
    const first = stream.dict.get('First')
    if (typeof count !== 'number' || typeof first !== 'number') throw new PdfSyntaxError('object stream without /N or /First', entry.offset)
    const data = await this.decodedStream(stream)
    const lexer = new Lexer(data, 0, first)
    const offsets = new Map<number, number>()
    const order: number[] = []
    for (let i = 0; i < count; i++) {
      const objNum = lexer.next()
      const objOffset = lexer.next()
      if (objNum.kind !== 'number' || objOffset.kind !== 'number') throw new PdfSyntaxError('bad object stream header', entry.offset)
      if (!offsets.has(objNum.value)) offsets.set(objNum.value, objOffset.value)
      order.push(objNum.value)
    }
    return { data, first, offsets, order }
  }
}

function buildRevisions(bytes: Uint8Array, chain: XrefSection[]): Revision[] {
  // File order: by the %%EOF that closes each section (sections without one sort by where their data ends).
  const ordered = chain
    .map((section, chainIndex) => ({ section, chainIndex, key: section.eofEnd >= 0 ? section.eofEnd : section.dataEnd }))
    .sort((a, b) => a.key - b.key || a.chainIndex - b.chainIndex)
  const revisions: Revision[] = []
  for (const { section, key } of ordered) {
    const previous = revisions[revisions.length - 1]
    if (previous && previous.eofEnd === section.eofEnd && section.eofEnd >= 0) {
      // Two sections closed by one %%EOF: the earlier in the chain (newer) wins.
      for (const [num, entry] of section.entries) if (!previous.entries.has(num)) previous.entries.set(num, entry)
      previous.sections.push(section)
      continue
    }
    revisions.push({
      index: revisions.length,
      sections: [section],
      entries: new Map(section.entries),
      trailer: section.trailer,
      start: previous?.end ?? 0,
      eofEnd: section.eofEnd,
      end: section.eofEnd >= 0 ? afterEol(bytes, section.eofEnd) : key,
    })
  }
  return revisions
}

/** Offset after one end-of-line marker at `position` (CRLF, LF or CR). */
export function afterEol(bytes: Uint8Array, position: number): number {
  if (bytes[position] === 0x0d) return bytes[position + 1] === 0x0a ? position + 2 : position + 1
  if (bytes[position] === 0x0a) return position + 1
  return position
}
