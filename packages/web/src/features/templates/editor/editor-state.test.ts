import { describe, expect, it } from 'vitest'
import {
  editorReducer,
  emptyEditor,
  fieldAccessibleName,
  fieldsForSave,
  hasUnsavedChanges,
  keyAtSaveIndex,
  MIN_FIELD_SIZE,
  type EditorAction,
  type EditorState,
  type TemplateField,
} from './editor-state.ts'

const LETTER = { width: 612, height: 792 }
const A4 = { width: 595.28, height: 841.89 }
const signature: TemplateField = { role: 0, type: 'signature', page: 1, x: 72, y: 600, width: 180, height: 40, required: true }

const run = (state: EditorState, ...actions: EditorAction[]) => actions.reduce(editorReducer, state)
const loaded = (fields: TemplateField[] = [signature]) => run(emptyEditor, { type: 'load', pages: [LETTER, A4], fields })
const only = (state: EditorState) => {
  const [field] = state.fields
  if (!field || state.fields.length !== 1) throw new Error(`expected one field, got ${state.fields.length}`)
  return field
}

describe('the field editor state', () => {
  it('loads fields with keys and nothing to save', () => {
    const state = loaded()
    expect(fieldsForSave(state.fields)).toEqual([signature])
    expect(hasUnsavedChanges(state)).toBe(false)
  })

  it('adds a field kept on its page, selects it, and counts as an unsaved change', () => {
    const state = run(loaded([]), { type: 'add', field: { type: 'date', role: 1, page: 2, x: 580, y: 830, width: 120, height: 24 } })
    const field = only(state)
    expect(field).toMatchObject({ page: 2, x: 475.28, y: 817.89, width: 120, height: 24, required: true })
    expect(state.selected).toBe(field.key)
    expect(hasUnsavedChanges(state)).toBe(true)
  })

  it('ignores a field for a page the PDF does not have', () => {
    const state = run(loaded([]), { type: 'add', field: { type: 'text', role: 0, page: 3, x: 0, y: 0, width: 10, height: 10 } })
    expect(state.fields).toEqual([])
  })

  it('nudges by the step given and stops at the page edges', () => {
    const state = loaded()
    const key = only(state).key
    expect(only(run(state, { type: 'nudge', key, dx: 1, dy: 0 }))).toMatchObject({ x: 73, y: 600 })
    expect(only(run(state, { type: 'nudge', key, dx: 0, dy: -10 }))).toMatchObject({ x: 72, y: 590 })
    expect(only(run(state, ...Array.from({ length: 50 }, () => ({ type: 'nudge' as const, key, dx: 10, dy: 10 }))))).toMatchObject({ x: 432, y: 752 })
    expect(only(run(state, { type: 'nudge', key, dx: -100, dy: -1000 }))).toMatchObject({ x: 0, y: 0 })
  })

  it('clamps numeric edits to the page: a width only as far as the edge, an x only as far as the width allows', () => {
    const state = loaded()
    const key = only(state).key
    expect(only(run(state, { type: 'edit', key, changes: { width: 1000 } }))).toMatchObject({ x: 72, width: 540 })
    expect(only(run(state, { type: 'edit', key, changes: { x: 1000 } }))).toMatchObject({ x: 432, width: 180 })
    expect(only(run(state, { type: 'edit', key, changes: { y: -5 } }))).toMatchObject({ y: 0 })
    expect(only(run(state, { type: 'edit', key, changes: { height: 2 } }))).toMatchObject({ height: MIN_FIELD_SIZE })
    expect(only(run(state, { type: 'edit', key, changes: { x: 100.123456 } }))).toMatchObject({ x: 100.12 })
  })

  it('on a page of fractional size, a field pushed to the edge still ends on the page', () => {
    const state = run(loaded([]), { type: 'add', field: { type: 'signature', role: 0, page: 2, x: 0, y: 0, width: 100.005, height: 40 } })
    const key = only(state).key
    const field = only(run(state, { type: 'nudge', key, dx: 1000, dy: 1000 }))
    expect(field.x + field.width).toBeLessThanOrEqual(A4.width)
    expect(field.y + field.height).toBeLessThanOrEqual(A4.height)
  })

  it('edits type, role, required and label; an empty label is removed', () => {
    const state = loaded()
    const key = only(state).key
    const edited = only(run(state, { type: 'edit', key, changes: { type: 'initials', role: 3, required: false, label: '  Client  ' } }))
    expect(edited).toMatchObject({ type: 'initials', role: 3, required: false, label: 'Client' })
    const cleared = only(run(state, { type: 'edit', key, changes: { label: 'x' } }, { type: 'edit', key, changes: { label: ' ' } }))
    expect(cleared).not.toHaveProperty('label')
    expect(only(run(state, { type: 'edit', key, changes: { role: 99 } })).role).toBe(19)
  })

  it('moves a field onto another page and keeps it whole there', () => {
    const state = loaded()
    const key = only(state).key
    const moved = only(run(state, { type: 'place', key, page: 2, rect: { x: 500, y: 830, width: 180, height: 40 } }))
    expect(moved).toMatchObject({ page: 2, x: 415.28, y: 801.89, width: 180, height: 40 })
  })

  it('resizes from the corner: the top-left stays, the size stays between the minimum and the page edge', () => {
    const state = loaded()
    const key = only(state).key
    expect(only(run(state, { type: 'resize', key, width: 1, height: 300 }))).toMatchObject({ x: 72, y: 600, width: MIN_FIELD_SIZE, height: 192 })
    expect(only(run(state, { type: 'resize', key, width: 200.5, height: 50 }))).toMatchObject({ x: 72, y: 600, width: 200.5, height: 50 })
  })

  it('a moved box keeps its size and stops at the edge', () => {
    const state = loaded()
    const key = only(state).key
    expect(only(run(state, { type: 'place', key, rect: { x: 72, y: 780, width: 180, height: 40 } }))).toMatchObject({ y: 752, height: 40 })
  })

  it('deletes, and clears the selection of the deleted field', () => {
    const state = run(loaded(), { type: 'select', key: 'f1' })
    const after = run(state, { type: 'delete', key: 'f1' })
    expect(after.fields).toEqual([])
    expect(after.selected).toBeNull()
  })

  it('makes one drag one undo step; undo back to the saved fields is clean; redo repeats', () => {
    const state = loaded()
    const key = only(state).key
    const dragged = run(
      state,
      { type: 'place', key, rect: { x: 80, y: 600, width: 180, height: 40 } },
      { type: 'place', key, rect: { x: 90, y: 610, width: 180, height: 40 }, transient: true },
      { type: 'place', key, rect: { x: 100, y: 620, width: 180, height: 40 }, transient: true },
    )
    expect(only(dragged)).toMatchObject({ x: 100, y: 620 })
    const undone = run(dragged, { type: 'undo' })
    expect(only(undone)).toMatchObject({ x: 72, y: 600 })
    expect(hasUnsavedChanges(undone)).toBe(false)
    expect(only(run(undone, { type: 'redo' }))).toMatchObject({ x: 100, y: 620 })
    expect(run(undone, { type: 'undo' })).toBe(undone)
  })

  it('is clean again after a save', () => {
    const state = run(loaded(), { type: 'nudge', key: 'f1', dx: 1, dy: 1 })
    expect(hasUnsavedChanges(state)).toBe(true)
    expect(hasUnsavedChanges(run(state, { type: 'saved' }))).toBe(false)
  })

  it('saves fields in page and reading order without editor keys', () => {
    const lower = { ...signature, y: 700 }
    const onPage2 = { ...signature, page: 2, y: 10 }
    const state = loaded([onPage2, lower, signature])
    expect(fieldsForSave(state.fields)).toEqual([signature, lower, onPage2])
  })

  it('finds the field a refusal counts by its place in the saved list, whatever the order on screen', () => {
    const lower = { ...signature, y: 700 }
    const onPage2 = { ...signature, page: 2, y: 10 }
    const state = loaded([onPage2, lower, signature])
    expect([0, 1, 2, 3].map((index) => keyAtSaveIndex(state.fields, index))).toEqual(['f3', 'f2', 'f1', null])
  })

  it('selects only a field that is there', () => {
    const state = loaded()
    expect(run(state, { type: 'select', key: 'f1' }).selected).toBe('f1')
    expect(run(state, { type: 'select', key: 'f1' }, { type: 'select', key: 'f9' }).selected).toBe('f1')
    expect(run(state, { type: 'select', key: 'f1' }, { type: 'select', key: null }).selected).toBeNull()
  })

  it('names a field box for assistive technology, with its role as the template names it', () => {
    expect(fieldAccessibleName({ ...signature, page: 2 }, [])).toBe('Signature field, Party 1, page 2')
    expect(fieldAccessibleName({ ...signature, type: 'date', role: 1, label: 'Today' }, [])).toBe('Date field “Today”, Party 2, page 1')
    const roleNames = [{ role: 0, name: 'Landlord' }]
    expect(fieldAccessibleName(signature, roleNames)).toBe('Signature field, Landlord, page 1')
    expect(fieldAccessibleName({ ...signature, role: 1 }, roleNames)).toBe('Signature field, Party 2, page 1')
  })

  it('gives a new radio or dropdown two options to edit, and a number none of them', () => {
    const state = run(loaded([]), { type: 'add', field: { type: 'radio', role: 0, page: 1, x: 10, y: 10, width: 140, height: 40 } })
    expect(only(state).options).toEqual(['Option 1', 'Option 2'])
    const number = run(loaded([]), { type: 'add', field: { type: 'number', role: 0, page: 1, x: 10, y: 10, width: 100, height: 24 } })
    expect(only(number)).not.toHaveProperty('options')
  })

  it('edits options (one per line, blanks dropped), bounds (null removes one) and the API name', () => {
    const state = run(
      loaded([{ ...signature, type: 'dropdown', options: ['A'] }]),
      { type: 'edit', key: 'f1', changes: { options: [' Berlin ', '', 'Lisbon'] } },
      { type: 'edit', key: 'f1', changes: { name: '  city ' } },
    )
    expect(fieldsForSave(state.fields)[0]).toMatchObject({ type: 'dropdown', options: ['Berlin', 'Lisbon'], name: 'city' })
    const number = run(
      loaded([{ ...signature, type: 'number' }]),
      { type: 'edit', key: 'f1', changes: { min: 1, max: 9 } },
      { type: 'edit', key: 'f1', changes: { min: null } },
    )
    expect(fieldsForSave(number.fields)[0]).toMatchObject({ type: 'number', max: 9 })
    expect(fieldsForSave(number.fields)[0]).not.toHaveProperty('min')
  })

  it('keeps only the properties the type has when the type changes', () => {
    const state = run(loaded([{ ...signature, type: 'number', min: 1, max: 5 }]), { type: 'edit', key: 'f1', changes: { type: 'radio' } })
    expect(fieldsForSave(state.fields)[0]).toEqual({ ...signature, type: 'radio', options: ['Option 1', 'Option 2'] })
    const back = run(state, { type: 'edit', key: 'f1', changes: { type: 'text' } })
    expect(fieldsForSave(back.fields)[0]).toEqual({ ...signature, type: 'text' })
  })
})
