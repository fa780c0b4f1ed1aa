import { useQuery } from '@tanstack/react-query'
import { useState, type FormEvent } from 'react'
import { useMe } from '../../auth/session.ts'
import { Button } from '../../components/Button.tsx'
import { Card } from '../../components/Card.tsx'
import { ErrorMessage } from '../../components/ErrorMessage.tsx'
import { Field } from '../../components/Field.tsx'
import { Input } from '../../components/Input.tsx'
import { PageHeader } from '../../components/PageHeader.tsx'
import { QueryView } from '../../components/QueryView.tsx'
import { IdentityCheckStatusBadge } from '../../components/StatusBadge.tsx'
import { formatDate, formatDateTime } from '../../lib/format.ts'
import { errorTextAt } from '../../lib/people-text.ts'
import { identityCheckQuery, useSubmitIdentityCheck, type IdentityCheck } from './queries.ts'

const ACCEPTED_TYPES = ['application/pdf', 'image/png', 'image/jpeg'] as const
const MAX_DOCUMENT_MB = 10
/** An approval may be renewed in its last 30 days. */
const RENEWAL_WINDOW_MS = 30 * 24 * 3600 * 1000

export function IdentityPage() {
  const me = useMe()
  const check = useQuery(identityCheckQuery)
  const owner = me.abilities.manage_identity_check
  return (
    <>
      <PageHeader
        title="Identity check"
        description="Sealing documents in this workspace's name needs a check of who stands behind it: their legal name and an ID document. An approval lasts 365 days, and can be renewed in its last 30."
      />
      <QueryView query={check} loadingLabel="Loading the identity check…">
        {(state) => (
          <div className="flex flex-col gap-5">
            <Card title="Status" actions={<IdentityCheckStatusBadge status={state.status} />}>
              <StatusText check={state} />
            </Card>
            {owner ? (
              canSubmit(state) && <SubmitCheck renewal={state.status === 'approved'} />
            ) : (
              <p className="text-sm text-muted">Only the workspace's owner submits the identity check.</p>
            )}
          </div>
        )}
      </QueryView>
    </>
  )
}

function canSubmit(check: IdentityCheck): boolean {
  if (check.status === 'pending') return false
  if (check.status !== 'approved') return true
  return check.valid_until !== null && new Date(check.valid_until).getTime() - Date.now() < RENEWAL_WINDOW_MS
}

function StatusText({ check }: { check: IdentityCheck }) {
  switch (check.status) {
    case 'none':
      return <p className="text-sm">Not submitted yet. Documents cannot be sealed in this workspace's name until the check is approved.</p>
    case 'pending':
      return (
        <p className="text-sm">
          Submitted {formatDateTime(check.submitted_at)} for <strong>{check.legal_name}</strong>. It is waiting for a decision; the ID document is kept
          encrypted until then and deleted once decided.
        </p>
      )
    case 'approved':
      return (
        <p className="text-sm">
          <strong>{check.legal_name}</strong> was approved {formatDate(check.decided_at)}
          {check.verifier ? ` (verifier: ${check.verifier})` : ''}. Valid until <strong>{formatDate(check.valid_until)}</strong>; you can renew it in its last
          30 days.
        </p>
      )
    case 'rejected':
      return (
        <p className="text-sm">
          Rejected {formatDate(check.decided_at)}
          {check.decision_reason ? `: ${check.decision_reason}` : '.'} Submit again with a clearer document or the exact legal name.
        </p>
      )
    case 'expired':
      return (
        <p className="text-sm">
          The approval of {check.legal_name ?? 'this workspace'} expired {formatDate(check.valid_until)}. Submit it again to seal.
        </p>
      )
  }
}

function SubmitCheck({ renewal }: { renewal: boolean }) {
  const [legalName, setLegalName] = useState('')
  const [file, setFile] = useState<File | null>(null)
  const [fileError, setFileError] = useState<string | null>(null)
  const submit = useSubmitIdentityCheck()
  const nameError = errorTextAt(submit.error, '/legal_name')
  const onSubmit = (event: FormEvent) => {
    event.preventDefault()
    if (!file) return setFileError('Choose the ID document (PDF, PNG or JPEG).')
    submit.mutate(
      { legalName, file },
      {
        onSuccess: () => {
          setLegalName('')
          setFile(null)
        },
      },
    )
  }
  return (
    <Card title={renewal ? 'Renew the check' : 'Submit the check'}>
      <form onSubmit={onSubmit} className="flex max-w-lg flex-col gap-4" noValidate>
        <Field
          label="Legal name"
          hint="Of the company or person behind this workspace, as on the company register or the ID document."
          error={nameError}
          required
        >
          <Input value={legalName} onChange={(e) => setLegalName(e.target.value)} autoComplete="organization" />
        </Field>
        <Field
          label="ID document"
          hint={`PDF, PNG or JPEG of at most ${MAX_DOCUMENT_MB} MB: a registration extract, or the owner's passport or ID card.`}
          error={fileError}
          required
        >
          <Input
            type="file"
            accept={ACCEPTED_TYPES.join(',')}
            className="h-auto py-2"
            onChange={(event) => {
              const chosen = event.target.files?.[0] ?? null
              if (chosen && !(ACCEPTED_TYPES as readonly string[]).includes(chosen.type)) {
                setFile(null)
                return setFileError(`${chosen.name} is not a PDF, PNG or JPEG.`)
              }
              if (chosen && chosen.size > MAX_DOCUMENT_MB * 1024 * 1024) {
                setFile(null)
                return setFileError(`${chosen.name} is larger than ${MAX_DOCUMENT_MB} MB.`)
              }
              setFileError(null)
              setFile(chosen)
            }}
          />
        </Field>
        {submit.error && !nameError && <ErrorMessage error={submit.error} />}
        <div>
          <Button type="submit" loading={submit.isPending}>
            Submit for review
          </Button>
        </div>
      </form>
    </Card>
  )
}
