import { useQuery } from '@tanstack/react-query'
import { Link } from '@tanstack/react-router'
import type { ReactNode } from 'react'
import { api, unwrap } from '../../api/client.ts'
import { usageQuery } from '../../api/queries.ts'
import { canManage, useMe } from '../../auth/session.ts'
import { buttonClass } from '../../components/Button.tsx'
import { Card } from '../../components/Card.tsx'
import { EmptyState } from '../../components/EmptyState.tsx'
import { Meter } from '../../components/Meter.tsx'
import { PageHeader } from '../../components/PageHeader.tsx'
import { QueryView } from '../../components/QueryView.tsx'
import { StatusBadge } from '../../components/Badge.tsx'
import { formatCents, formatDateTime, formatNumber } from '../../lib/format.ts'
import { keysApi } from '../settings/api-keys-api.ts'

export function OverviewPage() {
  const me = useMe()
  return (
    <>
      <PageHeader
        title="Overview"
        description={`${me.workspace?.name ?? ''} · this month's usage and recent documents`}
        actions={
          <Link to="/send" className={buttonClass('primary')}>
            Send a document
          </Link>
        }
      />
      <div className="flex flex-col gap-5">
        <Checklist />
        <Usage />
        <RecentDocuments />
      </div>
    </>
  )
}

function Usage() {
  const usage = useQuery(usageQuery())
  return (
    <Card
      title="Usage this period"
      actions={
        <Link to="/settings/billing" className={buttonClass('secondary', 'sm')}>
          Billing
        </Link>
      }
    >
      <QueryView query={usage} loadingLabel="Loading usage…">
        {(u) => {
          const sends = u.units_by_source.rest_sends + u.units_by_source.bulk_sends
          return (
            <>
              <p className="mb-4 text-sm text-muted">
                Plan <strong className="capitalize text-ink">{u.plan}</strong> · period {u.period} (UTC)
              </p>
              <div className="mb-5">
                <div className="mb-1 flex justify-between text-sm">
                  <span>Included in the plan</span>
                  <span>
                    {formatNumber(u.included_used)} of {formatNumber(u.included_allowance)} used
                  </span>
                </div>
                <Meter value={u.included_used} max={u.included_allowance} label={`${u.included_used} of ${u.included_allowance} included units used`} />
              </div>
              <dl className="grid grid-cols-2 gap-3 sm:grid-cols-3 lg:grid-cols-4">
                <Stat label="Sends" value={formatNumber(sends)} detail={`${formatNumber(u.units_by_source.rest_sends)} single, ${formatNumber(u.units_by_source.bulk_sends)} bulk`} />
                <Stat label="Seals" value={formatNumber(u.units_by_source.seals)} />
                <Stat label="Agent-tool sends" value={formatNumber(u.units_by_source.agent_tool_sends)} detail="through MCP" />
                <Stat label="Credits left" value={formatNumber(u.credit_balance)} detail={`${formatNumber(u.credits_used)} used this period`} />
                <Stat label="Billable" value={formatCents(u.amount_cents)} detail={`${formatNumber(u.billable_units)} × ${formatCents(u.unit_price_cents)}`} />
                <Stat
                  label="Spend cap"
                  value={u.spend_cap_cents === null ? 'None' : formatCents(u.spend_cap_cents)}
                  detail={u.spend_cap_remaining_cents === null ? undefined : `${formatCents(u.spend_cap_remaining_cents)} left`}
                />
                {u.unlimited_units > 0 && <Stat label="Unmetered" value={formatNumber(u.unlimited_units)} detail="not counted against the plan" />}
              </dl>
            </>
          )
        }}
      </QueryView>
    </Card>
  )
}

function Stat({ label, value, detail }: { label: string; value: ReactNode; detail?: string | undefined }) {
  return (
    <div className="rounded-md border border-line p-3">
      <dt className="text-xs font-medium uppercase tracking-wide text-muted">{label}</dt>
      <dd className="mt-1 text-xl font-semibold">{value}</dd>
      {detail && <dd className="text-xs text-muted">{detail}</dd>}
    </div>
  )
}

function RecentDocuments() {
  const documents = useQuery({
    queryKey: ['documents', { limit: 5, recent: true }],
    queryFn: () => unwrap(api.GET('/documents', { params: { query: { limit: 5 } } })),
  })
  return (
    <Card
      title="Recent documents"
      actions={
        <Link to="/documents" className={buttonClass('secondary', 'sm')}>
          All documents
        </Link>
      }
    >
      <QueryView query={documents} loadingLabel="Loading documents…">
        {(list) =>
          list.documents.length === 0 ? (
            <EmptyState
              title="No documents yet"
              description="Send a template to one or more signers; it shows here as it moves to completed."
              action={
                <Link to="/send" className={buttonClass('primary', 'sm')}>
                  Send a document
                </Link>
              }
            />
          ) : (
            <ul className="divide-y divide-gray-200">
              {list.documents.map((document) => (
                <li key={document.id} className="flex flex-wrap items-center justify-between gap-2 py-2.5">
                  <Link to="/documents/$id" params={{ id: document.id }} className="min-w-0 truncate font-medium text-brand-700 underline-offset-2 hover:underline">
                    {document.title}
                  </Link>
                  <span className="flex items-center gap-3 text-sm text-muted">
                    {formatDateTime(document.created_at)}
                    <StatusBadge status={document.status} />
                  </span>
                </li>
              ))}
            </ul>
          )
        }
      </QueryView>
    </Card>
  )
}

/** The first-run checklist: shown until every step is done. */
function Checklist() {
  const me = useMe()
  const manager = canManage(me)
  const templates = useQuery({ queryKey: ['templates', { limit: 1 }], queryFn: () => unwrap(api.GET('/templates', { params: { query: { limit: 1 } } })) })
  const keys = useQuery({
    queryKey: ['keys'],
    queryFn: keysApi.list,
    enabled: manager,
  })
  if (templates.isPending || (manager && keys.isPending)) return null
  const steps = [
    { done: me.user.email_verified, label: 'Verify your e-mail', action: null },
    {
      done: (templates.data?.templates.length ?? 0) > 0,
      label: 'Upload a template',
      action: (
        <Link to="/templates" className="font-medium text-brand-700 underline">
          Templates
        </Link>
      ),
    },
    ...(manager
      ? [
          {
            done: (keys.data?.keys.length ?? 0) > 0,
            label: 'Create an API key',
            action: (
              <Link to="/settings/api-keys" className="font-medium text-brand-700 underline">
                Integration and API
              </Link>
            ),
          },
        ]
      : []),
  ]
  if (steps.every((step) => step.done)) return null
  return (
    <Card title="Get started" description={`${steps.filter((s) => s.done).length} of ${steps.length} done`}>
      <ol className="flex flex-col gap-2">
        {steps.map((step) => (
          <li key={step.label} className="flex flex-wrap items-center gap-2 text-sm">
            <span
              className={step.done ? 'flex size-5 items-center justify-center rounded-full bg-green-700 text-xs text-white' : 'size-5 rounded-full border-2 border-gray-400'}
              aria-hidden="true"
            >
              {step.done ? '✓' : ''}
            </span>
            <span className={step.done ? 'text-muted line-through' : 'font-medium'}>{step.label}</span>
            <span className="sr-only">{step.done ? '(done)' : '(to do)'}</span>
            {!step.done && step.action}
          </li>
        ))}
      </ol>
    </Card>
  )
}
