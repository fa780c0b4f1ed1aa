import { describe, expect, it } from 'vitest'
import { errorTarget } from './send-errors.ts'

describe('where a POST /documents error is shown', () => {
  it.each([
    ['signer.email must be a valid e-mail address', [0], 'party.0.email'],
    ['signers[1].email must be a valid e-mail address', [0, 2], 'party.2.email'],
    ['signers[0].name must be at most 200 characters', [1], 'party.1.name'],
    ['signers[0].role: the template has no fields for Party 4 (role 3).', [3], 'party.3.role'],
    ['expires_at must be in the future.', [0], 'expires_at'],
    ['invite_subject must be at most 200 characters', [0], 'invite_subject'],
    ['invite_message must be at most 2000 characters', [0], 'invite_message'],
    ['Template not found.', [0], 'template_id'],
    ['This template needs a signer for: Party 2 (role 1).', [0], null],
    ['signers[5].email must be a valid e-mail address', [0], null],
  ])('%s → %s', (message, roles, target) => {
    expect(errorTarget(message, roles)).toBe(target)
  })
})
