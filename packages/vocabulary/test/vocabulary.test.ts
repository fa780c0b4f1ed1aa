import { expect, test } from 'vitest'
import { AUDIT_EVENT_LABELS, AUDIT_EVENT_TYPES, AUTH_METHOD_LABELS } from '../src/index.ts'

// That every event has words is checked by the compiler (a Record over the enum); two events with the same words would be ambiguous in a trail.
test('no two audit events read the same', () => {
  expect(new Set(Object.values(AUDIT_EVENT_LABELS)).size).toBe(AUDIT_EVENT_TYPES.length)
})

test('a resent invitation and a code-checked signer read as words, not as API names', () => {
  expect(AUDIT_EVENT_LABELS['signer.invitation_resent']).toBe('Invitation sent again')
  expect(AUTH_METHOD_LABELS['email_link+email_code']).toBe('E-mail link + one-time e-mail code')
})
