/**
 * The date a date field is filled with, as the signer reads dates: "November 26, 2026" in
 * en-US, "26. November 2026" in German. The signer page shows it and the signed PDF prints
 * the same words; the day is the server's UTC day (yyyy-mm-dd), never the browser's clock.
 * Without a locale the server can format in, the day stays as it is: unambiguous everywhere.
 */
export function signingDateText(isoDay: string, locale: string | undefined): string {
  const day = new Date(`${isoDay}T00:00:00Z`)
  if (!locale || Number.isNaN(day.getTime())) return isoDay
  let supported: string[]
  try {
    supported = Intl.DateTimeFormat.supportedLocalesOf(locale)
  } catch {
    return isoDay // not a language tag at all
  }
  const [chosen] = supported
  return chosen ? new Intl.DateTimeFormat(chosen, { dateStyle: 'long', timeZone: 'UTC' }).format(day) : isoDay
}
