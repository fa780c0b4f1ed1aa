import { Badge, Button, Card, SignerStatusBadge, useToast } from '../../components/index.ts'
import { formatDateTime } from '../../lib/format.ts'
import { partyLabel } from '../../lib/vocabulary.ts'
import { useResendInvitation, type DocumentDetail, type DocumentSigner } from './queries.ts'

export function SignersCard({ document }: { document: DocumentDetail }) {
  const open = document.status === 'sent'
  return (
    <Card title="Signers">
      <ul className="divide-y divide-gray-200">
        {document.signers.map((signer) => (
          <li key={signer.id} className="flex flex-wrap items-start justify-between gap-3 py-3 first:pt-0 last:pb-0">
            <div className="min-w-0">
              <p className="font-medium break-words">
                {signer.name ?? signer.email} <SignerStatusBadge status={signer.status} />
              </p>
              {signer.name && <p className="text-sm break-all text-muted">{signer.email}</p>}
              <p className="mt-1 text-sm text-muted">
                {document.signers.length > 1 && `${partyLabel(signer.role)} · `}
                {signer.declined_at
                  ? `Declined ${formatDateTime(signer.declined_at)}`
                  : signer.signed_at
                    ? `Signed ${formatDateTime(signer.signed_at)}`
                    : signer.viewed_at
                      ? `Opened ${formatDateTime(signer.viewed_at)}`
                      : 'Not opened yet'}
              </p>
              {signer.auth_required && (
                <Badge tone={signer.auth_verified ? 'success' : 'neutral'} className="mt-1">
                  {signer.auth_verified ? 'E-mail code verified' : 'E-mail code required'}
                </Badge>
              )}
            </div>
            {open && (signer.status === 'pending' || signer.status === 'viewed') && <ResendButton documentId={document.id} signer={signer} />}
          </li>
        ))}
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
