import { useQuery } from '@tanstack/react-query'
import { getRouteApi, useNavigate } from '@tanstack/react-router'
import { useState, type FormEvent, type ReactNode } from 'react'
import { spendCapQuery, usageQuery } from '../../api/queries.ts'
import { useMe } from '../../auth/session.ts'
import { Button } from '../../components/Button.tsx'
import { Card } from '../../components/Card.tsx'
import { Field } from '../../components/Field.tsx'
import { Input } from '../../components/Input.tsx'
import { Meter } from '../../components/Meter.tsx'
import { PageHeader } from '../../components/PageHeader.tsx'
import { QueryView } from '../../components/QueryView.tsx'
import { Select } from '../../components/Select.tsx'
import { TBody, Table, Td, Tr } from '../../components/Table.tsx'
import { useToast } from '../../components/Toast.tsx'
import { formatCents, formatNumber, formatPeriod } from '../../lib/format.ts'
import { fieldErrorText } from '../../lib/people-text.ts'
import { PLAN_LABELS } from '../../lib/vocabulary.ts'
import { recentPeriods, useSetSpendCap } from './queries.ts'

const route = getRouteApi('/signed-in/settings/billing')

export function BillingPage() {
  const me = useMe()
  const periods = recentPeriods()
  const { period = periods[0] } = route.useSearch()
  const navigate = useNavigate()
  const usage = useQuery(usageQuery(period))
  return (
    <>
      <PageHeader title="Billing" description="Your plan, what this workspace used each month, credit packs and the spend cap." />
      <div className="flex flex-col gap-5">
        <Card
          title="Usage by month"
          actions={
            <div className="w-44">
              <Select
                aria-label="Period"
                value={period}
                onValueChange={(next) => void navigate({ to: '/settings/billing', search: { period: next } })}
                options={periods.map((value) => ({ value, label: formatPeriod(value) }))}
              />
            </div>
          }
        >
          <QueryView query={usage} loadingLabel="Loading usage…">
            {(u) => (
              <>
                <p className="mb-3 text-sm">
                  <strong>{PLAN_LABELS[u.plan]} plan</strong>: {formatNumber(u.included_allowance)} documents included per month
                  {u.unit_price_cents > 0 ? `, then ${formatCents(u.unit_price_cents)} each` : ', then credit packs'}.
                </p>
                <Meter
                  value={u.included_used}
                  max={u.included_allowance}
                  label={`${u.included_used} of ${u.included_allowance} included units used in ${formatPeriod(u.period)}`}
                />
                <Table caption={`Usage in ${formatPeriod(u.period)}`} className="mt-4">
                  <TBody>
                    <Row label="Included units used" value={`${formatNumber(u.included_used)} of ${formatNumber(u.included_allowance)}`} />
                    <Row label="Single sends (API and dashboard)" value={formatNumber(u.units_by_source.rest_sends)} />
                    <Row label="Bulk sends" value={formatNumber(u.units_by_source.bulk_sends)} />
                    <Row label="Agent-tool sends (MCP)" value={formatNumber(u.units_by_source.agent_tool_sends)} />
                    <Row label="Seals" value={formatNumber(u.units_by_source.seals)} />
                    <Row label="Unmetered units" value={formatNumber(u.unlimited_units)} />
                    <Row label="Paid with credits" value={formatNumber(u.credits_used)} />
                    <Row label="Billable units" value={`${formatNumber(u.billable_units)} × ${formatCents(u.unit_price_cents)}`} />
                    <Row label="Billable amount" value={<strong>{formatCents(u.amount_cents)}</strong>} />
                  </TBody>
                </Table>
              </>
            )}
          </QueryView>
        </Card>
        <CreditPacks workspaceId={me.workspace?.id ?? ''} />
        <SpendCap editable={me.abilities.manage_billing} />
      </div>
    </>
  )
}

