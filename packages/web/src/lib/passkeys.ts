import {
  browserSupportsWebAuthn,
  startAuthentication,
  startRegistration,
  WebAuthnError,
  type AuthenticationResponseJSON,
  type PublicKeyCredentialCreationOptionsJSON,
  type PublicKeyCredentialRequestOptionsJSON,
  type RegistrationResponseJSON,
} from '@simplewebauthn/browser'
import { isApiError } from '../api/client.ts'

/**
 * The browser's side of a passkey (WebAuthn) through @simplewebauthn/browser: the server's
 * options go to the browser as they are, and its answer goes back as JSON. Errors become words.
 */

/** Whether this browser can use passkeys at all (every current one can; very old ones and some embedded views cannot). */
export const passkeysSupported = (): boolean => browserSupportsWebAuthn()

/** The extension results as a plain object (the API's body type wants an open record, not the DOM interface). */
const plainExtensions = (results: object): Record<string, unknown> => ({ ...results })

/** Asks the browser to make a passkey with the server's creation options. */
export async function createPasskey(options: Record<string, unknown>) {
  const response: RegistrationResponseJSON = await startRegistration({ optionsJSON: options as unknown as PublicKeyCredentialCreationOptionsJSON })
  return { ...response, type: 'public-key' as const, clientExtensionResults: plainExtensions(response.clientExtensionResults) }
}

/** Asks the browser to sign the server's challenge with one of the passkeys the options allow. */
export async function signWithPasskey(options: Record<string, unknown>) {
  const response: AuthenticationResponseJSON = await startAuthentication({ optionsJSON: options as unknown as PublicKeyCredentialRequestOptionsJSON })
  return { ...response, type: 'public-key' as const, clientExtensionResults: plainExtensions(response.clientExtensionResults) }
}

/** What went wrong with a passkey, in words: the prompt closed, a duplicate, a wrong address, or the server's {error}. */
export function passkeyErrorText(error: unknown): string {
  if (isApiError(error)) return error.message
  const name = error instanceof WebAuthnError ? ((error.cause as Error | undefined)?.name ?? error.name) : error instanceof Error ? error.name : ''
  const code = error instanceof WebAuthnError ? error.code : null
  if (code === 'ERROR_AUTHENTICATOR_PREVIOUSLY_REGISTERED' || name === 'InvalidStateError')
    return 'This device already holds a passkey for your account: it is in the list.'
  if (code === 'ERROR_INVALID_DOMAIN' || code === 'ERROR_INVALID_RP_ID' || name === 'SecurityError')
    return 'Passkeys work only on the address this Signet instance is set up for (its PUBLIC_URL), over HTTPS or on localhost.'
  if (name === 'NotAllowedError' || name === 'AbortError' || code === 'ERROR_CEREMONY_ABORTED')
    return 'No passkey was used: the prompt was closed, timed out, or this device has no passkey for this site. Try again, or choose another way.'
  if (code === 'ERROR_AUTHENTICATOR_MISSING_USER_VERIFICATION_SUPPORT')
    return 'This authenticator cannot check a PIN or fingerprint, which signing in with a passkey alone needs.'
  return error instanceof Error ? error.message : 'The passkey could not be used. Try again.'
}

/** The browser's answers, as the API's bodies take them. */
export type PasskeyCreation = Awaited<ReturnType<typeof createPasskey>>
export type PasskeyAssertion = Awaited<ReturnType<typeof signWithPasskey>>
