import type { FieldType, PrefilledValue, StoredFieldValue, TemplateField } from '../db/schema.ts'
import { invalid } from '../errors.ts'
import type { MessageKey } from './i18n/catalog.ts'
import { forSigner, signerText, type SignerText } from './i18n/error-texts.ts'
import { isEmailAddress } from '../lib/email-address.ts'
import { unprintableCharacters } from './text/font-catalog.ts'

export const MAX_IMAGE_BYTES = 256 * 1024
const MAX_IMAGE_SIDE = 4000
export const MAX_TEXT_LENGTH = 500

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])
const PNG_DATA_URL = /^data:image\/png;base64,([A-Za-z0-9+/]+={0,2})$/

/** A field entry as the signing page submits it (numbers for number fields). */
export type SubmittedValue = string | boolean | number

/** A field of the signer's, with its index in the template as id, and what the sender prefilled in it. */
export type SignerFieldWithPrefill = TemplateField & { id: number; prefill?: PrefilledValue | undefined }

export interface ParsedValues {
  /** By field index (as a string, like the submission). Images are referenced by `imageSha256` after storing. */
  entries: Map<
    number,
    { type: 'image'; fieldType: 'signature' | 'initials'; png: Uint8Array; field: string; about: SignerText } | { type: 'stored'; value: StoredFieldValue }
  >
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
    if (problem) throw forSigner(invalid(`${entry.field}: ${problem}.`), 'error.imageUnreadable', { field: entry.about, problem })
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
      case 'email':
      case 'name':
      case 'radio':
      case 'dropdown':
        bytes += MAX_TEXT_LENGTH * MAX_JSON_BYTES_PER_CHAR
        break
      case 'checkbox':
      case 'date':
      case 'number':
        break
    }
  }
  return bytes
}

export const describeField = (id: number, field: TemplateField) => `Field ${id} (${field.label ?? field.name ?? field.type}, page ${field.page})`
/** describeField in the signer's words (a field without a label or name is named by its type, as on the page). */
export const describeFieldText = (id: number, field: TemplateField): SignerText =>
  signerText('error.field', { id: String(id), name: field.label ?? field.name ?? signerText(`field.${field.type}`), page: field.page })

function parsePng(id: number, field: TemplateField, value: SubmittedValue): Uint8Array {
  const about = describeFieldText(id, field)
  const refuse = (message: string, key: MessageKey, values: SignerText['values'] = {}) =>
    forSigner(invalid(`${describeField(id, field)}${message}`, { field: `/values/${id}` }), key, { field: about, ...values })
  const match = typeof value === 'string' ? PNG_DATA_URL.exec(value) : null
  if (!match?.[1]) throw refuse(' needs a PNG image as a data: URL (data:image/png;base64,…).', 'error.imageNeeded')
  const png = Buffer.from(match[1], 'base64')
  if (png.byteLength > MAX_IMAGE_BYTES) {
    const [size, limit] = [Math.ceil(png.byteLength / 1024), MAX_IMAGE_BYTES / 1024]
    throw refuse(`: the signature image is ${size} KiB; the limit is ${limit} KiB.`, 'error.imageTooLarge', { size, limit })
  }
  // IHDR follows the 8-byte signature: length(4) "IHDR"(4) width(4) height(4).
  const isPng = png.byteLength > 24 && png.subarray(0, 8).equals(PNG_SIGNATURE) && png.toString('latin1', 12, 16) === 'IHDR'
  if (!isPng) throw refuse(': the image is not a valid PNG.', 'error.imageNotPng')
  const width = png.readUInt32BE(16)
  const height = png.readUInt32BE(20)
  if (width === 0 || height === 0 || width > MAX_IMAGE_SIDE || height > MAX_IMAGE_SIDE) {
    throw refuse(`: the image must be between 1 and ${MAX_IMAGE_SIDE} pixels on each side.`, 'error.imageSide', { max: MAX_IMAGE_SIDE })
  }
  // Canvases never write interlaced (Adam7) PNGs, and the PDF renderer cannot draw them.
  if (png[28] !== 0) throw refuse(': interlaced PNG images are not supported.', 'error.imageInterlaced')
  return png
}

/** The first five characters, each with its code point. */
const named = (chars: string[]): string[] =>
  chars.slice(0, 5).map((char) => `${char} (U+${(char.codePointAt(0) as number).toString(16).toUpperCase().padStart(4, '0')})`)
const listed = (chars: string[]): string => {
  const names = named(chars)
  return names.length === 1 ? (names[0] as string) : `${names.slice(0, -1).join(', ')} and ${names[names.length - 1] as string}`
}

/**
 * The signed PDF must show what the signer typed: text with a character none of its fonts has
 * (emoji, scripts without a bundled font) is refused here rather than printed otherwise.
 */
function assertPrintable(what: string, text: string, pointer: string, about: SignerText | undefined): void {
  const missing = unprintableCharacters(text)
  if (missing.length > 0) {
    const error = invalid(
      `${what} contains ${listed(missing)}, which the signed PDF cannot show. Please remove ${missing.length === 1 ? 'it' : 'them'} or write the text another way.`,
      { field: pointer },
    )
    throw about ? forSigner(error, 'error.unprintable', { field: about, chars: named(missing).join(', '), count: missing.length }) : error
  }
}

/** The field types whose value is typed or chosen (not drawn, not written by the server): the ones a sender may prefill, and name. */
export type TypedFieldType = Exclude<FieldType, 'signature' | 'initials' | 'date'>
export const isTypedFieldType = (type: FieldType): type is TypedFieldType => type !== 'signature' && type !== 'initials' && type !== 'date'

