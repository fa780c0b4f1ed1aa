import { useQuery } from '@tanstack/react-query'
import { useState, type FormEvent } from 'react'
import { reminderSettingsQuery, type ReminderSchedule } from '../../api/queries.ts'
import { useMe } from '../../auth/session.ts'
import { Card } from '../../components/Card.tsx'
import { PageHeader } from '../../components/PageHeader.tsx'
import { QueryView } from '../../components/QueryView.tsx'
import { Switch } from '../../components/Switch.tsx'
import { useToast } from '../../components/Toast.tsx'
import { formatReminderSchedule } from '../../lib/format.ts'
import { placeError } from '../../lib/people-text.ts'
import { useSetReminderSettings } from './queries.ts'
import { draftOf, scheduleOf, SUGGESTED_SCHEDULE, type ReminderDraft } from './reminder-draft.ts'
import { ReminderScheduleFields } from './ReminderScheduleFields.tsx'
import { SaveFooter } from './SaveFooter.tsx'
import { SignerLanguageCard } from './SignerLanguageCard.tsx'

/** The controls a refusal's `field` can point at, as JSON pointers without their leading slash. */
const CONTROLS = ['reminders/first_after_days', 'reminders/every_days', 'reminders/max'] as const

export function RemindersPage() {
  const me = useMe()
  const settings = useQuery(reminderSettingsQuery)
  // /me has no ability of its own for this: the server lets the same people change it as the spend cap (owners and admins).
  const editable = me.abilities.manage_billing
  return (
    <>
      <PageHeader
        title="Reminders"
        description="A reminder is the invitation again, with a new link, for a signer who has not signed yet; their earlier link stops working."
      />
      <Card title="Default for new documents">
        <QueryView query={settings} loadingLabel="Loading reminders…">
          {({ reminders }) => (
            <>
              <p className="text-sm">
                {reminders
                  ? `Documents sent from this workspace remind signers ${formatReminderSchedule(reminders)}.`
                  : 'Documents sent from this workspace do not remind signers.'}
              </p>
              <p className="mt-2 text-sm text-muted">
                Documents already sent keep the schedule they were sent with. The Send page can choose another one for a single document.
              </p>
              {editable ? (
                <ReminderForm saved={reminders} />
              ) : (
                <p className="mt-2 text-sm text-muted">Only owners and admins of this workspace change the default.</p>
              )}
            </>
          )}
        </QueryView>
      </Card>
      <SignerLanguageCard />
    </>
  )
}

/** On or off, and the schedule when on; saving off sets no default at all. */
function ReminderForm({ saved }: { saved: ReminderSchedule | null }) {
  const toast = useToast()
  const [on, setOn] = useState(saved !== null)
  const [draft, setDraft] = useState<ReminderDraft>(draftOf(saved ?? SUGGESTED_SCHEDULE))
  const save = useSetReminderSettings()
  const placed = placeError(save.error, CONTROLS)
  const submit = (event: FormEvent) => {
    event.preventDefault()
    save.mutate(on ? scheduleOf(draft) : null, {
      onSuccess: ({ reminders }) => toast({ title: reminders ? 'Reminders saved' : 'Reminders turned off', tone: 'success' }),
    })
  }
  return (
    <form onSubmit={submit} noValidate className="mt-4 flex flex-col gap-4 border-t border-line pt-4">
      <Switch label="Remind signers who have not signed" checked={on} onCheckedChange={setOn} />
      {on && <ReminderScheduleFields draft={draft} onChange={setDraft} errorFor={(name) => placed.under(`reminders/${name}`)} />}
      <SaveFooter saving={save.isPending} error={placed.above} errorTitle="The reminders were not saved" />
    </form>
  )
}
