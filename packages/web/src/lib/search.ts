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

/**
 * The login page's `next` as a path inside the app, or undefined when it is not one. The app's
 * own redirects give it relative to /app (`/settings/billing?period=2026-01`), the server's whole
 * (`/app/oauth/consent/…`); another site (`https://…`, `//host`, `/\host`) is never followed.
 */
export function appPathOf(next: string | undefined): string | undefined {
  if (!next?.startsWith('/') || next.startsWith('//') || next.includes('\\')) return undefined
  if (next === '/app') return '/'
  const inApp = next.startsWith('/app/') || next.startsWith('/app?') || next.startsWith('/app#') ? next.slice('/app'.length) : next
  return inApp.startsWith('/') ? inApp : `/${inApp}`
}
