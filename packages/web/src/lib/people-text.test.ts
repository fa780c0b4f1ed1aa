import { describe, expect, it } from 'vitest'
import { ApiError } from '../api/client.ts'
import { errorTextAt, fieldErrorText, peopleTextFor, placeError } from './people-text.ts'

describe('an API error in words for people', () => {
  it.each([
    ['validation_failed', '/signers/0/email', 'signers[0].email must be a valid e-mail address', 'Enter a valid email address'],
    ['validation_failed', '/signer/email', 'signer.email is required', 'Enter a valid email address'],
    ['validation_failed', '/template_id', 'template_id must be a UUID', 'Choose a template'],
    ['validation_failed', '/expires_at', 'expires_at must be a UTC date-time such as 2030-01-31T17:00:00Z (or "" for none)', 'Enter a date and time'],
    ['invalid_request', '/expires_at', 'expires_at must be in the future.', 'This date is in the past'],
    ['invalid_request', '/signers/1/role', 'signers[1].role: the template has no fields for Party 4 (role 3).', 'The template has no fields for this party'],
    ['validation_failed', '/signers/0/name', 'signers[0].name must be at most 200 characters', 'Must be at most 200 characters'],
    ['validation_failed', '/signers/1/order', 'signers[1].order must be at most 20', 'Enter a step from 1 to 20'],
    ['validation_failed', '/reminders/first_after_days', 'reminders.first_after_days must be at least 1', 'Enter a number of days from 1 to 60'],
    ['validation_failed', '/reminders/every_days', 'reminders.every_days must be at most 60', 'Enter a number of days from 1 to 60'],
    ['validation_failed', '/reminders/max', 'reminders.max must be at most 10', 'Enter a number of reminders from 1 to 10'],
    ['validation_failed', '/invite_message', 'invite_message must not contain control characters (U+0000)', 'Must not contain control characters (U+0000)'],
    ['invalid_request', '/template_id', 'Template not found.', 'Template not found.'],
    [
      'invalid_request',
      '/workspace_name',
      'Name your workspace (workspace_name): your team sees it on documents and in mails.',
      'Name your workspace: your team sees it on documents and in mails',
    ],
    [undefined, undefined, 'The server could not be reached.', 'The server could not be reached.'],
  ])('%s at %s: %s → %s', (code, field, serverText, shown) => {
    expect(peopleTextFor(code, field, serverText)).toBe(shown)
  })
})

describe('the error under a form control', () => {
  it.each([
    [
      'a refusal of one value',
      new ApiError(400, 'email must be a valid e-mail address', { code: 'validation_failed', field: '/email' }),
      'Enter a valid email address',
    ],
    ['a refusal without a field', new ApiError(400, 'The webhook URL has no host.', { code: 'invalid_request' }), 'The webhook URL has no host.'],
    ['an error of the page', new Error('Choose the ID document.'), 'Choose the ID document.'],
    ['no error', null, null],
  ])('%s', (_, error, shown) => {
    expect(fieldErrorText(error)).toBe(shown)
  })
})

describe('the error under one control of a form with several', () => {
  const tooLong = new ApiError(400, 'legal_name must be at most 300 characters', { code: 'validation_failed', field: '/legal_name' })
  it.each([
    ['about this control', tooLong, '/legal_name', 'Must be at most 300 characters'],
    ['about another control', tooLong, '/file', null],
    ['about no control', new ApiError(409, 'A check is already waiting for a decision.', { code: 'conflict' }), '/legal_name', null],
    ['no error', null, '/legal_name', null],
  ])('%s', (_, error, field, shown) => {
    expect(errorTextAt(error, field)).toBe(shown)
  })
})

describe('where a form shows a refused request', () => {
  const controls = ['current_password', 'new_password'] as const
  it.each([
    [
      'under the control its field points at',
      new ApiError(400, 'Choose a password of at least 8 characters.', { code: 'invalid_request', field: '/new_password' }),
      { current_password: null, new_password: 'Choose a password of at least 8 characters.' },
      null,
    ],
    [
      "in people's words there",
      new ApiError(400, 'new_password must be at most 512 characters', { code: 'validation_failed', field: '/new_password' }),
      { current_password: null, new_password: 'Must be at most 512 characters' },
      null,
    ],
    [
      'above the button when its field is no control of the form',
      new ApiError(400, 'The passkey could not be checked. Try again.', { code: 'invalid_request', field: '/response' }),
      { current_password: null, new_password: null },
      'The passkey could not be checked. Try again.',
    ],
    [
      'above the button without a field, whatever its words',
      new ApiError(400, 'Your current password is not right.', { code: 'invalid_request' }),
      { current_password: null, new_password: null },
      'Your current password is not right.',
    ],
    [
      'above the button for an error of the page',
      new Error('The two passwords differ.'),
      { current_password: null, new_password: null },
      'The two passwords differ.',
    ],
    ['nowhere without an error', null, { current_password: null, new_password: null }, null],
  ])('%s', (_, error, under, above) => {
    const placed = placeError(error, controls)
    expect({ current_password: placed.under('current_password'), new_password: placed.under('new_password') }).toEqual(under)
    expect(placed.above).toBe(above)
  })
})
