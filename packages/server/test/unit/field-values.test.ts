import { describe, expect, it } from 'vitest'
import type { TemplateField } from '../../src/db/schema.ts'
import { maxSubmissionBytes, parseFieldValues } from '../../src/signing/field-values.ts'
import { rgbaPng } from '../helpers/png.ts'

const field = (id: number, type: TemplateField['type'], more: Partial<TemplateField> = {}) => ({
  id,
  role: 0,
  type,
  page: 1,
  x: 10,
  y: 10,
  width: 100,
  height: 30,
  required: true,
  ...more,
})
const dataUrl = (png: Buffer) => `data:image/png;base64,${png.toString('base64')}`
/** A blank RGBA PNG: each scanline is a filter byte and 4 bytes a pixel. */
const blankPng = (width: number, height: number) => rgbaPng(width, height, Buffer.alloc(height * (1 + 4 * width)))
const today = '26 November 2026'

describe('field-value checks', () => {
  it('keeps each value by its field, and dates as the server writes them, not as the browser sent them', () => {
    const fields = [field(0, 'signature'), field(1, 'text', { label: 'Title' }), field(2, 'checkbox'), field(3, 'date')]
    const { entries } = parseFieldValues(fields, { '0': dataUrl(blankPng(3, 2)), '1': '  Head of Legal ', '2': true, '3': '1 January 1970' }, today)
    expect(entries.get(0)).toMatchObject({ type: 'image', fieldType: 'signature', field: 'Field 0 (signature, page 1)' })
    expect(entries.get(1)).toEqual({ type: 'stored', value: { type: 'text', text: 'Head of Legal' } })
    expect(entries.get(2)).toEqual({ type: 'stored', value: { type: 'checkbox', checked: true } })
    expect(entries.get(3)).toEqual({ type: 'stored', value: { type: 'date', text: today } })
  })

  it('refuses a field that is not the signer’s', () => {
    expect(() => parseFieldValues([field(0, 'text')], { '0': 'x', '7': 'y' }, today)).toThrow('Field 7 is not one of your fields.')
  })

  it('names a required field left empty, and an optional one may be', () => {
    expect(() => parseFieldValues([field(4, 'text', { label: 'Title' })], {}, today)).toThrow('Field 4 (Title, page 1) is required.')
    expect(() => parseFieldValues([field(4, 'text')], { '4': '   ' }, today)).toThrow('Field 4 (text, page 1) is required.')
    expect(() => parseFieldValues([field(5, 'checkbox')], { '5': false }, today)).toThrow('Field 5 (checkbox, page 1) must be ticked.')
    expect(parseFieldValues([field(4, 'text', { required: false })], {}, today).entries.size).toBe(0)
  })

  it('refuses text over 500 characters and characters no bundled font can print', () => {
    expect(() => parseFieldValues([field(1, 'text')], { '1': 'a'.repeat(501) }, today)).toThrow('Field 1 (text, page 1) is longer than 500 characters.')
    expect(() => parseFieldValues([field(1, 'text')], { '1': 'ok \u{1F600}' }, today)).toThrow(
      'Field 1 (text, page 1) contains \u{1F600} (U+1F600), which the signed PDF cannot show. Please remove it or write the text another way.',
    )
  })

  it('refuses a signature that is not a PNG data: URL, or a PNG too large', () => {
    const one = [field(0, 'signature')]
    expect(() => parseFieldValues(one, { '0': 'data:image/jpeg;base64,AAAA' }, today)).toThrow(
      'Field 0 (signature, page 1) needs a PNG image as a data: URL (data:image/png;base64,…).',
    )
    expect(() => parseFieldValues(one, { '0': dataUrl(Buffer.alloc(40, 1)) }, today)).toThrow('Field 0 (signature, page 1): the image is not a valid PNG.')
    expect(() => parseFieldValues(one, { '0': dataUrl(blankPng(4001, 1)) }, today)).toThrow(
      'Field 0 (signature, page 1): the image must be between 1 and 4000 pixels on each side.',
    )
  })

  it('bounds a finish body by the signer’s own fields', () => {
    // 1 KiB + 64 per field; an image as base64 of 256 KiB; a text of 500 six-byte escapes; nothing for a date.
    expect(maxSubmissionBytes([])).toBe(1024)
    expect(maxSubmissionBytes([field(0, 'date')])).toBe(1024 + 64)
    expect(maxSubmissionBytes([field(0, 'text')])).toBe(1024 + 64 + 3000)
    expect(maxSubmissionBytes([field(0, 'signature')])).toBe(1024 + 64 + 22 + Math.ceil((256 * 1024) / 3) * 4)
  })
})
