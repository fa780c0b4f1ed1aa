// @vitest-environment happy-dom
import { cleanup, render, screen } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { afterEach, describe, expect, it, vi } from 'vitest'
import type { EditorField } from './editor-state.ts'
import { FieldPanel } from './FieldPanel.tsx'
import type { RoleNames } from '../role-labels.ts'

const LETTER = { width: 612, height: 792 }
const signature: EditorField = { key: 'f1', role: 0, type: 'signature', page: 1, x: 72, y: 600, width: 180, height: 40, required: true }
const LEASE_ROLES: RoleNames = [
  { role: 0, name: 'Landlord' },
  { role: 1, name: 'Tenant' },
]

function renderPanel(roleNames: RoleNames) {
  const dispatch = vi.fn()
  const { rerender } = render(<FieldPanel field={signature} roleNames={roleNames} pages={[LETTER]} dispatch={dispatch} />)
  return { dispatch, showField: (field: EditorField) => rerender(<FieldPanel field={field} roleNames={roleNames} pages={[LETTER]} dispatch={dispatch} />) }
}

const signerSelect = () => screen.getByRole('combobox', { name: 'Signer' })

afterEach(cleanup)

describe("the field editor's panel", () => {
  it("shows the field's role by the template's name for it, and offers the other roles by theirs (Party N when unnamed)", async () => {
    const user = userEvent.setup()
    const { dispatch } = renderPanel(LEASE_ROLES)
    expect(signerSelect().textContent).toBe('Landlord')

    await user.click(signerSelect())
    const options = screen.getAllByRole('option').map((option) => option.textContent)
    expect(options.slice(0, 3)).toEqual(['Landlord', 'Tenant', 'Party 3'])
    await user.click(screen.getByRole('option', { name: 'Tenant' }))
    expect(dispatch).toHaveBeenCalledWith({ type: 'edit', key: 'f1', changes: { role: 1 } })
  })

  it('calls a role "Party N" in a template without role names', () => {
    renderPanel([])
    expect(signerSelect().textContent).toBe('Party 1')
  })

  it('applies typed text on Enter or when leaving the box, puts back a number it cannot read, and follows the field when it moves', async () => {
    const user = userEvent.setup()
    const { dispatch, showField } = renderPanel([])
    await user.type(screen.getByRole('textbox', { name: 'Label' }), 'Sign here{Enter}')
    expect(dispatch).toHaveBeenLastCalledWith({ type: 'edit', key: 'f1', changes: { label: 'Sign here' } })

    const x = screen.getByRole<HTMLInputElement>('textbox', { name: 'X' })
    await user.clear(x)
    await user.type(x, '90')
    await user.tab()
    expect(dispatch).toHaveBeenLastCalledWith({ type: 'edit', key: 'f1', changes: { x: 90 } })
    await user.clear(x)
    await user.type(x, 'far left{Enter}')
    expect(x.value).toBe('72')

    showField({ ...signature, x: 100.123 })
    expect(x.value).toBe('100.12')
  })
})
