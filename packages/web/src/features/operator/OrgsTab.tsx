import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { useState } from 'react'
import { StatusBadge } from '../../components/Badge.tsx'
import { Button } from '../../components/Button.tsx'
import { FormDialog } from '../../components/Dialog.tsx'
import { EmptyState } from '../../components/EmptyState.tsx'
import { ErrorMessage } from '../../components/ErrorMessage.tsx'
import { Field } from '../../components/Field.tsx'
import { Input } from '../../components/Input.tsx'
import { Pagination } from '../../components/Pagination.tsx'
import { QueryView } from '../../components/QueryView.tsx'
import { Select } from '../../components/Select.tsx'
import { ActionsTh, TBody, THead, Table, Td, Th, Tr } from '../../components/Table.tsx'
import { useToast } from '../../components/Toast.tsx'
import { formatDate, formatNumber } from '../../lib/format.ts'
import { operatorApi, PLANS, type OperatorOrg, type Plan } from './operator-api.ts'
import { SearchBox } from './SearchBox.tsx'

const PAGE = 20

export function OrgsTab() {
  const queryClient = useQueryClient()
  const [search, setSearch] = useState('')
  const [offset, setOffset] = useState(0)
  const [granting, setGranting] = useState<OperatorOrg | null>(null)
  const orgs = useQuery({
    queryKey: ['operator', 'orgs', search, offset],
    queryFn: () => operatorApi.orgs({ search, limit: PAGE, offset }),
    placeholderData: keepPreviousData,
  })
  const setPlan = useMutation({
    mutationFn: ({ org, plan }: { org: OperatorOrg; plan: Plan }) => operatorApi.setPlan(org.id, plan),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['operator', 'orgs'] }),
  })
  return (
    <>
      <SearchBox
        label="Search organisations"
        onSearch={(text) => {
          setSearch(text)
          setOffset(0)
        }}
      />
      {setPlan.error && <ErrorMessage className="mb-3" error={setPlan.error} />}
      <QueryView query={orgs} loadingLabel="Loading organisations…">
        {(data) =>
          data.orgs.length === 0 ? (
            <EmptyState title={search ? `No organisation matches “${search}”` : 'No organisations yet'} />
          ) : (
            <>
              <Table caption="Organisations">
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
                          {org.identity_status} identity · {formatNumber(org.credit_balance)} credits
                        </span>
                      </Td>
                      <Td className="min-w-32">
                        <Select
                          aria-label={`Plan of ${org.name}`}
                          value={org.plan}
                          disabled={setPlan.isPending}
                          onValueChange={(plan) => setPlan.mutate({ org, plan: plan as Plan })}
                          options={PLANS.map((plan) => ({ value: plan, label: plan[0]!.toUpperCase() + plan.slice(1) }))}
                        />
                      </Td>
                      <Td className="hidden md:table-cell">{formatNumber(org.members)}</Td>
                      <Td className="hidden sm:table-cell">
                        <StatusBadge status={org.identity_status} />
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
              <Pagination offset={offset} limit={PAGE} total={data.total} onChange={setOffset} />
            </>
          )
        }
      </QueryView>
      <GrantDialog org={granting} onClose={() => setGranting(null)} />
    </>
  )
}

function GrantDialog({ org, onClose }: { org: OperatorOrg | null; onClose: () => void }) {
  const queryClient = useQueryClient()
  const toast = useToast()
  const [packs, setPacks] = useState('1')
  const grant = useMutation({
    mutationFn: () => operatorApi.grantCredits(org?.id ?? '', Number(packs)),
    onSuccess: async () => {
      await queryClient.invalidateQueries({ queryKey: ['operator', 'orgs'] })
      toast({ title: `Granted ${packs} pack(s) to ${org?.name ?? ''}`, tone: 'success' })
      setPacks('1')
      onClose()
    },
  })
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
      onSubmit={() => grant.mutate()}
    >
      <Field label="Packs" error={grant.error ? grant.error.message : null} required>
        <Input type="number" min={1} step={1} inputMode="numeric" value={packs} onChange={(e) => setPacks(e.target.value)} />
      </Field>
    </FormDialog>
  )
}
