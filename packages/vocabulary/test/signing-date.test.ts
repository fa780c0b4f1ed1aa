import { expect, test } from 'vitest'
import { signingDateText } from '../src/index.ts'

test("the signing day in the signer's locale, read as a UTC day", () => {
  expect(signingDateText('2026-11-26', 'en-US')).toBe('November 26, 2026')
  expect(signingDateText('2026-11-26', 'de-DE')).toBe('26. November 2026')
  expect(signingDateText('2026-11-26', 'en-GB')).toBe('26 November 2026')
})

test('without a usable locale the day stays as the unambiguous yyyy-mm-dd', () => {
  expect(signingDateText('2026-11-26', undefined)).toBe('2026-11-26')
  expect(signingDateText('2026-11-26', 'not a language tag!')).toBe('2026-11-26')
})
