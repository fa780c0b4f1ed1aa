import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { getRouteApi, Link } from '@tanstack/react-router'
import { useState } from 'react'
import {
  Badge,
  Button,
  Card,
  ConfirmDialog,
  CopyButton,
  ErrorMessage,
  PageHeader,
  QueryView,
  StatusBadge,
  useToast,
} from '../../components/index.ts'
import { formatDateTime } from '../../lib/format.ts'
import { download, getAuditTrail, getDocument, resendInvitation, verificationUrl, voidDocument, type DocumentDetail, type DocumentSigner, type DownloadKind } from './documents-api.ts'

const route = getRouteApi('/signed-in/documents/$id')

/** /app/documents/$id: signers, files, the audit trail, void and resend. */
export function DocumentDetailPage() {
  const { id } = route.useParams()
  const document = useQuery({ queryKey: ['documents', id], queryFn: () => getDocument(id) })
  return (
    <>
      <PageHeader
        title={document.data?.title ?? 'Document'}
        description={document.data ? `Sent ${formatDateTime(document.data.created_at)}` : undefined}
        actions={
          <Link to="/documents" className="text-sm font-medium text-brand-700 underline">
            All documents
          </Link>
        }
      />
      <QueryView query={document} loadingLabel="Loading the document…" errorTitle="The document could not be loaded">
        {(data) => (
          // On a phone the status and files come first; from lg they sit in a column at the right.
          <div className="grid gap-4 lg:grid-cols-[1fr_20rem] lg:items-start">
            <div className="flex flex-col gap-4 lg:col-start-2 lg:row-start-1">
              <Summary document={data} />
              <Files document={data} />
            </div>
            <div className="flex min-w-0 flex-col gap-4 lg:col-start-1 lg:row-start-1">
              <Signers document={data} />
              <AuditTrailCard id={data.id} />
            </div>
          </div>
        )}
      </QueryView>
    </>
  )
}

function Summary({ document }: { document: DocumentDetail }) {
  const queryClient = useQueryClient()
  const toast = useToast()
  const [confirming, setConfirming] = useState(false)
  const open = document.status === 'sent'
  return (
    <Card title="Status">
      <dl className="grid grid-cols-[auto_1fr] gap-x-3 gap-y-1.5 text-sm">
        <dt className="text-muted">Status</dt>
        <dd>
          <StatusBadge status={document.status} />
        </dd>
        <dt className="text-muted">Updated</dt>
        <dd>{formatDateTime(document.updated_at)}</dd>
        <dt className="text-muted">Expires</dt>
        <dd>{document.expires_at ? formatDateTime(document.expires_at) : 'Never'}</dd>
      </dl>
      {open && (
        <Button variant="danger" size="sm" className="mt-4" onClick={() => setConfirming(true)}>
          Void document
        </Button>
      )}
      <ConfirmDialog
        open={confirming}
        onOpenChange={setConfirming}
        title="Void this document?"
        description="Signers can no longer open or sign it. This cannot be undone."
        confirmLabel="Void document"
        destructive
        onConfirm={async () => {
          await voidDocument(document.id)
          await queryClient.invalidateQueries({ queryKey: ['documents'] })
          toast({ title: 'Document voided', tone: 'success' })
        }}
      />
    </Card>
  )
}

