import { useQuery } from '@tanstack/react-query'
import { useState } from 'react'
import { Button } from '../../components/Button.tsx'
import { Dialog } from '../../components/Dialog.tsx'
import { EmptyState } from '../../components/EmptyState.tsx'
import { Field } from '../../components/Field.tsx'
import { Input, Textarea } from '../../components/Input.tsx'
import { QueryView } from '../../components/QueryView.tsx'
import { Select } from '../../components/Select.tsx'
import { IdentityCheckStatusBadge } from '../../components/StatusBadge.tsx'
import { ActionsTh, TBody, THead, Table, Td, Th, Tr } from '../../components/Table.tsx'
import { useToast } from '../../components/Toast.tsx'
import { formatDateTime } from '../../lib/format.ts'
import { IDENTITY_CHECK_STATUS_LABELS } from '../../lib/vocabulary.ts'
import { identityCheckDocumentUrl, identityChecksQuery, useDecideIdentityCheck, type IdentityCheckStatus, type OperatorIdentityCheck } from './queries.ts'

const STATUSES: IdentityCheckStatus[] = ['pending', 'approved', 'rejected']

export function IdentityChecksTab() {
  const [status, setStatus] = useState<IdentityCheckStatus>('pending')
  const [deciding, setDeciding] = useState<OperatorIdentityCheck | null>(null)
  const checks = useQuery(identityChecksQuery(status))
  return (
    <>
      <div className="mb-3 w-48">
        <Select
          aria-label="Show checks that are"
          value={status}
          onValueChange={(value) => setStatus(value as IdentityCheckStatus)}
          options={STATUSES.map((value) => ({ value, label: IDENTITY_CHECK_STATUS_LABELS[value] }))}
        />
      </div>
      <QueryView query={checks} loadingLabel="Loading identity checks…">
        {(data) =>
          data.checks.length === 0 ? (
            <EmptyState
              title={`No ${status} identity checks`}
              description={status === 'pending' ? 'Submissions from workspace owners appear here.' : undefined}
            />
          ) : (
            <Table caption="Identity checks">
              <THead>
                <Tr>
                  <Th>Workspace</Th>
                  <Th>Legal name</Th>
                  <Th>Status</Th>
                  <Th>Submitted</Th>
                  <ActionsTh />
                </Tr>
              </THead>
              <TBody>
                {data.checks.map((check) => (
                  <Tr key={check.id}>
                    <Td>{check.org_name ?? check.org_id}</Td>
                    <Td className="font-medium">{check.legal_name ?? '—'}</Td>
                    <Td>
                      <IdentityCheckStatusBadge status={check.status} />
                    </Td>
                    <Td className="whitespace-nowrap">{formatDateTime(check.submitted_at)}</Td>
                    <Td className="whitespace-nowrap text-right">
                      {check.status === 'pending' && (
                        <span className="inline-flex gap-2">
                          <a
                            href={identityCheckDocumentUrl(check.id)}
                            download
                            className="inline-flex h-8 items-center rounded-md border border-line bg-white px-3 text-sm font-medium hover:bg-gray-50"
                          >
                            View document
                          </a>
                          <Button size="sm" onClick={() => setDeciding(check)}>
                            Decide
                          </Button>
                        </span>
                      )}
                    </Td>
                  </Tr>
                ))}
              </TBody>
            </Table>
          )
        }
      </QueryView>
      <DecisionDialog check={deciding} onClose={() => setDeciding(null)} />
    </>
  )
}

function DecisionDialog({ check, onClose }: { check: OperatorIdentityCheck | null; onClose: () => void }) {
  const toast = useToast()
  const [legalName, setLegalName] = useState('')
  const [reason, setReason] = useState('')
  const decide = useDecideIdentityCheck()
  const submit = (approve: boolean) =>
    decide.mutate(
      { id: check?.id ?? '', approve, ...(approve ? (legalName.trim() ? { legal_name: legalName.trim() } : {}) : { reason }) },
      {
        onSuccess: () => {
          toast({ title: approve ? 'Identity check approved' : 'Identity check rejected', tone: 'success' })
          setLegalName('')
          setReason('')
          onClose()
        },
      },
    )
  return (
    <Dialog
      open={check !== null}
      onOpenChange={(open) => {
        if (!open) {
          decide.reset()
          onClose()
        }
      }}
      title={`Identity check of ${check?.org_name ?? check?.legal_name ?? ''}`}
      description="Compare the document with the legal name. The document is deleted once you decide; the decision is kept."
      footer={
        <>
          <Button variant="danger-secondary" loading={decide.isPending && !decide.variables.approve} onClick={() => submit(false)}>
            Reject
          </Button>
          <Button loading={decide.isPending && decide.variables.approve} onClick={() => submit(true)}>
            Approve
          </Button>
        </>
      }
    >
      <div className="flex flex-col gap-4">
        <p className="text-sm">
          Submitted name: <strong>{check?.legal_name}</strong>
        </p>
        <Field label="Legal name to record (optional)" hint="Leave empty to approve the submitted name; fill in to correct it.">
          <Input value={legalName} onChange={(e) => setLegalName(e.target.value)} />
        </Field>
        <Field label="Reason (shown to the owner when rejecting)" error={decide.error ? decide.error.message : null}>
          <Textarea value={reason} onChange={(e) => setReason(e.target.value)} />
        </Field>
      </div>
    </Dialog>
  )
}
