import { roundPoints, type PointRect } from './geometry.ts'
import { roleLabel, type RoleNames } from '../role-labels.ts'

export const FIELD_TYPES = ['signature', 'initials', 'date', 'text', 'checkbox', 'radio', 'dropdown', 'number', 'email', 'name'] as const
export type FieldType = (typeof FIELD_TYPES)[number]

/** The server's MAX_ROLE (templates/fields.ts): roles 0…19, shown as Party 1…20 unless the template names them. */
export const MAX_ROLE = 19

/** A template field as the API stores it (templates/fields.ts FieldInput): page 1-based, PDF points. */
export interface TemplateField extends PointRect {
  role: number
  type: FieldType
  page: number
  required: boolean
  label?: string
  /** The identifier a send's prefill names the field by (unique in the template). */
  name?: string
  /** Radio and dropdown: the choices, in order. */
  options?: string[]
  /** Number: the bounds, inclusive. */
  min?: number
  max?: number
}

/** The types that offer options, and the ones a new field of them starts with. */
export const hasOptions = (type: FieldType): boolean => type === 'radio' || type === 'dropdown'
export const DEFAULT_OPTIONS = ['Option 1', 'Option 2']

/** A field in the editor: the stored shape plus a key that survives moves and edits. */
export interface EditorField extends TemplateField {
  key: string
}

/** A page as displayed (after CropBox and /Rotate), in PDF points. */
export interface PageSize {
  width: number
  height: number
}

export interface EditorState {
  pages: PageSize[]
  fields: EditorField[]
  selected: string | null
  /** The fields as last loaded or saved: what "unsaved changes" compares against. */
  saved: EditorField[]
  past: EditorField[][]
  future: EditorField[][]
  nextKey: number
}

/** The smallest box a field may shrink to, in points (a grab area stays usable). */
export const MIN_FIELD_SIZE = 8
const HISTORY_LIMIT = 100

/** A new field's size in points, by type (a signature matches the server's default one). */
export const DEFAULT_FIELD_SIZE: Record<FieldType, { width: number; height: number }> = {
  signature: { width: 180, height: 40 },
  initials: { width: 60, height: 40 },
  date: { width: 120, height: 24 },
  text: { width: 180, height: 24 },
  checkbox: { width: 16, height: 16 },
  radio: { width: 140, height: 40 },
  dropdown: { width: 160, height: 24 },
  number: { width: 100, height: 24 },
  email: { width: 200, height: 24 },
  name: { width: 180, height: 24 },
}

/** An edit: `label` and `name` '' or undefined remove them; `min`/`max` null removes a bound. */
type FieldChanges = Partial<Omit<TemplateField, 'label' | 'name' | 'min' | 'max'>> & {
  label?: string | undefined
  name?: string | undefined
  min?: number | null
  max?: number | null
}

export type EditorAction =
  | { type: 'load'; pages: PageSize[]; fields: TemplateField[] }
  | { type: 'add'; field: Omit<TemplateField, 'required'> & { required?: boolean } }
  | { type: 'select'; key: string | null }
  /**
   * Place a field's box (a pointer move; `page` to drop it on another page): kept whole on the page
   * by moving it. A drag sends its first step with `transient` unset and the rest with
   * `transient: true`, so one gesture is one undo step.
   */
  | { type: 'place'; key: string; rect: PointRect; page?: number; transient?: boolean }
  /** Resize from the bottom-right corner: the top-left stays, the size stops at the page's edges. */
  | { type: 'resize'; key: string; width: number; height: number; transient?: boolean }
  /** Arrow keys: move by dx/dy points, kept on the page. */
  | { type: 'nudge'; key: string; dx: number; dy: number }
  /** The side panel: numbers clamped to the page, other properties as given. */
  | { type: 'edit'; key: string; changes: FieldChanges }
  | { type: 'delete'; key: string }
  | { type: 'undo' }
  | { type: 'redo' }
  /** The server accepted these fields. */
  | { type: 'saved' }

export const emptyEditor: EditorState = { pages: [], fields: [], selected: null, saved: [], past: [], future: [], nextKey: 1 }

