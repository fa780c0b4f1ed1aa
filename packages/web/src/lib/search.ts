/** Search-param readers for routes' validateSearch: unknown input in, a typed value or undefined out. */
export function optionalString(search: Record<string, unknown>, key: string): string | undefined {
  const value = search[key]
  return typeof value === 'string' && value !== '' ? value : undefined
}

export function optionalNumber(search: Record<string, unknown>, key: string): number | undefined {
  const value = search[key]
  const number = typeof value === 'number' ? value : typeof value === 'string' ? Number(value) : NaN
  return Number.isFinite(number) && number >= 0 ? Math.floor(number) : undefined
}
