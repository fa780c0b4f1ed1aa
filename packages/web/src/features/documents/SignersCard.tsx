import { Badge, Button, Card, SignerStatusBadge, useToast } from '../../components/index.ts'
import { formatDateTime } from '../../lib/format.ts'
import { partyLabel, signerStatusOf } from '../../lib/vocabulary.ts'
import { useResendInvitation, type DocumentDetail, type DocumentSigner } from './queries.ts'

/** "Ann Smith and Bo Lee", "steps 1, 2, and 3": the page is in English. */
const and = new Intl.ListFormat('en', { type: 'conjunction' })

const nameOf = (signer: DocumentSigner) => signer.name ?? signer.email

/**
 * Who a signer not invited yet waits for: the people of earlier steps who have not signed, by name
 * when they are one or two, else by step. A document that ended (declined, voided, expired) will
 * never invite them.
 */
function waitingText(signer: DocumentSigner, document: DocumentDetail): string {
  if (document.status !== 'sent') return 'Not invited'
  const before = document.signers.filter((other) => (other.order ?? 0) < (signer.order ?? 0) && other.status !== 'signed')
  if (before.length === 0) return 'Waiting for the step before to sign'
  if (before.length <= 2) return `Waiting for ${and.format(before.map(nameOf))} to sign`
  const steps = [...new Set(before.map((other) => other.order ?? 0))].sort((a, b) => a - b)
  return `Waiting for ${steps.length === 1 ? 'step' : 'steps'} ${and.format(steps.map(String))}`
}

/** What happened to a signer last, or, on a document with steps, that they are still waiting for their turn. */
function progressText(signer: DocumentSigner, document: DocumentDetail, ordered: boolean): string {
  if (signer.declined_at) return `Declined ${formatDateTime(signer.declined_at)}`
  if (signer.signed_at) return `Signed ${formatDateTime(signer.signed_at)}`
  if (signer.viewed_at) return `Opened ${formatDateTime(signer.viewed_at)}`
  if (!ordered) return 'Not opened yet'
  // With steps, when the invitation went out says when their turn came.
  return signer.invited_at ? `Invited ${formatDateTime(signer.invited_at)}` : waitingText(signer, document)
}

export function SignersCard({ document }: { document: DocumentDetail }) {
  const open = document.status === 'sent'
  // Only a document sent with a signing order gives its signers a step; the others list them as they were sent.
  const ordered = document.signers.some((signer) => signer.order !== undefined)
  const signers = ordered ? [...document.signers].sort((a, b) => (a.order ?? 0) - (b.order ?? 0)) : document.signers
  return (
    <Card title="Signers">
      <ul className="divide-y divide-gray-200">
        {signers.map((signer) => {
          // Not invited yet: no link exists, so there is nothing to send again.
          const waiting = ordered && signer.invited_at === null
          return (
            <li key={signer.id} className="flex flex-wrap items-start justify-between gap-3 py-3 first:pt-0 last:pb-0">
              <div className="min-w-0">
                <p className="font-medium break-words">
                  {nameOf(signer)} <SignerStatusBadge status={signerStatusOf(signer, document)} />
                </p>
                {signer.name && <p className="text-sm break-all text-muted">{signer.email}</p>}
                <p className="mt-1 text-sm text-muted">
                  {ordered && `Step ${signer.order ?? ''} · `}
                  {(ordered || document.signers.length > 1 || signer.role_name) && `${signer.role_name ?? partyLabel(signer.role)} · `}
                  {progressText(signer, document, ordered)}
                </p>
                {signer.auth_required && (
                  <Badge tone={signer.auth_verified ? 'success' : 'neutral'} className="mt-1">
                    {signer.auth_verified ? 'E-mail code verified' : 'E-mail code required'}
                  </Badge>
                )}
              </div>
              {open && !waiting && (signer.status === 'pending' || signer.status === 'viewed') && <ResendButton documentId={document.id} signer={signer} />}
            </li>
          )
        })}
      </ul>
    </Card>
  )
}

function ResendButton({ documentId, signer }: { documentId: string; signer: DocumentSigner }) {
  const toast = useToast()
  const resend = useResendInvitation()
  return (
    <div className="flex flex-col items-end gap-1">
      <Button
        size="sm"
        variant="secondary"
        loading={resend.isPending}
        onClick={() =>
          resend.mutate({ documentId, signerId: signer.id }, { onSuccess: () => toast({ title: `Invitation sent again to ${signer.email}`, tone: 'success' }) })
        }
        aria-label={`Resend the invitation to ${signer.email}`}
      >
        Resend invitation
      </Button>
      {resend.error && (
        <p className="max-w-60 text-right text-sm text-red-700" role="alert">
          {resend.error.message}
        </p>
      )}
    </div>
  )
}
