import { describe, expect, it } from 'vitest'
import { parseRecipientsCsv } from './recipients-csv.ts'

describe('reading a recipients CSV', () => {
  it('reads email,name with the header in any case and order, a BOM, CRLF and quoted commas', () => {
    const { fileError, rows } = parseRecipientsCsv('\uFEFFName,EMAIL\r\n"Lovelace, Ada",ada@example.com\r\nGrace,grace@example.org\r\n')
    expect(fileError).toBeNull()
    expect(rows).toEqual([
      { line: 2, email: 'ada@example.com', name: 'Lovelace, Ada', problems: [] },
      { line: 3, email: 'grace@example.org', name: 'Grace', problems: [] },
    ])
  })

  it('names every bad row: invalid or missing address, duplicates (any case), too long a name', () => {
    const csv = ['email,name', 'a@example.com,A', 'not-an-address,B', ',C', 'A@Example.com,D', `e@example.com,${'x'.repeat(201)}`, 'f@example.c,F'].join('\n')
    const problems = parseRecipientsCsv(csv).rows.map((r) => [r.line, r.problems])
    expect(problems).toEqual([
      [2, []],
      [3, ['“not-an-address” is not a valid e-mail address.']],
      [4, ['The e-mail address is missing.']],
      [5, ['Duplicate of line 2: each address is sent one document.']],
      [6, ['The name is longer than 200 characters.']],
      [7, ['“f@example.c” is not a valid e-mail address.']],
    ])
  })

  it('refuses a file without an email column, or without rows', () => {
    expect(parseRecipientsCsv('mail,name\na@example.com,A').fileError).toBe(
      'The file needs a header row with an “email” column (and optionally “name”); found “mail”, “name”.',
    )
    expect(parseRecipientsCsv('email,name\n').fileError).toBe('The file has a header row but no recipients.')
    expect(parseRecipientsCsv('').fileError).toMatch(/found no columns/)
  })

  it('flags a line with more columns than the header', () => {
    expect(parseRecipientsCsv('email,name\na@example.com,A,extra').rows[0]?.problems).toEqual(['The line has more columns than the header.'])
  })
})