function Signers({ document }: { document: DocumentDetail }) {
  const open = document.status === 'sent'
  return (
    <Card title="Signers">
      <ul className="divide-y divide-gray-200">
        {document.signers.map((signer) => (
          <li key={signer.id} className="flex flex-wrap items-start justify-between gap-3 py-3 first:pt-0 last:pb-0">
            <div className="min-w-0">
              <p className="font-medium break-words">
                {signer.name ?? signer.email} <StatusBadge status={signer.status} />
              </p>
              {signer.name && <p className="text-sm break-all text-muted">{signer.email}</p>}
              <p className="mt-1 text-sm text-muted">
                {document.signers.length > 1 && `Party ${signer.role + 1} · `}
                {signer.declined_at
                  ? `Declined ${formatDateTime(signer.declined_at)}`
                  : signer.signed_at
                    ? `Signed ${formatDateTime(signer.signed_at)}`
                    : signer.viewed_at
                      ? `Viewed ${formatDateTime(signer.viewed_at)}`
                      : 'Not opened yet'}
              </p>
              {signer.auth_required && (
                <Badge tone={signer.auth_verified ? 'success' : 'neutral'} className="mt-1">
                  {signer.auth_verified ? 'e-mail code verified' : 'e-mail code required'}
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
  const queryClient = useQueryClient()
  const resend = useMutation({
    mutationFn: () => resendInvitation(documentId, signer.id),
    onSuccess: () => {
      toast({ title: `Invitation sent again to ${signer.email}`, tone: 'success' })
      // The resend is in the audit trail now.
      void queryClient.invalidateQueries({ queryKey: ['documents', documentId] })
    },
  })
  return (
    <div className="flex flex-col items-end gap-1">
      <Button size="sm" variant="secondary" loading={resend.isPending} onClick={() => resend.mutate()} aria-label={`Resend the invitation to ${signer.email}`}>
        Resend invitation
      </Button>
      {resend.error && <p className="max-w-60 text-right text-sm text-red-700" role="alert">{resend.error.message}</p>}
    </div>
  )
}

/** The files a document offers: the signed PDF always; the certificate and badge only for a self-sealed one. */
const FILES: { kind: DownloadKind; label: string; sealedOnly: boolean; filename: (title: string) => string }[] = [
  { kind: 'signed-file', label: 'Download the signed PDF', sealedOnly: false, filename: (title) => `${title}.pdf` },
  { kind: 'certificate', label: 'Download the certificate', sealedOnly: true, filename: (title) => `${title} (certificate).pdf` },
  { kind: 'badge', label: 'Download the Verified Badge', sealedOnly: true, filename: (title) => `${title} (badge).png` },
]

const auditQuery = (id: string) => ({ queryKey: ['documents', id, 'audit'], queryFn: () => getAuditTrail(id) })

function Files({ document }: { document: DocumentDetail }) {
  // A self-sealed document (POST /seals) says so in its trail; only it has a certificate and a badge.
  const trail = useQuery(auditQuery(document.id))
  const sealed = trail.data?.events.some((event) => event.event === 'document.seal_requested') ?? false
  const [error, setError] = useState<unknown>(null)
  const [busy, setBusy] = useState<DownloadKind | null>(null)
  const get = async (kind: DownloadKind, filename: string) => {
    setError(null)
    setBusy(kind)
    try {
      await download(document.id, kind, filename)
    } catch (thrown) {
      setError(thrown)
    } finally {
      setBusy(null)
    }
  }
  const safeTitle = document.title.replace(/[\\/:*?"<>|]+/g, '-')
  return (
    <Card title="Files and verification">
      {document.status !== 'completed' ? (
        <p className="text-sm text-muted">The signed PDF is made once every signer has signed.</p>
      ) : document.signed_pdf_status === 'pending' ? (
        <p className="text-sm text-muted">The signed PDF is being produced; it is usually ready within seconds.</p>
      ) : document.signed_pdf_status === 'failed' ? (
        <ErrorMessage title="The signed PDF could not be produced" error={document.signed_pdf_error ?? 'The operator has been alerted.'} />
      ) : (
        <div className="flex flex-col gap-2">
          {FILES.filter((file) => sealed || !file.sealedOnly).map((file) => (
            <Button key={file.kind} variant="secondary" size="sm" loading={busy === file.kind} onClick={() => void get(file.kind, file.filename(safeTitle))}>
              {file.label}
            </Button>
          ))}
          {error !== null && <ErrorMessage error={error} />}
          <div className="mt-2 border-t border-line pt-3">
            <p className="mb-1 text-sm font-medium">Public verification link</p>
            <p className="mb-2 font-mono text-xs break-all text-muted">{verificationUrl(document.id)}</p>
            <CopyButton value={verificationUrl(document.id)} label="Copy verification link" />
          </div>
        </div>
      )}
    </Card>
  )
}

const EVENT_NAMES: Record<string, string> = {
  'document.sent': 'Sent',
  'document.viewed': 'Viewed',
  'document.signed': 'Signed',
  'document.completed': 'Completed',
  'document.declined': 'Declined',
  'document.voided': 'Voided',
  'document.expired': 'Expired',
  'signer.code_sent': 'E-mail code sent',
  'signer.code_verified': 'E-mail code verified',
  'signer.code_rejected': 'Wrong e-mail code entered',
  'signed_pdf.created': 'Signed PDF produced',
  'document.seal_requested': 'Seal requested',
  'document.sealed': 'Sealed',
}

function AuditTrailCard({ id }: { id: string }) {
  const trail = useQuery(auditQuery(id))
  return (
    <Card
      title="Audit trail"
      description="Every event is chained to the one before it by its hash, so a changed or removed event breaks the chain."
      actions={
        trail.data &&
        (trail.data.chain_valid ? <Badge tone="success">Hash chain intact</Badge> : <Badge tone="danger">Hash chain broken</Badge>)
      }
    >
      <QueryView query={trail} loadingLabel="Loading the audit trail…" errorTitle="The audit trail could not be loaded">
        {(data) => (
          <>
            {!data.chain_valid && (
              <ErrorMessage className="mb-3" error="The audit trail's hash chain does not check: an event was changed or removed after it was written." />
            )}
            <ol className="flex flex-col gap-3">
              {data.events.map((event) => (
                <li key={event.seq} className="border-l-2 border-brand-100 pl-3 text-sm">
                  <p className="font-medium">
                    {EVENT_NAMES[event.event] ?? event.event}
                    {event.agent_triggered && (
                      <Badge tone="info" className="ml-2">
                        AI agent
                      </Badge>
                    )}
                  </p>
                  <p className="text-muted">
                    <time dateTime={event.at}>{formatDateTime(event.at)}</time>
                    {event.actor && ` · ${event.actor}`}
                    {event.ip && ` · ${event.ip}`}
                  </p>
                </li>
              ))}
            </ol>
          </>
        )}
      </QueryView>
    </Card>
  )
}