const clamp = (value: number, min: number, max: number): number => Math.min(Math.max(value, min), max)
/** Largest 0.01 pt step not past `value`, so a rounded box never pokes off the page. */
const floorPoints = (value: number): number => Math.floor(value * 100 + 1e-6) / 100

/** A box kept whole on its page: sizes first (at least MIN_FIELD_SIZE, at most the page), then the position. */
export function clampToPage(rect: PointRect, page: PageSize): PointRect {
  const width = clamp(roundPoints(rect.width), Math.min(MIN_FIELD_SIZE, page.width), floorPoints(page.width))
  const height = clamp(roundPoints(rect.height), Math.min(MIN_FIELD_SIZE, page.height), floorPoints(page.height))
  const x = clamp(roundPoints(rect.x), 0, floorPoints(page.width - width))
  const y = clamp(roundPoints(rect.y), 0, floorPoints(page.height - height))
  return { x, y, width, height }
}

/**
 * A numeric edit of one side: the edited number is clamped against the others (a width may grow
 * only up to the page's edge from where the field stands; an x only as far as the width allows).
 */
function clampEdit(field: EditorField, changes: FieldChanges, page: PageSize): PointRect {
  const next = { x: field.x, y: field.y, width: field.width, height: field.height }
  if (changes.width !== undefined) next.width = clamp(roundPoints(changes.width), MIN_FIELD_SIZE, floorPoints(page.width - next.x))
  if (changes.height !== undefined) next.height = clamp(roundPoints(changes.height), MIN_FIELD_SIZE, floorPoints(page.height - next.y))
  if (changes.x !== undefined) next.x = changes.x
  if (changes.y !== undefined) next.y = changes.y
  return clampToPage(next, page)
}

function withHistory(state: EditorState, fields: EditorField[], extra: Partial<EditorState> = {}): EditorState {
  return { ...state, ...extra, fields, past: [...state.past, state.fields].slice(-HISTORY_LIMIT), future: [] }
}

function updateField(state: EditorState, key: string, update: (field: EditorField, page: PageSize) => EditorField, transient = false): EditorState {
  const field = state.fields.find((f) => f.key === key)
  const page = field && state.pages[field.page - 1]
  if (!field || !page) return state
  const fields = state.fields.map((f) => (f.key === key ? update(f, page) : f))
  return transient ? { ...state, fields } : withHistory(state, fields)
}

export function editorReducer(state: EditorState, action: EditorAction): EditorState {
  switch (action.type) {
    case 'load': {
      let nextKey = 1
      const fields = action.fields.map((f) => ({ ...f, key: `f${nextKey++}` }))
      return { ...emptyEditor, pages: action.pages, fields, saved: fields, nextKey }
    }
    case 'add': {
      const page = state.pages[action.field.page - 1]
      if (!page) return state
      const key = `f${state.nextKey}`
      const field: EditorField = withTypeProperties({ ...action.field, ...clampToPage(action.field, page), required: action.field.required ?? true, key })
      return withHistory(state, [...state.fields, field], { selected: key, nextKey: state.nextKey + 1 })
    }
    case 'select':
      // A field deleted since (while a save was on its way) cannot be selected.
      if (action.key !== null && !state.fields.some((f) => f.key === action.key)) return state
      return state.selected === action.key ? state : { ...state, selected: action.key }
    case 'place': {
      const target = action.page ?? state.fields.find((f) => f.key === action.key)?.page ?? 0
      const page = state.pages[target - 1]
      if (!page) return state
      return updateField(state, action.key, (f) => ({ ...f, page: target, ...clampToPage(action.rect, page) }), action.transient)
    }
    case 'resize':
      return updateField(state, action.key, (f, page) => ({ ...f, ...clampEdit(f, { width: action.width, height: action.height }, page) }), action.transient)
    case 'nudge':
      return updateField(state, action.key, (f, page) => ({ ...f, ...clampToPage({ ...f, x: f.x + action.dx, y: f.y + action.dy }, page) }))
    case 'edit':
      return updateField(state, action.key, (f, page) => {
        const { type, required, role, label, name, options, min, max } = action.changes
        const next: EditorField = { ...f, ...clampEdit(f, action.changes, page) }
        if (type !== undefined) next.type = type
        if (required !== undefined) next.required = required
        if (role !== undefined) next.role = clamp(Math.round(role), 0, MAX_ROLE)
        if ('label' in action.changes) setText(next, 'label', label, 200)
        if ('name' in action.changes) setText(next, 'name', name, 64)
        if (options !== undefined) next.options = options.map((option) => option.trim()).filter(Boolean)
        if (min !== undefined) setBound(next, 'min', min)
        if (max !== undefined) setBound(next, 'max', max)
        return withTypeProperties(next)
      })
    case 'delete':
      if (!state.fields.some((f) => f.key === action.key)) return state
      return withHistory(
        state,
        state.fields.filter((f) => f.key !== action.key),
        { selected: state.selected === action.key ? null : state.selected },
      )
    case 'undo': {
      const previous = state.past[state.past.length - 1]
      if (!previous) return state
      return {
        ...state,
        fields: previous,
        past: state.past.slice(0, -1),
        future: [state.fields, ...state.future],
        selected: keepSelection(previous, state.selected),
      }
    }
    case 'redo': {
      const next = state.future[0]
      if (!next) return state
      return { ...state, fields: next, past: [...state.past, state.fields], future: state.future.slice(1), selected: keepSelection(next, state.selected) }
    }
    case 'saved':
      return { ...state, saved: state.fields }
  }
}

