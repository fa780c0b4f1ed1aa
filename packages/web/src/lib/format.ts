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

const days = (count: number) => (count === 1 ? '1 day' : `${formatNumber(count)} days`)

/**
 * A reminder schedule in words, which read the same alone and inside a sentence: "2 days after
 * the invitation, then every 3 days, at most 2 reminders". With one reminder the interval never
 * applies: "1 reminder, 2 days after the invitation".
 */
export function formatReminderSchedule({ first_after_days, every_days, max }: { first_after_days: number; every_days: number; max: number }): string {
  const first = `${days(first_after_days)} after the invitation`
  if (max === 1) return `1 reminder, ${first}`
  return `${first}, then every ${every_days === 1 ? 'day' : days(every_days)}, at most ${formatNumber(max)} reminders`
}
