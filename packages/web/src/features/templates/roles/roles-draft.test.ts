import { describe, expect, it } from 'vitest'
import { draftOfRoles, roleControlFor, rolesChanged, rolesForSave } from './roles-draft.ts'

describe('the Roles card draft', () => {
  it('starts from the saved names and steps, with 1, 2, 3… for roles without a step', () => {
    expect(draftOfRoles([0, 1, 2], [{ role: 1, name: 'Tenant' }])).toEqual({
      names: { 0: '', 1: 'Tenant', 2: '' },
      ordered: false,
      steps: { 0: '1', 1: '2', 2: '3' },
    })
    expect(
      draftOfRoles(
        [0, 1],
        [
          { role: 0, name: 'Landlord', order: 2 },
          { role: 1, name: 'Tenant', order: 1 },
        ],
      ).ordered,
    ).toBe(true)
  })

  it('saves only named roles without steps, and every role (unnamed ones as Party N) with them', () => {
    const draft = { names: { 0: ' Landlord ', 1: '' }, ordered: false, steps: { 0: '2', 1: '1' } }
    expect(rolesForSave([0, 1], draft)).toEqual([{ role: 0, name: 'Landlord' }])
    expect(rolesForSave([0, 1], { ...draft, ordered: true })).toEqual([
      { role: 0, name: 'Landlord', order: 2 },
      { role: 1, name: 'Party 2', order: 1 },
    ])
    // A cleared step goes as 0: the server's refusal shows under it.
    expect(rolesForSave([0], { names: { 0: 'A' }, ordered: true, steps: { 0: '' } })).toEqual([{ role: 0, name: 'A', order: 0 }])
  })

  it('is unchanged until something would save differently', () => {
    const saved = [{ role: 0, name: 'Landlord' }]
    const draft = draftOfRoles([0, 1], saved)
    expect(rolesChanged([0, 1], draft, saved)).toBe(false)
    expect(rolesChanged([0, 1], { ...draft, names: { ...draft.names, 1: 'Tenant' } }, saved)).toBe(true)
  })

  it("places a refusal under the control of the role sent at the pointer's index", () => {
    const sent = [
      { role: 1, name: 'Tenant' },
      { role: 3, name: 'Tenant' },
    ]
    expect(roleControlFor('/roles/1/name', sent)).toBe('3.name')
    expect(roleControlFor('/roles/0/order', sent)).toBe('1.order')
    expect(roleControlFor('/roles', sent)).toBeNull()
    expect(roleControlFor(undefined, sent)).toBeNull()
  })
})
