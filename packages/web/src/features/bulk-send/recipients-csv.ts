import Papa from 'papaparse'
import { isEmailAddress } from '@signet/vocabulary'

/** The server's limits (documents.schemas.ts): names up to 200 characters, 10,000 recipients a request. */
export const MAX_NAME_LENGTH = 200
export const MAX_RECIPIENTS = 10_000

export interface Recipient {
  email: string
  name?: string
}

export interface CsvRow {
  /** The line in the file (the header is line 1). */
  line: number
  email: string
  name: string
  /** Why the row will not be sent; none when it is fine. */
  problems: string[]
}

export interface ParsedCsv {
  /** Why the file as a whole cannot be used (no email column, empty, unreadable). */
  fileError: string | null
  rows: CsvRow[]
}

/** Reads a CSV of email,name (a header row naming the columns, in any order and case) and checks every row. */
export function parseRecipientsCsv(text: string): ParsedCsv {
  const parsed = Papa.parse<Record<string, string>>(text.replace(/^\uFEFF/, ''), {
    header: true,
    skipEmptyLines: 'greedy',
    transformHeader: (header) => header.trim().toLowerCase(),
  })
  const columns = parsed.meta.fields ?? []
  if (!columns.includes('email')) {
    return {
      fileError: `The file needs a header row with an “email” column (and optionally “name”); found ${columns.length ? columns.map((c) => `“${c}”`).join(', ') : 'no columns'}.`,
      rows: [],
    }
  }
  if (parsed.data.length === 0) return { fileError: 'The file has a header row but no recipients.', rows: [] }
  if (parsed.data.length > MAX_RECIPIENTS) {
    return {
      fileError: `The file has ${parsed.data.length.toLocaleString()} recipients; one bulk send takes at most ${MAX_RECIPIENTS.toLocaleString()}. Split the file.`,
      rows: [],
    }
  }
  const firstLine = new Map<string, number>()
  const rows = parsed.data.map((record, index): CsvRow => {
    const line = index + 2
    const email = (record.email ?? '').trim()
    const name = (record.name ?? '').trim()
    const problems: string[] = []
    if (email === '') problems.push('The e-mail address is missing.')
    else if (!isEmailAddress(email)) problems.push(`“${email}” is not a valid e-mail address.`)
    else {
      const key = email.toLowerCase()
      const earlier = firstLine.get(key)
      if (earlier !== undefined) problems.push(`Duplicate of line ${earlier}: each address is sent one document.`)
      else firstLine.set(key, line)
    }
    if (name.length > MAX_NAME_LENGTH) problems.push(`The name is longer than ${MAX_NAME_LENGTH} characters.`)
    return { line, email, name, problems }
  })
  const rowErrors = parsed.errors.filter((e) => e.type !== 'Delimiter')
  for (const error of rowErrors) {
    const row = error.row !== undefined ? rows[error.row] : undefined
    if (row)
      row.problems.push(
        error.code === 'TooManyFields'
          ? 'The line has more columns than the header.'
          : error.code === 'TooFewFields'
            ? 'The line has fewer columns than the header.'
            : error.message,
      )
  }
  return { fileError: null, rows }
}

export const recipientOf = (row: CsvRow): Recipient => (row.name ? { email: row.email, name: row.name } : { email: row.email })
