import type { ReminderSchedule } from '../../api/queries.ts'
import { Field } from '../../components/Field.tsx'
import { Input } from '../../components/Input.tsx'
import type { ReminderDraft } from './reminder-draft.ts'

/** The highest numbers the server takes (documents/reminders.ts). */
const MAX_DAYS = 60
const MAX_REMINDERS = 10

export interface ReminderScheduleFieldsProps {
  draft: ReminderDraft
  onChange: (draft: ReminderDraft) => void
  /** The refusal the server placed under one of the numbers, in people's words. */
  errorFor: (name: keyof ReminderSchedule) => string | null | undefined
}

/** "First reminder after N days, then every M days, at most K reminders": Settings → Reminders and the Send page's Custom. */
export function ReminderScheduleFields({ draft, onChange, errorFor }: ReminderScheduleFieldsProps) {
  const box = (name: keyof ReminderSchedule, label: string, unit: string, hint: string, max: number) => (
    <Field label={label} hint={hint} error={errorFor(name)}>
      {/* A number of one or two digits: the box stays narrow, its unit beside it reads as the sentence goes on. */}
      <div className="flex items-center gap-2">
        <div className="w-20">
          <Input type="number" inputMode="numeric" min={1} max={max} value={draft[name]} onChange={(e) => onChange({ ...draft, [name]: e.target.value })} />
        </div>
        <span className="text-sm">{unit}</span>
      </div>
    </Field>
  )
  return (
    // As wide as the Send page's form at most: on a wide settings page the three would drift apart.
    <div className="grid max-w-2xl gap-3 sm:grid-cols-3">
      {box('first_after_days', 'First reminder after', 'days', `1 to ${MAX_DAYS} days after the invitation`, MAX_DAYS)}
      {box('every_days', 'Then every', 'days', `1 to ${MAX_DAYS} days between reminders`, MAX_DAYS)}
      {box('max', 'At most', 'reminders', `1 to ${MAX_REMINDERS} reminders to each signer`, MAX_REMINDERS)}
    </div>
  )
}
