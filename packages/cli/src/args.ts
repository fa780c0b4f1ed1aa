import { InvalidArgumentError } from 'commander'
import { isEmailAddress } from '@signet/vocabulary'

/** The server's limit on a signer's name (documents.schemas.ts). */
export const MAX_NAME_LENGTH = 200

export interface Recipient {
  email: string
  name?: string
}

/** `ann@example.com` or `ann@example.com:Ann Lee`. */
export function parseRecipient(value: string): Recipient {
  const colon = value.indexOf(':')
  const email = (colon === -1 ? value : value.slice(0, colon)).trim()
  const name = colon === -1 ? '' : value.slice(colon + 1).trim()
  if (!isEmailAddress(email)) throw new InvalidArgumentError(`"${email}" is not an e-mail address (write ann@example.com or ann@example.com:Ann).`)
  if (name.length > MAX_NAME_LENGTH) throw new InvalidArgumentError(`the name is longer than ${MAX_NAME_LENGTH} characters.`)
  return name ? { email, name } : { email }
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

/** Ids are UUIDs: anything else is a typo the server would only answer 404 to. */
export function parseId(value: string): string {
  if (!UUID.test(value))
    throw new InvalidArgumentError(`"${value}" is not an id (ids look like 3f2b…-…, as \`signet send\` and \`signet templates list\` print them).`)
  return value.toLowerCase()
}

/** For repeatable options: each value parsed and appended. */
export const collect =
  <T>(parse: (value: string) => T) =>
  (value: string, previous: T[] | undefined): T[] => [...(previous ?? []), parse(value)]
