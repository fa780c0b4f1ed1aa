import { getRouteApi, Link } from '@tanstack/react-router'
import { useState } from 'react'
import { ApiError } from '../../api/client.ts'
import { useMe } from '../../auth/session.ts'
import { Badge, Button, Card, EmptyState, Field, Input, PageHeader, Select, TBody, THead, Table, Td, Th, Tr } from '../../components/index.ts'
import { formatNumber } from '../../lib/format.ts'
import { peopleTextFor } from '../../lib/people-text.ts'
import { PLAN_LABELS } from '../../lib/vocabulary.ts'
import { PlanAwareError } from '../send/PlanAwareError.tsx'
import { WithTemplates } from '../templates/WithTemplates.tsx'
import { recipientAt, type BulkOutcome, type BulkProgress } from './bulk-run.ts'
import { BULK_PLANS, useBulkSend } from './queries.ts'
import { parseRecipientsCsv, recipientOf, type ParsedCsv, type Recipient } from './recipients-csv.ts'

const route = getRouteApi('/signed-in/bulk-send')
/** Rows shown in the check table; the counts above it cover the whole file. */
const PREVIEW_ROWS = 200

/** /app/bulk-send: one single-signer template to every row of a CSV (Team plan and higher). */
export function BulkSendPage() {
  const me = useMe()
  const plan = me.workspace?.plan ?? 'free'
  return (
    <>
      <PageHeader title="Bulk send" description="Send one template to many people: each row of a CSV file gets their own document to sign." />
      {BULK_PLANS.has(plan) ? (
        <BulkSend />
      ) : (
        <EmptyState
          title="Bulk send comes with the Team plan"
          description={`This workspace is on the ${PLAN_LABELS[plan]} plan. On Team and Business you can send a template to up to 10,000 people from one CSV file.`}
          action={
            <Button asChild>
              <Link to="/settings/billing">See plans</Link>
            </Button>
          }
        />
      )}
    </>
  )
}

function BulkSend() {
  return (
    <WithTemplates
      // Bulk send gives each document one signer, so only templates with fields for Party 1 alone fit.
      fit={(t) => t.roles.length === 1 && t.roles[0] === 0}
      emptyTitle="No template for one signer"
      emptyDescription="Bulk send needs a template whose fields are all for Party 1."
    >
      {(templates) => <BulkSendForm templates={templates} />}
    </WithTemplates>
  )
}

function BulkSendForm({ templates }: { templates: { id: string; name: string }[] }) {
  const search = route.useSearch()
  const [templateId, setTemplateId] = useState(search.template && templates.some((t) => t.id === search.template) ? search.template : (templates[0]?.id ?? ''))
  const [fileName, setFileName] = useState<string | null>(null)
  const [csv, setCsv] = useState<ParsedCsv | null>(null)
  const [progress, setProgress] = useState<BulkProgress | null>(null)
  const run = useBulkSend(setProgress)
  const outcome = run.data ?? null
  const sending = run.isPending

  const good = csv?.rows.filter((r) => r.problems.length === 0) ?? []
  const bad = csv?.rows.filter((r) => r.problems.length > 0) ?? []

  const send = (recipients: Recipient[]) => run.mutate({ templateId, recipients })

  return (
    <div className="flex max-w-4xl flex-col gap-5">
      <Card title="1. Template and recipients">
        <div className="grid gap-3 sm:grid-cols-2">
          <Field label="Template">
            <Select value={templateId} onValueChange={setTemplateId} options={templates.map((t) => ({ value: t.id, label: t.name }))} disabled={sending} />
          </Field>
          <Field label="CSV file" hint="A header row with “email” and, optionally, “name”; one recipient a line.">
            <Input
              type="file"
              accept=".csv,text/csv"
              className="py-1.5"
              disabled={sending}
              onChange={(event) => {
                const file = event.target.files?.[0]
                run.reset()
                setProgress(null)
                setFileName(file?.name ?? null)
                setCsv(null)
                void file?.text().then((text) => setCsv(parseRecipientsCsv(text)))
              }}
            />
          </Field>
        </div>
      </Card>

      {csv && (
        <Card title="2. Check the rows" description={fileName ?? undefined}>
          {csv.fileError ? (
            <p role="alert" className="text-sm text-red-700">
              {csv.fileError}
            </p>
          ) : (
            <>
              <p className="mb-3 flex flex-wrap gap-2 text-sm" role="status">
                <Badge tone="success">{formatNumber(good.length)} ready to send</Badge>
                {bad.length > 0 && <Badge tone="danger">{formatNumber(bad.length)} with problems (not sent)</Badge>}
              </p>
              <RowsTable rows={bad.length > 0 ? bad : csv.rows} caption={bad.length > 0 ? 'Rows with problems' : 'Recipients'} />
              {/* Once this file has been sent, sending it again would invite everyone twice (each run has new idempotency keys):
                  what was not sent is offered below, and another run starts from another file. */}
              <Button
                className="mt-4"
                disabled={good.length === 0 || sending || !templateId || outcome !== null}
                loading={sending}
                onClick={() => send(good.map(recipientOf))}
              >
                Send to {formatNumber(good.length)} {good.length === 1 ? 'recipient' : 'recipients'}
              </Button>
              {outcome && <p className="mt-2 text-sm text-muted">This file has been sent. Choose another file to send again.</p>}
            </>
          )}
        </Card>
      )}

      {progress && (
        <Card title="3. Sending">
          <label className="text-sm" htmlFor="bulk-progress">
            {outcome ? 'Done' : 'Sending'}: {formatNumber(progress.done)} of {formatNumber(progress.total)} processed
          </label>
          <progress id="bulk-progress" className="mt-2 h-3 w-full accent-brand-600" value={progress.done} max={Math.max(progress.total, 1)} />
          {outcome && <Outcome outcome={outcome} onResend={send} />}
        </Card>
      )}
    </div>
  )
}