function setText(field: EditorField, property: 'label' | 'name', value: string | undefined, limit: number): void {
  const text = value?.trim()
  if (text) field[property] = text.slice(0, limit)
  else delete field[property]
}

function setBound(field: EditorField, bound: 'min' | 'max', value: number | null): void {
  if (value === null || !Number.isFinite(value)) delete field[bound]
  else field[bound] = value
}

/**
 * Keeps only the properties the field's type has (options on radio and dropdown, bounds on
 * number), as the server requires; a radio or dropdown without options gets two to edit.
 */
function withTypeProperties(field: EditorField): EditorField {
  const next = { ...field }
  if (!hasOptions(next.type)) delete next.options
  else if (!next.options?.length) next.options = [...DEFAULT_OPTIONS]
  if (next.type !== 'number') {
    delete next.min
    delete next.max
  }
  return next
}

const keepSelection = (fields: EditorField[], selected: string | null): string | null =>
  selected !== null && fields.some((f) => f.key === selected) ? selected : null

/** The fields in the order a save sends them: by page, then reading order. */
const inSaveOrder = (fields: EditorField[]): EditorField[] => [...fields].sort((a, b) => a.page - b.page || a.y - b.y || a.x - b.x)

/** The fields as the API takes them (PUT /templates/{id}/fields), in page and reading order. */
export function fieldsForSave(fields: EditorField[]): TemplateField[] {
  return inSaveOrder(fields).map(({ key: _key, ...field }) => field)
}

/** The key of the field a save of `fields` sent at `index` (the server's errors count the list it was sent: /fields/3), or null. */
export function keyAtSaveIndex(fields: EditorField[], index: number): string | null {
  return inSaveOrder(fields)[index]?.key ?? null
}

/** Whether the fields differ from the last loaded or saved ones (an undo back to them counts as clean). */
export function hasUnsavedChanges(state: EditorState): boolean {
  if (state.fields === state.saved) return false
  return JSON.stringify(fieldsForSave(state.fields)) !== JSON.stringify(fieldsForSave(state.saved))
}

const TYPE_NAMES: Record<FieldType, string> = {
  signature: 'Signature',
  initials: 'Initials',
  date: 'Date',
  text: 'Text',
  checkbox: 'Checkbox',
  radio: 'Radio group',
  dropdown: 'Dropdown',
  number: 'Number',
  email: 'E-mail',
  name: 'Name',
}
export const fieldTypeName = (type: FieldType): string => TYPE_NAMES[type]

/** The accessible name of a field box: "Signature field, Landlord, page 2" (or "…, Party 1, …" for a role without a name). */
export const fieldAccessibleName = (field: TemplateField, roleNames: RoleNames): string =>
  `${TYPE_NAMES[field.type]} field${field.label ? ` “${field.label}”` : ''}, ${roleLabel(roleNames, field.role)}, page ${field.page}`
