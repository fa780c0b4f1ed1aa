import { useQuery } from '@tanstack/react-query'
import { getRouteApi, Link, useNavigate } from '@tanstack/react-router'
import { useState, type FormEvent } from 'react'
import { ApiError } from '../../api/client.ts'
import { reminderSettingsQuery } from '../../api/queries.ts'
import { Button, Card, Field, Input, PageHeader, Select, Switch, Textarea } from '../../components/index.ts'
import { draftOf, scheduleOf, SUGGESTED_SCHEDULE, type ReminderDraft } from '../settings/reminder-draft.ts'
import type { TemplateSummary } from '../templates/queries.ts'
import { roleLabel } from '../templates/role-labels.ts'
import { WithTemplates } from '../templates/WithTemplates.tsx'
import { peopleTextFor } from '../../lib/people-text.ts'
import { controlFor, type SendControl } from './error-placement.ts'
import { PlanAwareError } from './PlanAwareError.tsx'
import { useCreateDocument } from './queries.ts'
import { RemindersChoice, type ReminderChoice } from './RemindersChoice.tsx'

const route = getRouteApi('/signed-in/send')

interface Party {
  email: string
  name: string
  auth_required: boolean
}

const emptyParty: Party = { email: '', name: '', auth_required: false }

/** The highest step the server takes (parties with the same step sign at the same time). */
const MAX_STEP = 20

/** A datetime-local value (the person's own time zone) as the UTC date-time the API takes. */
function toUtc(local: string): string {
  const date = new Date(local)
  return Number.isNaN(date.getTime()) ? local : date.toISOString().replace(/\.\d{3}Z$/, 'Z')
}

/** /app/send: one template to one signer, or to one signer per role. */
export function SendPage() {
  return (
    <>
      <PageHeader title="Send a document" description="Choose a template and who signs it; each signer gets an e-mail with their own link." />
      <WithTemplates emptyTitle="No templates yet" emptyDescription="Upload a PDF and place its fields first.">
        {(templates) => <SendForm templates={templates} />}
      </WithTemplates>
    </>
  )
}

/** A party as the template calls it: its role's name ("Landlord"), else "Party N". */
const partyOf = (template: TemplateSummary | undefined, role: number): string => roleLabel(template?.role_names ?? [], role)

/** The template's default step for a role; the server keeps them on every role or on none. */
const defaultStep = (template: TemplateSummary | undefined, role: number): number | undefined =>
  template?.role_names?.find((entry) => entry.role === role)?.order

