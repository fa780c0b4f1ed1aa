const dateTime = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' })
const dateOnly = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium' })

/** "24 Nov 2026, 10:05", or "—" for null. */
export function formatDateTime(value: string | null | undefined): string {
  return value ? dateTime.format(new Date(value)) : '—'
}

export function formatDate(value: string | null | undefined): string {
  return value ? dateOnly.format(new Date(value)) : '—'
}

const monthYear = new Intl.DateTimeFormat(undefined, { month: 'long', year: 'numeric', timeZone: 'UTC' })

/** A usage period ('2026-11', a UTC calendar month) in the reader's words: "November 2026". An unexpected value is shown as it is. */
export function formatPeriod(period: string): string {
  const match = /^(\d{4})-(\d{2})$/.exec(period)
  return match ? monthYear.format(new Date(Date.UTC(Number(match[1]), Number(match[2]) - 1, 1))) : period
}

/** Money from integer cents: "$12.50". */
export function formatCents(cents: number, currency = 'USD'): string {
  return new Intl.NumberFormat(undefined, { style: 'currency', currency }).format(cents / 100)
}

export function formatNumber(value: number): string {
  return new Intl.NumberFormat().format(value)
}
