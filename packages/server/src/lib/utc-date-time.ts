/**
 * The spec's expires_at format: YYYY-MM-DDTHH:MM[:SS[.fraction]]Z — UTC only (a numeric
 * offset is rejected) and a real calendar date. The empty string means "no expiry".
 */
export const UTC_DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(\.\d{1,9})?)?Z$/

export function parseUtcDateTime(value: string): Date | undefined {
  const match = UTC_DATE_TIME.exec(value)
  if (!match) return undefined
  const [year, month, day, hour, minute, second] = match.slice(1, 7).map((part) => Number(part ?? 0)) as [number, number, number, number, number, number]
  if (month < 1 || month > 12 || hour > 23 || minute > 59 || second > 59) return undefined
  const date = new Date(0)
  // setUTCFullYear, unlike Date.UTC, does not map years 0–99 onto 1900–1999.
  date.setUTCFullYear(year, month, 0)
  if (day < 1 || day > date.getUTCDate()) return undefined
  date.setUTCFullYear(year, month - 1, day)
  date.setUTCHours(hour, minute, second, Math.floor(Number(match[7] ?? 0) * 1000))
  return date
}

export const isUtcDateTime = (value: string): boolean => value === '' || parseUtcDateTime(value) !== undefined