function RowsTable({ rows, caption }: { rows: ParsedCsv['rows']; caption: string }) {
  return (
    <>
      <Table caption={caption}>
        <THead>
          <Tr>
            <Th>Line</Th>
            <Th>E-mail</Th>
            <Th>Name</Th>
            <Th>Check</Th>
          </Tr>
        </THead>
        <TBody>
          {rows.slice(0, PREVIEW_ROWS).map((row) => (
            <Tr key={row.line}>
              <Td>{row.line}</Td>
              <Td className="break-all">{row.email || '—'}</Td>
              <Td>{row.name || '—'}</Td>
              <Td>{row.problems.length === 0 ? <Badge tone="success">OK</Badge> : <span className="text-red-700">{row.problems.join(' ')}</span>}</Td>
            </Tr>
          ))}
        </TBody>
      </Table>
      {rows.length > PREVIEW_ROWS && <p className="mt-2 text-sm text-muted">and {formatNumber(rows.length - PREVIEW_ROWS)} more rows.</p>}
    </>
  )
}

function Outcome({ outcome, onResend }: { outcome: BulkOutcome; onResend: (recipients: Recipient[]) => void }) {
  const skipped = [...outcome.skippedForCap, ...outcome.skippedForTime, ...outcome.notSent]
  return (
    <div className="mt-4 flex flex-col gap-3">
      <dl className="grid grid-cols-2 gap-3 sm:grid-cols-4" role="status">
        <Count label="Sent" value={outcome.sent.length} tone="text-green-800" />
        <Count label="Skipped for cap" value={outcome.skippedForCap.length} tone="text-amber-900" />
        <Count label="Skipped for time" value={outcome.skippedForTime.length} tone="text-amber-900" />
        <Count label="Not sent (error)" value={outcome.notSent.length} tone="text-red-700" />
      </dl>
      {outcome.error !== null && <PlanAwareError error={stopReason(outcome)} title="Sending stopped" />}
      {outcome.skippedForCap.length > 0 && (
        <p className="text-sm">
          The plan's allowance or the spend cap was reached.{' '}
          <Link to="/settings/billing" className="text-brand-700 underline">
            Raise the cap or change plan
          </Link>
          , then send the skipped ones again.
        </p>
      )}
      {outcome.skippedForTime.length > 0 && <p className="text-sm">Some were skipped because a request ran out of time; sending them again is safe.</p>}
      {skipped.length > 0 && (
        <div>
          <Button onClick={() => onResend(skipped)}>Resubmit the {formatNumber(skipped.length)} skipped</Button>
        </div>
      )}
      {outcome.sent.length > 0 && (
        <p className="text-sm">
          <Link to="/documents" search={{ status: 'sent' }} className="text-brand-700 underline">
            See the sent documents
          </Link>
        </p>
      )}
    </div>
  )
}

/** Why the run stopped; a refusal of one recipient's value names them, in people's words. */
function stopReason(outcome: BulkOutcome): unknown {
  const { error } = outcome
  if (!(error instanceof ApiError) || error.status === 402 || !error.field) return error
  const text = peopleTextFor(error.code, error.field, error.message)
  const recipient = recipientAt(outcome, error.field)
  return recipient ? `${recipient.email}: ${text}` : text
}

function Count({ label, value, tone }: { label: string; value: number; tone: string }) {
  return (
    <div className="rounded-md border border-line p-3">
      <dt className="text-xs text-muted">{label}</dt>
      <dd className={`text-xl font-semibold ${value > 0 ? tone : ''}`}>{formatNumber(value)}</dd>
    </div>
  )
}
