import Papa from 'papaparse'
import { isEmailAddress } from '@signet/vocabulary'
import { MAX_NAME_LENGTH, type Recipient } from '../args.ts'
import { usageError } from '../exit-codes.ts'

/** The server's limit on one bulk send (documents.schemas.ts, MAX_BULK_RECIPIENTS). */
export const MAX_ROWS = 10_000
/** 10,000 rows of a 254-character address and a 200-character name fit in 5 MB: a larger file is refused unread. */
export const MAX_CSV_BYTES = 5 * 1024 * 1024

export interface RowProblem {
  /** The row's number among the data rows (the header is not counted). */
  row: number
  email: string
  error: string
}

export interface ValidRow extends Recipient {
  row: number
}

export interface ParsedRecipients {
  valid: ValidRow[]
  problems: RowProblem[]
  rows: number
}

const PAPA_MESSAGES: Record<string, string> = {
  TooManyFields: 'the row has more columns than the header',
  TooFewFields: 'the row has fewer columns than the header',
  MissingQuotes: 'a quoted value is never closed',
  InvalidQuotes: 'a quote in the middle of a value (double it: "")',
}

/** Reads `email,name` rows (a header row naming the columns, in any order and case) and checks each one. */
export function parseRecipients(text: string, file: string): ParsedRecipients {
  const parsed = Papa.parse<Record<string, string | undefined>>(text.replace(/^\uFEFF/, ''), {
    header: true,
    skipEmptyLines: false,
    transformHeader: (header) => header.trim().toLowerCase(),
  })
  const columns = parsed.meta.fields ?? []
  if (!columns.includes('email'))
    throw usageError(`${file} needs a header row with an "email" column (and optionally "name"); its first row is: ${columns.join(',') || '(empty)'}.`)
  const data = parsed.data
  // A file's final line break leaves one empty record behind: that is not an empty row.
  const last = data[data.length - 1]
  if (last && Object.values(last).every((value) => !value?.trim())) data.pop()
  if (data.length === 0) throw usageError(`${file} has a header row but no recipients.`)
  if (data.length > MAX_ROWS)
    throw usageError(`${file} has ${data.length.toLocaleString('en')} rows; one bulk send takes at most ${MAX_ROWS.toLocaleString('en')}. Split the file.`)

  const structural = new Map<number, string>()
  // A quote never closed swallows the rest of the line: say that, not the column count it leads to.
  const quotesFirst = [...parsed.errors].sort((a, b) => Number(b.type === 'Quotes') - Number(a.type === 'Quotes'))
  for (const error of quotesFirst) {
    if (error.type === 'Delimiter' || error.row === undefined) continue
    // Papa numbers a quote error's row counting the header, a field-count error's among the data rows.
    const index = error.type === 'Quotes' ? error.row - 1 : error.row
    if (!structural.has(index)) structural.set(index, PAPA_MESSAGES[error.code] ?? error.message)
  }
  const firstRow = new Map<string, number>()
  const valid: ValidRow[] = []
  const problems: RowProblem[] = []
  data.forEach((record, index) => {
    const row = index + 1
    const email = (record.email ?? '').trim()
    const name = (record.name ?? '').trim()
    const problem = (() => {
      if (Object.values(record).every((value) => !value?.trim())) return 'empty row'
      const shape = structural.get(index)
      if (shape) return shape
      if (email === '') return 'no e-mail address'
      if (!isEmailAddress(email)) return `"${email}" is not a valid e-mail address`
      if (name.length > MAX_NAME_LENGTH) return `the name is longer than ${MAX_NAME_LENGTH} characters`
      const earlier = firstRow.get(email.toLowerCase())
      if (earlier !== undefined) return `repeats row ${earlier}'s address (each address gets one document)`
      return undefined
    })()
    if (problem) return void problems.push({ row, email, error: problem })
    firstRow.set(email.toLowerCase(), row)
    valid.push({ row, email, ...(name ? { name } : {}) })
  })
  return { valid, problems, rows: data.length }
}
