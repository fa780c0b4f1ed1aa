import type { ErrorOut } from 'oidc-provider'
import { translator } from '../signing/i18n/catalog.ts'
import { statusPage } from '../signing/web/pages.ts'

/**
 * The page a person sees when an authorization request cannot go back to its client (unknown
 * client, a redirect URI it never registered, an expired request): nothing is sent to a
 * redirect URI that is not the client's. oidc-provider's description is in plain English already.
 */
export function renderOAuthError(out: ErrorOut): string {
  const detail = out.error_description ? `${out.error_description.charAt(0).toUpperCase()}${out.error_description.slice(1)}.` : ''
  return statusPage({
    t: translator('en'),
    tone: 'error',
    title: 'Connect an app',
    heading: 'This connection request did not work',
    message: `${detail} Go back to your app and connect again. (Error: ${out.error})`.trim(),
  })
}
