import { useState, type ChangeEvent, type Dispatch, type KeyboardEvent } from 'react'
import { Button, Field, Input, Select, Switch, Textarea, type SelectOption } from '../../../components/index.ts'
import { FIELD_TYPES, MAX_ROLE, fieldTypeName, hasOptions, type EditorAction, type EditorField, type FieldType, type PageSize } from './editor-state.ts'
import { roleLabel, type RoleNames } from '../role-labels.ts'

export const TYPE_OPTIONS = FIELD_TYPES.map((type) => ({ value: type, label: fieldTypeName(type) }))

/** Every role a field can belong to, as the template names it ("Landlord", else "Party 2"). */
export const roleOptions = (roleNames: RoleNames): SelectOption[] =>
  Array.from({ length: MAX_ROLE + 1 }, (_, role) => ({ value: String(role), label: roleLabel(roleNames, role) }))

interface FieldPanelProps {
  field: EditorField
  roleNames: RoleNames
  pages: PageSize[]
  dispatch: Dispatch<EditorAction>
}

/** The selected field's properties: type, party, required, label, its options or bounds, its API name, page and its box in points. */
export function FieldPanel({ field, roleNames, pages, dispatch }: FieldPanelProps) {
  const edit = (changes: Parameters<typeof editAction>[1]) => dispatch(editAction(field.key, changes))
  const page = pages[field.page - 1]
  return (
    <div className="flex flex-col gap-3">
      <Field label="Type">
        <Select value={field.type} onValueChange={(type) => edit({ type: type as FieldType })} options={TYPE_OPTIONS} />
      </Field>
      <Field label="Signer">
        <Select value={String(field.role)} onValueChange={(role) => edit({ role: Number(role) })} options={roleOptions(roleNames)} />
      </Field>
      <Switch label="Required" checked={field.required} onCheckedChange={(required) => edit({ required })} />
      <TextInput
        key={`label-${field.key}`}
        label="Label"
        hint="Shown to the signer; optional."
        maxLength={200}
        value={field.label ?? ''}
        onCommit={(label) => edit({ label })}
      />
      {hasOptions(field.type) && (
        <TextInput
          key={`options-${field.key}`}
          label="Options"
          hint="One choice per line, in the order the signer sees them."
          multiline
          value={(field.options ?? []).join('\n')}
          onCommit={(text) => edit({ options: text.split('\n') })}
        />
      )}
      {field.type === 'number' && (
        <div className="grid grid-cols-2 gap-2">
          <NumberInput label="Minimum" value={field.min ?? null} onCommit={(min) => edit({ min })} />
          <NumberInput label="Maximum" value={field.max ?? null} onCommit={(max) => edit({ max })} />
        </div>
      )}
      <TextInput
        key={`name-${field.key}`}
        label="Name for the API"
        hint="Optional: lets a send prefill this field by name (letters, digits, _ . -)."
        maxLength={64}
        value={field.name ?? ''}
        onCommit={(name) => edit({ name })}
      />
      <Field label="Page">
        <Select
          value={String(field.page)}
          onValueChange={(value) => dispatch({ type: 'place', key: field.key, page: Number(value), rect: field })}
          options={pages.map((_, i) => ({ value: String(i + 1), label: `Page ${i + 1}` }))}
        />
      </Field>
      <fieldset className="grid grid-cols-2 gap-2">
        <legend className="mb-1 text-sm font-medium">
          Position and size <span className="font-normal text-muted">(points{page ? `; page ${round(page.width)} × ${round(page.height)}` : ''})</span>
        </legend>
        <NumberInput label="X" value={field.x} onCommit={(x) => edit({ x })} />
        <NumberInput label="Y" value={field.y} onCommit={(y) => edit({ y })} />
        <NumberInput label="Width" value={field.width} onCommit={(width) => edit({ width })} />
        <NumberInput label="Height" value={field.height} onCommit={(height) => edit({ height })} />
      </fieldset>
      <Button variant="danger-secondary" size="sm" onClick={() => dispatch({ type: 'delete', key: field.key })}>
        Delete field
      </Button>
    </div>
  )
}

const editAction = (key: string, changes: Extract<EditorAction, { type: 'edit' }>['changes']): EditorAction => ({ type: 'edit', key, changes })
const round = (value: number) => Math.round(value * 100) / 100

/**
 * The text of a box that edits `value`, typed freely and applied by the box's owner. A new value
 * from the reducer (a drag, an undo) replaces the text, adjusted while rendering.
 */
function useDraft<T>(value: T, textOf: (value: T) => string) {
  const [draft, setDraft] = useState(() => textOf(value))
  const [shown, setShown] = useState(value)
  if (shown !== value) {
    setShown(value)
    setDraft(textOf(value))
  }
  return [draft, setDraft] as const
}

const onEnter = (commit: () => void) => (event: KeyboardEvent) => {
  if (event.key === 'Enter') commit()
}

/**
 * A number typed freely and applied on Enter or when leaving the box (the reducer clamps a position
 * to the page). With a null value the box may be left empty, which commits null (no bound).
 */
function NumberInput<T extends number | null>({ label, value, onCommit }: { label: string; value: T; onCommit: (value: number | T) => void }) {
  const shownText = (v: number | null) => (v === null ? '' : String(round(v)))
  const [draft, setDraft] = useDraft(value, shownText)
  const commit = () => {
    const number = Number(draft)
    if (draft.trim() !== '' && Number.isFinite(number)) onCommit(number)
    else if (draft.trim() === '' && value === null) onCommit(value)
    else setDraft(shownText(value))
  }
  return (
    <Field label={label}>
      <Input inputMode="decimal" value={draft} onChange={(event) => setDraft(event.target.value)} onBlur={commit} onKeyDown={onEnter(commit)} />
    </Field>
  )
}

/** Text applied when leaving the box (or on Enter, in one line). */
function TextInput(props: { label: string; hint: string; value: string; maxLength?: number; multiline?: boolean; onCommit: (value: string) => void }) {
  const { label, hint, value, maxLength, multiline, onCommit } = props
  const [draft, setDraft] = useDraft(value, String)
  const common = {
    value: draft,
    onChange: (event: ChangeEvent<HTMLInputElement | HTMLTextAreaElement>) => setDraft(event.target.value),
    onBlur: () => onCommit(draft),
  }
  return (
    <Field label={label} hint={hint}>
      {multiline ? <Textarea {...common} rows={4} /> : <Input {...common} maxLength={maxLength} onKeyDown={onEnter(() => onCommit(draft))} />}
    </Field>
  )
}
