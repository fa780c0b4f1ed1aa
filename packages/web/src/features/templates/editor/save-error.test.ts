import { describe, expect, it } from 'vitest'
import { ApiError } from '../../../api/client.ts'
import { refusedFieldIndex, saveErrorText } from './save-error.ts'

const refusal = (code: string, field: string | undefined, text: string) => new ApiError(400, text, { code, field })

describe('a refused save of the template fields', () => {
  it.each([
    ['/fields/0', 0],
    ['/fields/12', 12],
    ['/fields/3/label', 3],
    ['/fields', null],
    ['/fields/', null],
    ['/fields/x/label', null],
    ['/fields/1/label/0', null],
    ['/fields/1/options/0', 1],
    ['/signers/0/email', null],
    [undefined, null],
  ])('the pointer %s is about field %s', (field, index) => {
    expect(refusedFieldIndex(refusal('validation_failed', field, 'Invalid fields'))).toBe(index)
  })

  it('is about no field when it is not a refusal of the API', () => {
    expect(refusedFieldIndex(new Error('The server could not be reached.'))).toBeNull()
    expect(refusedFieldIndex(null)).toBeNull()
  })

  it.each([
    ['invalid_request', '/fields/0', 'fields[0]: the field lies off page 1 (612×792 points).', 'This field lies off page 1 (612×792 points).'],
    ['invalid_request', '/fields/1/page', 'fields[1]: page 3 does not exist (the PDF has 2 pages).', 'Page 3 does not exist (the PDF has 2 pages).'],
    ['validation_failed', '/fields/0/label', 'Invalid fields: fields[0].label must be at most 200 characters', 'Label: must be at most 200 characters'],
    [
      'validation_failed',
      '/fields/2/label',
      'Invalid fields: fields[2].label must not contain invisible characters (U+E0041)',
      'Label: must not contain invisible characters (U+E0041)',
    ],
    ['validation_failed', '/fields/0/x', 'Invalid fields: fields[0].x must be at least 0', 'X: must be at least 0'],
    [
      'conflict',
      undefined,
      'Documents were sent from this template: duplicate it to change the fields.',
      'Documents were sent from this template: duplicate it to change the fields.',
    ],
  ])('%s at %s: %s → %s', (code, field, text, shown) => {
    expect(saveErrorText(refusal(code, field, text))).toBe(shown)
  })
})
