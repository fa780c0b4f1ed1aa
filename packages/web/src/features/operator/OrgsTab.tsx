import { useQuery } from '@tanstack/react-query'
import { useState } from 'react'
import { Button } from '../../components/Button.tsx'
import { ConfirmDialog, FormDialog } from '../../components/Dialog.tsx'
import { EmptyState } from '../../components/EmptyState.tsx'
import { Field } from '../../components/Field.tsx'
import { Input } from '../../components/Input.tsx'
import { Pagination } from '../../components/Pagination.tsx'
import { QueryView } from '../../components/QueryView.tsx'
import { Select } from '../../components/Select.tsx'
import { IdentityCheckStatusBadge } from '../../components/StatusBadge.tsx'
import { ActionsTh, TBody, THead, Table, Td, Th, Tr } from '../../components/Table.tsx'
import { useToast } from '../../components/Toast.tsx'
import { formatDate, formatNumber } from '../../lib/format.ts'
import { fieldErrorText } from '../../lib/people-text.ts'
import { IDENTITY_CHECK_STATUS_LABELS, PLAN_LABELS, type Plan } from '../../lib/vocabulary.ts'
import { ORGS_PAGE_SIZE, orgListQuery, useGrantCredits, useSetPlan, type OperatorOrg } from './queries.ts'
import { SearchBox } from './SearchBox.tsx'

const PLAN_OPTIONS = (Object.keys(PLAN_LABELS) as Plan[]).map((plan) => ({ value: plan, label: PLAN_LABELS[plan] }))

export function OrgsTab() {
  const [search, setSearch] = useState('')
  const [offset, setOffset] = useState(0)
  const [granting, setGranting] = useState<OperatorOrg | null>(null)
  const [changing, setChanging] = useState<{ org: OperatorOrg; plan: Plan } | null>(null)
  const orgs = useQuery(orgListQuery(search, offset))
  return (
    <>
      <SearchBox
        label="Search workspaces"
        onSearch={(text) => {
          setSearch(text)
          setOffset(0)
        }}
      />
      <QueryView query={orgs} loadingLabel="Loading workspaces…">
        {(data) =>
          data.orgs.length === 0 ? (
            <EmptyState title={search ? `No workspace matches “${search}”` : 'No workspaces yet'} />
          ) : (
            <>
              <Table caption="Workspaces">
                <THead>
                  <Tr>
                    <Th>Name</Th>
                    <Th>Plan</Th>
                    <Th className="hidden md:table-cell">Members</Th>
                    <Th className="hidden sm:table-cell">Identity</Th>
                    <Th className="hidden sm:table-cell">Credits</Th>
                    <Th className="hidden md:table-cell">Created</Th>
                    <ActionsTh />
                  </Tr>
                </THead>
                <TBody>
                  {data.orgs.map((org) => (
                    <Tr key={org.id}>
                      <Td>
                        <span className="font-medium">{org.name}</span>
                        <span className="block text-xs text-muted sm:hidden">
                          Identity check: {IDENTITY_CHECK_STATUS_LABELS[org.identity_status]} · {formatNumber(org.credit_balance)} credits
                        </span>
                      </Td>
                      <Td className="min-w-32">
                        <Select
                          aria-label={`Plan of ${org.name}`}
                          value={org.plan}
                          onValueChange={(plan) => setChanging({ org, plan: plan as Plan })}
                          options={PLAN_OPTIONS}
                        />
                      </Td>
                      <Td className="hidden md:table-cell">{formatNumber(org.members)}</Td>
                      <Td className="hidden sm:table-cell">
                        <IdentityCheckStatusBadge status={org.identity_status} />
                      </Td>
                      <Td className="hidden sm:table-cell">{formatNumber(org.credit_balance)}</Td>
                      <Td className="hidden whitespace-nowrap md:table-cell">{formatDate(org.created_at)}</Td>
                      <Td className="text-right">
                        <Button size="sm" variant="secondary" onClick={() => setGranting(org)} aria-label={`Grant credits to ${org.name}`}>
                          <span className="sm:hidden">Grant</span>
                          <span className="hidden sm:inline">Grant credits</span>
                        </Button>
                      </Td>
                    </Tr>
                  ))}
                </TBody>
              </Table>
              <Pagination offset={offset} limit={ORGS_PAGE_SIZE} total={data.total} onChange={setOffset} />
            </>
          )
        }
      </QueryView>
      <PlanDialog change={changing} onClose={() => setChanging(null)} />
      <GrantDialog org={granting} onClose={() => setGranting(null)} />
    </>
  )
}

/** A plan change moves what the workspace may do and pay at once: asked first, confirmed after. */
function PlanDialog({ change, onClose }: { change: { org: OperatorOrg; plan: Plan } | null; onClose: () => void }) {
  const toast = useToast()
  const setPlan = useSetPlan()
  const name = change?.org.name ?? ''
  const plan = change ? PLAN_LABELS[change.plan] : ''
  return (
    <ConfirmDialog
      open={change !== null}
      onOpenChange={(open) => !open && onClose()}
      title={`Move ${name} to the ${plan} plan?`}
      description={`It changes at once what ${name} includes each month and how it pays for more; its members see the new plan on their next page.`}
      confirmLabel={`Move to ${plan}`}
      onConfirm={async () => {
        if (!change) return
        await setPlan.mutateAsync({ orgId: change.org.id, plan: change.plan })
        toast({ title: `${name} is now on the ${plan} plan`, tone: 'success' })
      }}
    />
  )
}

function GrantDialog({ org, onClose }: { org: OperatorOrg | null; onClose: () => void }) {
  const toast = useToast()
  const [packs, setPacks] = useState('1')
  const grant = useGrantCredits()
  const submit = () =>
    grant.mutate(
      { orgId: org?.id ?? '', packs: Number(packs) },
      {
        onSuccess: () => {
          toast({ title: `Granted ${packs} pack(s) to ${org?.name ?? ''}`, tone: 'success' })
          setPacks('1')
          onClose()
        },
      },
    )
  return (
    <FormDialog
      open={org !== null}
      onOpenChange={(open) => {
        if (!open) {
          grant.reset()
          onClose()
        }
      }}
      title={`Grant credit packs to ${org?.name ?? ''}`}
      description="Each pack adds the plan's pack of credits; they never expire."
      formId="grant-credits"
      submitLabel="Grant"
      pending={grant.isPending}
      onSubmit={submit}
    >
      <Field label="Packs" error={fieldErrorText(grant.error)} required>
        <Input type="number" min={1} step={1} inputMode="numeric" value={packs} onChange={(e) => setPacks(e.target.value)} />
      </Field>
    </FormDialog>
  )
}
