import type { UseQueryResult } from '@tanstack/react-query'
import { useId, type ReactNode } from 'react'
import type { ReminderSchedule } from '../../api/queries.ts'
import { formatReminderSchedule } from '../../lib/format.ts'
import type { ReminderDraft } from '../settings/reminder-draft.ts'
import { ReminderScheduleFields } from '../settings/ReminderScheduleFields.tsx'

/** The workspace's default (the request carries no schedule), none for this document, or a schedule of its own. */
export type ReminderChoice = 'default' | 'none' | 'custom'

export interface RemindersChoiceProps {
  choice: ReminderChoice
  onChoiceChange: (choice: ReminderChoice) => void
  /** GET /settings/reminders: what "Workspace default" means today. */
  workspaceDefault: UseQueryResult<{ reminders: ReminderSchedule | null }>
  draft: ReminderDraft
  onDraftChange: (draft: ReminderDraft) => void
  errorFor: (name: keyof ReminderSchedule) => string | undefined
}

/** The Send page's Reminders: three choices, and the numbers of a Custom schedule. */
export function RemindersChoice({ choice, onChoiceChange, workspaceDefault, draft, onDraftChange, errorFor }: RemindersChoiceProps) {
  const id = useId()
  // Unread (or unreadable) default: the option is named without saying what it is today.
  const current = workspaceDefault.data
  const defaultWords = current && (current.reminders ? `Currently ${formatReminderSchedule(current.reminders)}.` : 'Currently none.')
  const option = (value: ReminderChoice, label: string, description: ReactNode) => (
    <ChoiceOption name={id} value={value} checked={choice === value} onChange={onChoiceChange} label={label} description={description} />
  )
  return (
    <fieldset aria-describedby={`${id}-hint`}>
      <legend className="text-sm font-medium">Reminders</legend>
      <p id={`${id}-hint`} className="text-sm text-muted">
        The invitation again, with a new link, to each signer who has not signed yet.
      </p>
      <div className="mt-1.5 flex flex-col gap-2">
        {option('default', 'Workspace default', defaultWords)}
        {option('none', 'No reminders', 'Signers are not reminded of this document.')}
        {option('custom', 'Custom', 'A schedule for this document only.')}
      </div>
      {choice === 'custom' && (
        <div className="mt-3">
          <ReminderScheduleFields draft={draft} onChange={onDraftChange} errorFor={errorFor} />
        </div>
      )}
    </fieldset>
  )
}

interface ChoiceOptionProps {
  name: string
  value: ReminderChoice
  checked: boolean
  onChange: (value: ReminderChoice) => void
  label: string
  description: ReactNode
}

/** One radio button in a box that takes the click, its label in bold and what it means under it (as on the consent page). */
function ChoiceOption({ name, value, checked, onChange, label, description }: ChoiceOptionProps) {
  const id = `${name}-${value}`
  return (
    <label
      htmlFor={id}
      className="flex cursor-pointer gap-3 rounded-md border border-line px-3 py-2.5 has-[:checked]:border-brand-600 has-[:checked]:bg-brand-50"
    >
      <input
        id={id}
        type="radio"
        name={name}
        value={value}
        checked={checked}
        onChange={() => onChange(value)}
        aria-labelledby={`${id}-label`}
        aria-describedby={description ? `${id}-description` : undefined}
        className="mt-0.5 size-4 shrink-0 accent-brand-600"
      />
      <span className="min-w-0">
        <span id={`${id}-label`} className="block text-sm font-semibold">
          {label}
        </span>
        {description && (
          <span id={`${id}-description`} className="block text-sm text-muted">
            {description}
          </span>
        )}
      </span>
    </label>
  )
}
