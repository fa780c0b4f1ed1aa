import { ApiError, errorMessage } from '../../api/client.ts'
import { fieldErrorText } from '../../lib/people-text.ts'

/** What the account forms (sign-up, invitation, reset, Account, Security) share: the password rule, and where a refusal goes. */

export const PASSWORD_HINT = '8 to 128 characters. A long phrase is easiest to remember; common passwords are refused.'

export interface PlacedError<Control extends string> {
  /** The text under `control`, when the refusal is about its value. */
  under: (control: Control) => string | null
  /** The text above the form's button, when the refusal is about none of its controls. */
  above: string | null
}

/**
 * Where a form shows a refused request: under the control the server's `field` points at
 * (`/password` → password), in people's words (peopleTextFor), else above the button as the
 * server wrote it. `guess` places a refusal without a `field` by its words, for those that name
 * the value in their text only ("Your password is not right.").
 */
export function placeError<Control extends string>(
  error: unknown,
  controls: readonly Control[],
  guess?: (error: Error) => Control | null,
): PlacedError<Control> {
  if (!(error instanceof Error)) return { under: () => null, above: error ? errorMessage(error) : null }
  const field = error instanceof ApiError ? error.field : undefined
  const control = field ? (controls.find((name) => field === `/${name}`) ?? null) : (guess?.(error) ?? null)
  const text = fieldErrorText(error)
  return { under: (name) => (name === control ? text : null), above: control === null ? error.message : null }
}
