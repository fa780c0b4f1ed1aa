import type { StoredFieldValue, TemplateField } from '../db/schema.ts'
import { invalid } from '../errors.ts'
import { unprintableCharacters } from './text/font-catalog.ts'

export const MAX_IMAGE_BYTES = 256 * 1024
const MAX_IMAGE_SIDE = 4000
export const MAX_TEXT_LENGTH = 500

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])
const PNG_DATA_URL = /^data:image\/png;base64,([A-Za-z0-9+/]+={0,2})$/

/** A field entry as the signing page submits it. */
export type SubmittedValue = string | boolean

export interface ParsedValues {
  /** By field index (as a string, like the submission). Images are referenced by `imageSha256` after storing. */
  entries: Map<number, { type: 'image'; fieldType: 'signature' | 'initials'; png: Uint8Array; field: string } | { type: 'stored'; value: StoredFieldValue }>
}

/** What a signature image may become once decoded: a 4000 × 4000 RGBA image, and no more. */
export const MAX_DECODED_IMAGE_BYTES = 64 * 1024 * 1024

/**
 * Decodes every submitted image fully (in the PDF worker pool) before anything is stored: an
 * image whose header is fine but whose pixel data is damaged would otherwise complete the
 * document and leave its signed PDF impossible to render.
 */
export async function assertImagesDecode(parsed: ParsedValues, pngProblem: (png: Uint8Array) => Promise<string | null>): Promise<void> {
  for (const entry of parsed.entries.values()) {
    if (entry.type !== 'image') continue
    const problem = await pngProblem(entry.png)
    if (problem) throw invalid(`${entry.field}: ${problem}.`)
  }
}

/** JSON's longest writing of one character: a \\uXXXX escape. */
const MAX_JSON_BYTES_PER_CHAR = 6
/** Per field: its key (`"1234":`), a comma, and room for a client that writes spaces. */
const MEMBER_OVERHEAD = 64
/** `{"values":{…}}` and room for whitespace around it. */
const SUBMISSION_OVERHEAD = 1024

/**
 * The largest finish body this signer's fields can need: every image at MAX_IMAGE_BYTES as a
 * base64 data: URL, every text at MAX_TEXT_LENGTH characters escaped, every box a boolean.
 * Dates are written by the server; a few bytes are allowed for a client that sends one anyway.
 */
export function maxSubmissionBytes(fields: TemplateField[]): number {
  let bytes = SUBMISSION_OVERHEAD
  for (const field of fields) {
    bytes += MEMBER_OVERHEAD
    switch (field.type) {
      case 'signature':
      case 'initials':
        bytes += 'data:image/png;base64,'.length + Math.ceil(MAX_IMAGE_BYTES / 3) * 4
        break
      case 'text':
        bytes += MAX_TEXT_LENGTH * MAX_JSON_BYTES_PER_CHAR
        break
      case 'checkbox':
      case 'date':
        break
    }
  }
  return bytes
}

const describe = (id: number, field: TemplateField) => `Field ${id} (${field.label ?? field.type}, page ${field.page})`

function parsePng(id: number, field: TemplateField, value: SubmittedValue): Uint8Array {
  const match = typeof value === 'string' ? PNG_DATA_URL.exec(value) : null
  if (!match?.[1]) throw invalid(`${describe(id, field)} needs a PNG image as a data: URL (data:image/png;base64,…).`)
  const png = Buffer.from(match[1], 'base64')
  if (png.byteLength > MAX_IMAGE_BYTES) {
    throw invalid(`${describe(id, field)}: the signature image is ${Math.ceil(png.byteLength / 1024)} KiB; the limit is ${MAX_IMAGE_BYTES / 1024} KiB.`)
  }
  // IHDR follows the 8-byte signature: length(4) "IHDR"(4) width(4) height(4).
  const isPng = png.byteLength > 24 && png.subarray(0, 8).equals(PNG_SIGNATURE) && png.toString('latin1', 12, 16) === 'IHDR'
  if (!isPng) throw invalid(`${describe(id, field)}: the image is not a valid PNG.`)
  const width = png.readUInt32BE(16)
  const height = png.readUInt32BE(20)
  if (width === 0 || height === 0 || width > MAX_IMAGE_SIDE || height > MAX_IMAGE_SIDE) {
    throw invalid(`${describe(id, field)}: the image must be between 1 and ${MAX_IMAGE_SIDE} pixels on each side.`)
  }
  // Canvases never write interlaced (Adam7) PNGs, and the PDF renderer cannot draw them.
  if (png[28] !== 0) throw invalid(`${describe(id, field)}: interlaced PNG images are not supported.`)
  return png
}

const listed = (chars: string[]): string => {
  const named = chars.slice(0, 5).map((char) => `${char} (U+${(char.codePointAt(0) as number).toString(16).toUpperCase().padStart(4, '0')})`)
  return named.length === 1 ? (named[0] as string) : `${named.slice(0, -1).join(', ')} and ${named[named.length - 1] as string}`
}

/**
 * The signed PDF must show what the signer typed: text with a character none of its fonts has
 * (emoji, scripts without a bundled font) is refused here rather than printed otherwise.
 */
function assertPrintable(id: number, field: TemplateField, text: string): void {
  const missing = unprintableCharacters(text)
  if (missing.length > 0) {
    throw invalid(
      `${describe(id, field)} contains ${listed(missing)}, which the signed PDF cannot show. Please remove ${missing.length === 1 ? 'it' : 'them'} or write the text another way.`,
    )
  }
}

/**
 * Checks a submission against the signer's own fields: every required field filled,
 * no field of another signer, each value of the field's kind. Dates are not taken
 * from the browser: the server writes the signing date.
 */
export function parseFieldValues(fields: (TemplateField & { id: number })[], submitted: Record<string, SubmittedValue>, signingDate: string): ParsedValues {
  const own = new Map(fields.map((f) => [f.id, f]))
  for (const key of Object.keys(submitted)) {
    if (!/^\d+$/.test(key) || !own.has(Number(key))) throw invalid(`Field ${key} is not one of your fields.`)
  }
  const entries: ParsedValues['entries'] = new Map()
  for (const field of fields) {
    const value = submitted[String(field.id)]
    if (field.type === 'date') {
      entries.set(field.id, { type: 'stored', value: { type: 'date', text: signingDate } })
      continue
    }
    if (value === undefined) {
      if (field.required) throw invalid(`${describe(field.id, field)} is required.`)
      continue
    }
    switch (field.type) {
      case 'signature':
      case 'initials':
        entries.set(field.id, { type: 'image', fieldType: field.type, png: parsePng(field.id, field, value), field: describe(field.id, field) })
        break
      case 'text': {
        if (typeof value !== 'string') throw invalid(`${describe(field.id, field)} needs text.`)
        const text = value.trim()
        if (text.length > MAX_TEXT_LENGTH) throw invalid(`${describe(field.id, field)} is longer than ${MAX_TEXT_LENGTH} characters.`)
        if (text === '' && field.required) throw invalid(`${describe(field.id, field)} is required.`)
        assertPrintable(field.id, field, text)
        if (text !== '') entries.set(field.id, { type: 'stored', value: { type: 'text', text } })
        break
      }
      case 'checkbox':
        if (typeof value !== 'boolean') throw invalid(`${describe(field.id, field)} needs true or false.`)
        if (!value && field.required) throw invalid(`${describe(field.id, field)} must be ticked.`)
        entries.set(field.id, { type: 'stored', value: { type: 'checkbox', checked: value } })
        break
    }
  }
  return { entries }
}
