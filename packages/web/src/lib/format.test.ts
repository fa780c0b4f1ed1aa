import { describe, expect, it } from 'vitest'
import { formatPeriod, formatReminderSchedule } from './format.ts'

describe('formatPeriod', () => {
  const reader = Intl.DateTimeFormat().resolvedOptions().locale

  it.runIf(reader.startsWith('en'))('says a usage period as a month and a year, not as the API keys it', () => {
    expect(formatPeriod('2026-11')).toBe('November 2026')
    // The period is a UTC month: its first instant is still the same month west of Greenwich.
    expect(formatPeriod('2027-01')).toBe('January 2027')
  })

  it("follows the reader's locale and shows an unexpected value as it is", () => {
    expect(formatPeriod('2026-11')).toBe(new Intl.DateTimeFormat(reader, { month: 'long', year: 'numeric' }).format(new Date(2026, 10, 15)))
    expect(formatPeriod('current')).toBe('current')
  })
})

describe('formatReminderSchedule', () => {
  it.each([
    [{ first_after_days: 2, every_days: 3, max: 2 }, '2 days after the invitation, then every 3 days, at most 2 reminders'],
    [{ first_after_days: 1, every_days: 1, max: 10 }, '1 day after the invitation, then every day, at most 10 reminders'],
    // One reminder: how often later ones would come does not matter.
    [{ first_after_days: 7, every_days: 3, max: 1 }, '1 reminder, 7 days after the invitation'],
  ])('%j → %s', (schedule, words) => {
    expect(formatReminderSchedule(schedule)).toBe(words)
  })
})
