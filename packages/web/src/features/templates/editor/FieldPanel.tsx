import { useState, type Dispatch } from 'react'
import { Button, Field, Input, Select, Switch } from '../../../components/index.ts'
import { partyLabel } from '../../../lib/vocabulary.ts'
import { FIELD_TYPES, MAX_ROLE, fieldTypeName, type EditorAction, type EditorField, type FieldType, type PageSize } from './editor-state.ts'

export const TYPE_OPTIONS = FIELD_TYPES.map((type) => ({ value: type, label: fieldTypeName(type) }))
export const ROLE_OPTIONS = Array.from({ length: MAX_ROLE + 1 }, (_, role) => ({ value: String(role), label: partyLabel(role) }))

interface FieldPanelProps {
  field: EditorField
  pages: PageSize[]
  dispatch: Dispatch<EditorAction>
}

/** The selected field's properties: type, party, required, label, page and its box in points. */
export function FieldPanel({ field, pages, dispatch }: FieldPanelProps) {
  const edit = (changes: Parameters<typeof editAction>[1]) => dispatch(editAction(field.key, changes))
  const page = pages[field.page - 1]
  return (
    <div className="flex flex-col gap-3">
      <Field label="Type">
        <Select value={field.type} onValueChange={(type) => edit({ type: type as FieldType })} options={TYPE_OPTIONS} />
      </Field>
      <Field label="Signer">
        <Select value={String(field.role)} onValueChange={(role) => edit({ role: Number(role) })} options={ROLE_OPTIONS} />
      </Field>
      <Switch label="Required" checked={field.required} onCheckedChange={(required) => edit({ required })} />
      <LabelInput key={field.key} value={field.label ?? ''} onCommit={(label) => edit({ label })} />
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

/** A number typed freely and applied on Enter or when leaving the box (the reducer clamps it to the page). */
function NumberInput({ label, value, onCommit }: { label: string; value: number; onCommit: (value: number) => void }) {
  const [draft, setDraft] = useState(String(round(value)))
  // A new value from the reducer (a drag, an undo) replaces the draft, adjusted while rendering.
  const [shown, setShown] = useState(value)
  if (shown !== value) {
    setShown(value)
    setDraft(String(round(value)))
  }
  const commit = () => {
    const number = Number(draft)
    if (draft.trim() !== '' && Number.isFinite(number)) onCommit(number)
    else setDraft(String(round(value)))
  }
  return (
    <Field label={label}>
      <Input
        inputMode="decimal"
        value={draft}
        onChange={(event) => setDraft(event.target.value)}
        onBlur={commit}
        onKeyDown={(event) => {
          if (event.key === 'Enter') commit()
        }}
      />
    </Field>
  )
}

function LabelInput({ value, onCommit }: { value: string; onCommit: (value: string) => void }) {
  const [draft, setDraft] = useState(value)
  const [shown, setShown] = useState(value)
  if (shown !== value) {
    setShown(value)
    setDraft(value)
  }
  return (
    <Field label="Label" hint="Shown to the signer; optional.">
      <Input
        value={draft}
        maxLength={200}
        onChange={(event) => setDraft(event.target.value)}
        onBlur={() => onCommit(draft)}
        onKeyDown={(event) => {
          if (event.key === 'Enter') onCommit(draft)
        }}
      />
    </Field>
  )
}
