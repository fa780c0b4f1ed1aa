import { Signet } from '@signet/sdk'
import { resolveCredentials, type Credentials } from './config.ts'
import { VERSION } from './version.ts'

/** The server the command talks to, for the "cannot reach" message. */
let currentUrl: string | undefined
export const serverUrl = (): string | undefined => currentUrl

export interface Session extends Credentials {
  signet: Signet
}

/** The SDK client for the configured server and key (SIGNET_URL / SIGNET_API_KEY, else `signet login`'s). */
export function connect(credentials: Credentials = resolveCredentials()): Session {
  currentUrl = credentials.url
  return { ...credentials, signet: new Signet({ apiKey: credentials.apiKey, baseUrl: credentials.url, userAgent: `signet-cli/${VERSION}` }) }
}
