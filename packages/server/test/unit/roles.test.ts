import { describe, expect, it } from 'vitest'
import type { ActingUser, Actor } from '../../src/actors/actor.ts'
import { mayInvite, requireManager, requireOperator, requireOwner, requireSignedIn } from '../../src/accounts/roles.ts'
import type { WorkspaceRole } from '../../src/db/schema.ts'

const person = (role: WorkspaceRole, isOperator = false): ActingUser => ({ id: 'u1', email: 'ada@example.com', name: 'Ada', role, isOperator })
const actor = (user: ActingUser | null): Actor => ({
  orgId: 'o1',
  orgName: 'Acme',
  plan: 'pro',
  channel: user ? 'dashboard' : 'rest',
  authMethod: user ? 'session' : 'api_key',
  agentTriggered: false,
  clientName: null,
  ip: null,
  userAgent: null,
  user,
  scopes: ['read', 'write'],
})

describe('role checks', () => {
  it('lets owners, admins and API keys manage; refuses a member with the reason', () => {
    expect(() => requireManager(actor(person('owner')), 'API keys')).not.toThrow()
    expect(() => requireManager(actor(person('admin')), 'API keys')).not.toThrow()
    expect(() => requireManager(actor(null), 'API keys')).not.toThrow()
    expect(() => requireManager(actor(person('member')), 'API keys')).toThrow(
      expect.objectContaining({ code: 'forbidden', message: "Only the workspace's owners and admins can manage API keys." }),
    )
  })

  it('keeps owner-only work to the owner, and refuses API keys as not signed in', () => {
    expect(requireOwner(actor(person('owner')), 'start an identity check').role).toBe('owner')
    expect(() => requireOwner(actor(person('admin')), 'start an identity check')).toThrow(
      expect.objectContaining({ code: 'forbidden', message: "Only the workspace's owner can start an identity check." }),
    )
    expect(() => requireOwner(actor(null), 'start an identity check')).toThrow(expect.objectContaining({ code: 'unauthenticated' }))
    expect(() => requireSignedIn(actor(null))).toThrow('Sign in to the dashboard for this; API keys cannot use it.')
  })

  it('opens the Operator area to operators only, whatever their workspace role', () => {
    expect(requireOperator(actor(person('member', true))).isOperator).toBe(true)
    expect(() => requireOperator(actor(person('owner')))).toThrow(
      expect.objectContaining({ code: 'forbidden', message: 'Only the instance operator can do this.' }),
    )
  })

  it('lets owners invite anyone, admins anyone but an owner, members no one', () => {
    expect(mayInvite('owner', 'owner')).toBe(true)
    expect(mayInvite('admin', 'admin')).toBe(true)
    expect(mayInvite('admin', 'owner')).toBe(false)
    expect(mayInvite('member', 'member')).toBe(false)
    expect(mayInvite(null, 'member')).toBe(false)
  })
})