function Row({ label, value }: { label: string; value: ReactNode }) {
  return (
    <Tr>
      <th scope="row" className="px-3 py-2.5 text-left font-normal">
        {label}
      </th>
      <Td className="text-right">{value}</Td>
    </Tr>
  )
}

function CreditPacks({ workspaceId }: { workspaceId: string }) {
  const usage = useQuery(usageQuery())
  // The payment provider's page for this workspace (without a provider: the instance's billing page, which explains how the operator grants packs).
  const checkout = `/billing?org=${encodeURIComponent(workspaceId)}`
  // Only the Free plan spends credits (billing/plans.ts); paid plans bill units beyond the included ones.
  const spendsCredits = usage.data?.plan === 'free'
  const description = !usage.data
    ? undefined
    : spendsCredits
      ? "Credits pay for documents beyond the month's included ones. They never expire."
      : `Your plan bills documents beyond the month's included ones at ${formatCents(usage.data.unit_price_cents)} each, so credits are not spent. Credits you hold never expire.`
  return (
    <Card title="Credit packs" description={description}>
      <p className="text-sm">
        Credits left: <strong>{usage.data ? formatNumber(usage.data.credit_balance) : '…'}</strong>
      </p>
      <p className="mt-2 text-sm text-muted">
        When this instance has no payment provider, its operator grants packs (the Operator page or{' '}
        <code className="rounded bg-gray-100 px-1">admin credits grant</code>); the link below says how.
      </p>
      <a href={checkout} className="mt-3 inline-block font-medium text-brand-700 underline">
        Buy credit packs
      </a>
    </Card>
  )
}

function SpendCap({ editable }: { editable: boolean }) {
  const toast = useToast()
  const cap = useQuery(spendCapQuery)
  const [dollars, setDollars] = useState('')
  const [inputError, setInputError] = useState<string | null>(null)
  const setSpendCap = useSetSpendCap()
  const save = (cents: number | null) =>
    setSpendCap.mutate(cents, {
      onSuccess: (saved) => {
        setDollars('')
        toast({ title: saved.spend_cap_cents === null ? 'Spend cap removed' : `Spend cap set to ${formatCents(saved.spend_cap_cents)}`, tone: 'success' })
      },
    })
  const submit = (event: FormEvent) => {
    event.preventDefault()
    const value = Number(dollars)
    if (dollars.trim() === '' || !Number.isFinite(value) || value < 0) return setInputError('Enter an amount in US dollars, e.g. 50.')
    setInputError(null)
    save(Math.round(value * 100))
  }
  return (
    <Card
      title="Spend cap"
      description="The most billable usage per calendar month. Sends that would go over it are refused until the next month or a higher cap."
    >
      <QueryView query={cap} loadingLabel="Loading the spend cap…">
        {(current) => (
          <>
            <p className="text-sm">
              Current cap: <strong data-testid="spend-cap">{current.spend_cap_cents === null ? 'none' : formatCents(current.spend_cap_cents)}</strong>
            </p>
            {editable ? (
              <form onSubmit={submit} className="mt-4 flex flex-wrap items-end gap-3" noValidate>
                <Field label="New cap (US$)" error={inputError ?? fieldErrorText(setSpendCap.error)} className="w-48">
                  <Input inputMode="decimal" value={dollars} onChange={(e) => setDollars(e.target.value)} placeholder="50.00" />
                </Field>
                <Button type="submit" loading={setSpendCap.isPending && setSpendCap.variables !== null}>
                  Set cap
                </Button>
                {current.spend_cap_cents !== null && (
                  <Button variant="secondary" loading={setSpendCap.isPending && setSpendCap.variables === null} onClick={() => save(null)}>
                    Remove cap
                  </Button>
                )}
              </form>
            ) : (
              <p className="mt-2 text-sm text-muted">Owners and admins change the cap.</p>
            )}
          </>
        )}
      </QueryView>
    </Card>
  )
}