/**
 * One entry checked against its field's type and properties — text within its length and printable,
 * an e-mail address, a number within min/max, one of the options offered — as the value stored, or
 * null when left empty. The one check the finish and a send's prefill both make; `what` names the
 * field and `pointer` is the request's place for it. `about` names the field in the signer's words
 * (describeFieldText), for the finish: its errors are then marked for the signer's page (forSigner).
 */
export function typedValue(field: TemplateField, value: SubmittedValue, what: string, pointer: string, about?: SignerText): StoredFieldValue | null {
  const refuse = (message: string, key: MessageKey, values: SignerText['values'] = {}) => {
    const error = invalid(`${what} ${message}`, { field: pointer })
    return about ? forSigner(error, key, { field: about, ...values }) : error
  }
  switch (field.type) {
    case 'signature':
    case 'initials':
    case 'date':
      throw new Error(`a ${field.type} field's value is not typed`)
    case 'text':
    case 'name':
    case 'email': {
      if (typeof value !== 'string') {
        throw field.type === 'email' ? refuse('needs an e-mail address.', 'error.needsEmail') : refuse('needs text.', 'error.needsText')
      }
      const text = value.trim()
      if (text === '') return null
      if (text.length > MAX_TEXT_LENGTH) throw refuse(`is longer than ${MAX_TEXT_LENGTH} characters.`, 'error.tooLong', { max: MAX_TEXT_LENGTH })
      if (field.type === 'email' && !isEmailAddress(text)) {
        throw refuse(`needs an e-mail address such as name@example.com ("${text.slice(0, 80)}" is not one).`, 'error.notEmail', { text: text.slice(0, 80) })
      }
      assertPrintable(what, text, pointer, about)
      return { type: field.type, text }
    }
    case 'number': {
      if (typeof value !== 'number' || !Number.isFinite(value)) throw refuse('needs a number.', 'error.needsNumber')
      if (field.min !== undefined && value < field.min) {
        throw refuse(`must be at least ${field.min} (${value} is not).`, 'error.numberBelow', { min: field.min, value })
      }
      if (field.max !== undefined && value > field.max) {
        throw refuse(`must be at most ${field.max} (${value} is not).`, 'error.numberAbove', { max: field.max, value })
      }
      return { type: 'number', number: value }
    }
    case 'checkbox':
      if (typeof value !== 'boolean') throw refuse('needs true or false.', 'error.needsBoolean')
      return { type: 'checkbox', checked: value }
    case 'radio':
    case 'dropdown': {
      if (typeof value !== 'string') throw refuse('needs one of its options.', 'error.needsOption')
      const option = value.trim()
      if (option === '') return null
      const options = field.options ?? []
      if (!options.includes(option)) {
        const quoted = options.map((o) => `"${o}"`).join(', ')
        throw refuse(`has no option "${option.slice(0, 100)}"; its options are ${quoted}.`, 'error.noSuchOption', {
          option: option.slice(0, 100),
          options: quoted,
        })
      }
      return { type: field.type, text: option }
    }
  }
}

/** Whether an entry leaves a required field unfilled: nothing, or an unticked box. */
const isEmptyEntry = (stored: StoredFieldValue | null): boolean => stored === null || (stored.type === 'checkbox' && !stored.checked)

/**
 * Checks a submission against the signer's own fields: every required field filled,
 * no field of another signer, each value of the field's kind. Dates are not taken
 * from the browser: the server writes the signing date. A field the sender prefilled
 * read-only keeps the sender's value: a submission may repeat it, any other value is a 400.
 */
export function parseFieldValues(fields: SignerFieldWithPrefill[], submitted: Record<string, SubmittedValue>, signingDate: string): ParsedValues {
  const own = new Map(fields.map((f) => [f.id, f]))
  for (const key of Object.keys(submitted)) {
    if (!/^\d+$/.test(key) || !own.has(Number(key))) {
      throw forSigner(invalid(`Field ${key} is not one of your fields.`, { field: `/values/${key}` }), 'error.notYourField', { id: key.slice(0, 100) })
    }
  }
  const entries: ParsedValues['entries'] = new Map()
  for (const field of fields) {
    const value = submitted[String(field.id)]
    const what = describeField(field.id, field)
    const about = describeFieldText(field.id, field)
    const pointer = `/values/${field.id}`
    if (field.type === 'date') {
      entries.set(field.id, { type: 'stored', value: { type: 'date', text: signingDate } })
      continue
    }
    if (field.prefill?.readOnly) {
      const fixed = typedValue(field, field.prefill.value, what, pointer, about)
      if (value !== undefined && JSON.stringify(typedValue(field, value, what, pointer, about)) !== JSON.stringify(fixed)) {
        throw forSigner(invalid(`${what} was filled in by the sender and cannot be changed.`, { field: pointer }), 'error.fieldLocked', { field: about })
      }
      if (fixed) entries.set(field.id, { type: 'stored', value: fixed })
      continue
    }
    if (value === undefined) {
      if (field.required) throw forSigner(invalid(`${what} is required.`, { field: pointer }), 'error.fieldRequired', { field: about })
      continue
    }
    if (field.type === 'signature' || field.type === 'initials') {
      entries.set(field.id, { type: 'image', fieldType: field.type, png: parsePng(field.id, field, value), field: what, about })
      continue
    }
    const stored = typedValue(field, value, what, pointer, about)
    if (field.required && isEmptyEntry(stored)) {
      const error = invalid(`${what} ${field.type === 'checkbox' ? 'must be ticked' : 'is required'}.`, { field: pointer })
      throw forSigner(error, field.type === 'checkbox' ? 'error.fieldUnticked' : 'error.fieldRequired', { field: about })
    }
    if (stored) entries.set(field.id, { type: 'stored', value: stored })
  }
  return { entries }
}
