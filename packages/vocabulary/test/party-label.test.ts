import { expect, test } from 'vitest'
import { partyLabel } from '../src/index.ts'

test('parties are numbered from 1 for people while roles count from 0', () => {
  expect(partyLabel(0)).toBe('Party 1')
  expect(partyLabel(1)).toBe('Party 2')
})
