import { describe, expect, it } from 'vitest'
import { controlFor } from './error-placement.ts'

describe('the Send page control a field points at', () => {
  it.each([
    ['/signer/email', [0], 'party.0.email'],
    ['/signers/1/email', [0, 2], 'party.2.email'],
    ['/signers/0/name', [1], 'party.1.name'],
    ['/signers/0/role', [3], 'party.3.role'],
    ['/signers/0/auth_required', [0, 1], 'party.0.auth_required'],
    ['/signers/1/order', [0, 1, 2], 'party.1.order'],
    ['/signers/2/order', [0, 2, 5], 'party.5.order'],
    ['/expires_at', [0], 'expires_at'],
    ['/invite_subject', [0], 'invite_subject'],
    ['/invite_message', [0], 'invite_message'],
    ['/template_id', [0], 'template_id'],
    ['/reminders/first_after_days', [0], 'reminders.first_after_days'],
    ['/reminders/every_days', [0, 1], 'reminders.every_days'],
    ['/reminders/max', [0], 'reminders.max'],
    ['/reminders', [0], null],
    ['/reminders/colour', [0], null],
    ['/reminders/max/0', [0], null],
    ['/signers', [0, 1], null],
    ['/signer', [0], null],
    ['/signers/5/email', [0], null],
    ['/signers/0/colour', [0, 1], null],
    ['/signer/colour', [0], null],
    ['/colour', [0], null],
    [undefined, [0], null],
  ])('%s with roles %j → %s', (field, roles, control) => {
    expect(controlFor(field, roles)).toBe(control)
  })
})