function SendForm({ templates }: { templates: TemplateSummary[] }) {
  const search = route.useSearch()
  const navigate = useNavigate()
  const [templateId, setTemplateId] = useState(search.template && templates.some((t) => t.id === search.template) ? search.template : (templates[0]?.id ?? ''))
  const [parties, setParties] = useState<Record<number, Party>>({})
  const [expires, setExpires] = useState('')
  const [subject, setSubject] = useState('')
  const [message, setMessage] = useState('')
  // Off: every party is invited at once. Untouched (null), it follows the template: on when the template has default steps.
  const [oneAfterAnotherChoice, setOneAfterAnother] = useState<boolean | null>(null)
  // As typed (a cleared box is ''); a party nobody changed takes its place in role order: 1, 2, 3…
  const [steps, setSteps] = useState<Record<number, string>>({})
  const workspaceReminders = useQuery(reminderSettingsQuery)
  const [reminderChoice, setReminderChoice] = useState<ReminderChoice>('default')
  // Custom starts from the workspace's default (when it has one), so changing one number keeps the others; null until typed in.
  const [typedReminders, setTypedReminders] = useState<ReminderDraft | null>(null)
  const customReminders = typedReminders ?? draftOf(workspaceReminders.data?.reminders ?? SUGGESTED_SCHEDULE)
  const template = templates.find((t) => t.id === templateId)
  const templateSteps = template?.role_names?.some((entry) => entry.order !== undefined) ?? false
  const oneAfterAnother = oneAfterAnotherChoice ?? templateSteps
  // A template without fields cannot be sent (the server would refuse it): the form says so instead.
  const withoutFields = template !== undefined && template.roles.length === 0
  const roles = template && !withoutFields ? template.roles : [0]
  const single = roles.length === 1 && roles[0] === 0
  const party = (role: number): Party => parties[role] ?? emptyParty
  const setParty = (role: number, change: Partial<Party>) => setParties((all) => ({ ...all, [role]: { ...party(role), ...change } }))
  // An order needs two parties to put one after the other.
  const several = roles.length > 1
  const ordered = oneAfterAnother && several
  const step = (role: number): string => steps[role] ?? String(defaultStep(template, role) ?? roles.indexOf(role) + 1)
  const chooseTemplate = (id: string) => {
    setTemplateId(id)
    // Steps belong to a template: another one starts from its own defaults.
    setOneAfterAnother(null)
    setSteps({})
  }

  const send = useCreateDocument()
  // An error about one value goes under its control, from the server's `field`; the rest (and a 402's way out) above the button.
  const refusal = send.error instanceof ApiError && send.error.status !== 402 ? send.error : null
  const placed = refusal ? controlFor(refusal.field, roles) : null
  // A step's error with the steps hidden (the switch turned off since) goes above the button rather than nowhere; so does a reminder's without Custom.
  const hidden = (placed?.endsWith('.order') && !ordered) || (placed?.startsWith('reminders.') && reminderChoice !== 'custom')
  const control = hidden ? null : placed
  const errorFor = (name: SendControl) => (refusal && control === name ? peopleTextFor(refusal.code, refusal.field, refusal.message) : undefined)

  const submit = (event: FormEvent) => {
    event.preventDefault()
    const signer = (role: number) => {
      const { email, name, auth_required } = party(role)
      return { email: email.trim(), ...(name.trim() ? { name: name.trim() } : {}), auth_required }
    }
    send.mutate({
      template_id: templateId,
      // A cleared or odd step is sent as it is (a cleared one as 0): the server's refusal then shows under that party's Step.
      // Everyone at once from a template with default steps is `order: null`: without any order the server would take the template's steps.
      ...(single
        ? { signer: signer(0) }
        : { signers: roles.map((role) => ({ role, ...signer(role), ...(ordered ? { order: Number(step(role)) } : templateSteps ? { order: null } : {}) })) }),
      ...(expires ? { expires_at: toUtc(expires) } : {}),
      ...(subject.trim() ? { invite_subject: subject.trim() } : {}),
      ...(message.trim() ? { invite_message: message.trim() } : {}),
      // The workspace's default is no key at all: the server applies the default it has when the document is sent.
      ...(reminderChoice === 'none' ? { reminders: null } : reminderChoice === 'custom' ? { reminders: scheduleOf(customReminders) } : {}),
    })
  }

  if (send.data) {
    // One signer answers with domain_warning, several with domain_warnings.
    const warnings = 'signers' in send.data ? (send.data.domain_warnings ?? []) : [send.data.domain_warning].filter(Boolean)
    // With steps the server invited only the lowest one: the card says who, from the steps it answers with.
    const orders = 'signers' in send.data ? send.data.signers.flatMap((signer) => (signer.order === undefined ? [] : [signer.order])) : []
    const firstStepSize = orders.filter((order) => order === Math.min(...orders)).length
    const invitedFirst =
      orders.length > 0 ? (firstStepSize === 1 ? 'The first signer has' : 'The signers of the first step have') : single ? 'The signer has' : 'Every signer has'
    return (
      <Card title="Sent">
        <p className="text-sm">
          {invitedFirst} been sent an invitation to sign “{template?.name}”.
          {orders.length > 0 && ' Each next step is invited once everyone in the step before has signed.'}
        </p>
        {warnings.map((warning) => (
          <p key={warning} role="status" className="mt-2 rounded-md border border-amber-300 bg-amber-50 p-2 text-sm text-amber-950">
            {warning}
          </p>
        ))}
        <div className="mt-4 flex flex-wrap gap-2">
          <Button asChild>
            <Link to="/documents/$id" params={{ id: send.data.id }}>
              View the document
            </Link>
          </Button>
          <Button
            variant="secondary"
            onClick={() => {
              send.reset()
              setParties({})
              setSteps({})
              void navigate({ to: '/send', search: { template: templateId } })
            }}
          >
            Send another
          </Button>
        </div>
      </Card>
    )
  }

  return (
    <form onSubmit={submit} noValidate className="flex max-w-2xl flex-col gap-5">
      <Card title="Template">
        <Field label="Template" error={errorFor('template_id')} required>
          <Select value={templateId} onValueChange={chooseTemplate} options={templates.map((t) => ({ value: t.id, label: t.name }))} />
        </Field>
        {several && <Switch className="mt-4" label="Signers sign one after another" checked={oneAfterAnother} onCheckedChange={setOneAfterAnother} />}
        {several && templateSteps && <p className="mt-1 text-sm text-muted">The template sets the steps; changes here apply to this document only.</p>}
        {withoutFields && (
          <p className="mt-2 text-sm" role="status">
            This template has no fields yet, so there is nothing to sign.{' '}
            <Link to="/templates/$id" params={{ id: template.id }} className="font-medium text-brand-700 underline">
              Edit fields
            </Link>{' '}
            first, then send it.
          </p>
        )}
      </Card>
      {!withoutFields && signerAndInvitation()}
      {send.error && control === null && <PlanAwareError error={send.error} title="The document was not sent" />}
      <div>
        <Button type="submit" loading={send.isPending} disabled={!templateId || withoutFields}>
          Send for signature
        </Button>
      </div>
    </form>
  )

  // A render helper called inline (not a component: a component made during render would remount, losing the typing focus).
  function signerAndInvitation() {
    return (
      <>
        {roles.map((role) => (
          <fieldset key={role} className="rounded-lg border border-line bg-white p-4 sm:p-5">
            <legend className="px-1 text-base font-semibold">
              {single ? (template?.role_names?.find((entry) => entry.role === 0)?.name ?? 'Signer') : partyOf(template, role)}
            </legend>
            {ordered && (
              <Field label="Step" hint="Parties with the same step sign at the same time." error={errorFor(`party.${role}.order`)} className="mb-3">
                {/* A number of one or two digits: the box stays narrow (Input is as wide as its container), the hint does not. */}
                <div className="w-24">
                  <Input
                    type="number"
                    inputMode="numeric"
                    min={1}
                    max={MAX_STEP}
                    value={step(role)}
                    onChange={(e) => setSteps((all) => ({ ...all, [role]: e.target.value }))}
                  />
                </div>
              </Field>
            )}
            <div className="grid gap-3 sm:grid-cols-2">
              <Field label="E-mail" required error={errorFor(`party.${role}.email`) ?? errorFor(`party.${role}.role`)}>
                <Input type="email" autoComplete="off" value={party(role).email} onChange={(e) => setParty(role, { email: e.target.value })} />
              </Field>
              <Field label="Name" error={errorFor(`party.${role}.name`)}>
                <Input autoComplete="off" value={party(role).name} onChange={(e) => setParty(role, { name: e.target.value })} />
              </Field>
            </div>
            <Switch
              className="mt-3"
              label="Ask for a one-time code sent by e-mail before the document opens"
              checked={party(role).auth_required}
              onCheckedChange={(auth_required) => setParty(role, { auth_required })}
            />
            {errorFor(`party.${role}.auth_required`) && (
              <p className="mt-1 text-sm text-red-700" role="alert">
                {errorFor(`party.${role}.auth_required`)}
              </p>
            )}
          </fieldset>
        ))}
        <Card title="Invitation">
          <div className="flex flex-col gap-3">
            <Field label="Expires" hint="Optional. After this moment the signing links stop working." error={errorFor('expires_at')}>
              <Input type="datetime-local" value={expires} onChange={(e) => setExpires(e.target.value)} />
            </Field>
            <RemindersChoice
              choice={reminderChoice}
              onChoiceChange={setReminderChoice}
              workspaceDefault={workspaceReminders}
              draft={customReminders}
              onDraftChange={setTypedReminders}
              errorFor={(name) => errorFor(`reminders.${name}`)}
            />
            <Field label="Subject" hint="Optional; a standard subject names the document." error={errorFor('invite_subject')}>
              <Input value={subject} maxLength={200} onChange={(e) => setSubject(e.target.value)} />
            </Field>
            <Field label="Message" hint="Optional; shown in the invitation e-mail." error={errorFor('invite_message')}>
              <Textarea value={message} maxLength={2000} onChange={(e) => setMessage(e.target.value)} />
            </Field>
          </div>
        </Card>
      </>
    )
  }
}
