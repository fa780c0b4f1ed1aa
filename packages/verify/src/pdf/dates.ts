/** PDF date strings (ISO 32000-1, 7.9.4): D:YYYYMMDDHHmmSSOHH'mm'. Returns null when malformed. */
export function parsePdfDate(text: string | null): Date | null {
  if (!text) return null
  const match = /^(?:D:)?(\d{4})(\d{2})?(\d{2})?(\d{2})?(\d{2})?(\d{2})?([Zz+-])?(\d{2})?'?(\d{2})?'?/.exec(text.trim())
  if (!match) return null
  const [, year, month = '01', day = '01', hour = '00', minute = '00', second = '00', sign, offsetHours = '00', offsetMinutes = '00'] = match
  let time = Date.UTC(Number(year), Number(month) - 1, Number(day), Number(hour), Number(minute), Number(second))
  if (sign === '+' || sign === '-') {
    const offset = (Number(offsetHours) * 60 + Number(offsetMinutes)) * 60_000
    time += sign === '+' ? -offset : offset
  }
  return Number.isNaN(time) ? null : new Date(time)
}
