/**
 * The PDF object model, kept minimal: values are plain JS where possible
 * (null, boolean, number, arrays) and small classes where identity matters.
 */

export class PdfName {
  constructor(readonly name: string) {}
}

export class PdfRef {
  constructor(
    readonly num: number,
    readonly gen: number,
  ) {}
  toString(): string {
    return `${this.num} ${this.gen} R`
  }
}

export class PdfString {
  /**
   * `start`/`end` are offsets of the whole token (delimiters included) in the buffer it
   * was parsed from. For objects read from the file they are file offsets: the
   * signature's ByteRange gap is checked against them.
   */
  constructor(
    readonly bytes: Uint8Array,
    readonly hex: boolean,
    readonly start: number,
    readonly end: number,
  ) {}
}

export class PdfDict {
  constructor(readonly entries: Map<string, PdfValue>) {}
  get(key: string): PdfValue | undefined {
    return this.entries.get(key)
  }
  has(key: string): boolean {
    return this.entries.has(key)
  }
  /** The value of /key when it is a name, else null. */
  name(key: string): string | null {
    const value = this.entries.get(key)
    return value instanceof PdfName ? value.name : null
  }
}

export class PdfStream {
  /** `dataStart`/`dataEnd` are file offsets of the raw (still encoded) stream data. */
  constructor(
    readonly dict: PdfDict,
    readonly dataStart: number,
    readonly dataEnd: number,
  ) {}
}

export type PdfValue = null | boolean | number | PdfName | PdfString | PdfRef | PdfDict | PdfStream | PdfValue[]

/** A short human description of a value, for reports. */
export function describe(value: PdfValue | undefined): string {
  if (value === undefined || value === null) return 'null'
  if (value instanceof PdfStream) {
    const type = value.dict.name('Type') ?? value.dict.name('Subtype')
    return type ? `${type} stream` : 'stream'
  }
  if (value instanceof PdfDict) {
    const type = value.name('Type') ?? (value.name('FT') ? `${value.name('FT')} field` : null)
    return type ? `/${type} dictionary` : 'dictionary'
  }
  if (Array.isArray(value)) return 'array'
  if (value instanceof PdfName) return `/${value.name}`
  if (value instanceof PdfRef) return value.toString()
  if (value instanceof PdfString) return 'string'
  return String(value)
}

/** Text of a PDF text string: UTF-16BE (with BOM), UTF-8 (with BOM) or PDFDocEncoding (read as Latin-1). */
export function textOf(value: PdfValue | undefined): string | null {
  if (!(value instanceof PdfString)) return null
  const bytes = value.bytes
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return new TextDecoder('utf-16be').decode(bytes.subarray(2))
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) return new TextDecoder('utf-8').decode(bytes.subarray(3))
  let out = ''
  for (const byte of bytes) out += String.fromCharCode(byte)
  return out
}
