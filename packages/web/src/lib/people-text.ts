import { errorMessage, isApiError } from '../api/client.ts'

/**
 * An API error in words for the person filling in the form, from what the server says about it:
 * its `code` and the last name in its `field` pointer (`/signers/0/email` → email). The server's
 * texts name fields the way the API does ("signers[0].email must be …"); under the control that
 * `field` points at, the person reads what to do instead.
 */
const BY_CODE_AND_NAME: Record<string, string> = {
  'validation_failed email': 'Enter a valid email address',
  'validation_failed template_id': 'Choose a template',
  'validation_failed expires_at': 'Enter a date and time',
  'validation_failed role': 'Choose a party of this template',
  'validation_failed order': 'Enter a step from 1 to 20',
  'validation_failed first_after_days': 'Enter a number of days from 1 to 60',
  'validation_failed every_days': 'Enter a number of days from 1 to 60',
  'validation_failed max': 'Enter a number of reminders from 1 to 10',
  'invalid_request expires_at': 'This date is in the past',
  'invalid_request role': 'The template has no fields for this party',
  'invalid_request auth_required': 'This server sends no email, so it cannot send a one-time code',
  'invalid_request workspace_name': 'Name your workspace: your team sees it on documents and in mails',
}

/** The path a validation text starts with: `signers[0].email must be at most 254 characters` → `signers[0].email`. */
const LEADING_PATH = /^[A-Za-z_][\w]*(?:\[\d+\]|\.[A-Za-z_]\w*)* (?=must |has |is )/

/**
 * What to show for an error the server placed at `field`. A phrase of our own where we have one;
 * else the server's text, without the API path a validation text starts with ("Must be at most
 * 200 characters"). Domain texts (code invalid_request) are already written for people.
 */
export function peopleTextFor(code: string | undefined, field: string | undefined, serverText: string): string {
  const name = field?.split('/').pop() ?? ''
  const ours = BY_CODE_AND_NAME[`${code} ${name}`]
  if (ours) return ours
  if (code !== 'validation_failed') return serverText
  const rest = serverText.replace(LEADING_PATH, '')
  return rest.charAt(0).toUpperCase() + rest.slice(1)
}

/**
 * The text under a form's control when its request was refused: in people's words when the
 * server named the value at fault (`field`), else the error's own text.
 */
export function fieldErrorText(error: Error | null): string | null {
  if (!error) return null
  return isApiError(error) && error.field ? peopleTextFor(error.code, error.field, error.message) : error.message
}

/** The error's text for the control of `field` (a JSON pointer such as /legal_name) when the server placed it there, else null. */
export function errorTextAt(error: Error | null, field: string): string | null {
  return isApiError(error) && error.field === field ? peopleTextFor(error.code, field, error.message) : null
}

export interface PlacedError<Control extends string> {
  /** The text under `control`, when the refusal is about its value. */
  under: (control: Control) => string | null
  /** The text above the form's button, when the refusal is about none of its controls. */
  above: string | null
}

/**
 * Where a form shows a refused request: under the control the server's `field` points at
 * (`/password` → password), in people's words (fieldErrorText); else, without a `field` or with
 * one the form has no control for, above the button as the server wrote it.
 */
export function placeError<Control extends string>(error: unknown, controls: readonly Control[]): PlacedError<Control> {
  if (!(error instanceof Error)) return { under: () => null, above: error ? errorMessage(error) : null }
  const control = controls.find((name) => isApiError(error) && error.field === `/${name}`)
  if (control === undefined) return { under: () => null, above: error.message }
  const text = fieldErrorText(error)
  return { under: (name) => (name === control ? text : null), above: null }
}
