import { useQuery } from '@tanstack/react-query'
import { useState } from 'react'
import { Button, Card, CopyButton, ErrorMessage } from '../../components/index.ts'
import { auditTrailQuery, download, fileNameOf, verificationUrl, type DocumentDetail, type DownloadKind } from './queries.ts'

/** The files a document offers besides the signed PDF (the header's Download): only a self-sealed one has a certificate and a badge. */
const SEALED_FILES: { kind: DownloadKind; label: string; suffix: string }[] = [
  { kind: 'certificate', label: 'Download the certificate', suffix: ' (certificate).pdf' },
  { kind: 'badge', label: 'Download the Verified Badge', suffix: ' (badge).png' },
]

export function FilesCard({ document }: { document: DocumentDetail }) {
  // A self-sealed document (POST /seals) says so in its trail.
  const trail = useQuery(auditTrailQuery(document))
  const sealed = trail.data?.events.some((event) => event.event === 'document.seal_requested') ?? false
  return (
    <Card title="Files and verification">
      {document.status !== 'completed' ? (
        <p className="text-sm text-muted">The signed PDF is made once every signer has signed.</p>
      ) : document.signed_pdf_status === 'pending' ? (
        <p className="text-sm text-muted" role="status">
          The signed PDF is being produced; it is usually ready within seconds. This page shows it when it is.
        </p>
      ) : document.signed_pdf_status === 'failed' ? (
        <ErrorMessage title="The signed PDF could not be produced" error={document.signed_pdf_error ?? 'The operator has been alerted.'} />
      ) : (
        <div className="flex flex-col gap-2">
          {sealed &&
            SEALED_FILES.map((file) => (
              <DownloadButton
                key={file.kind}
                document={document}
                kind={file.kind}
                label={file.label}
                filename={fileNameOf(document.title, file.suffix)}
                variant="secondary"
              />
            ))}
          <div className={sealed ? 'mt-2 border-t border-line pt-3' : undefined}>
            <p className="mb-1 text-sm font-medium">Public verification link</p>
            <p className="mb-2 font-mono text-xs break-all text-muted">{verificationUrl(document.id)}</p>
            <CopyButton value={verificationUrl(document.id)} label="Copy verification link" />
          </div>
        </div>
      )}
    </Card>
  )
}

/** A download that shows why it failed, if it does. */
export function DownloadButton({
  document,
  kind,
  label,
  filename,
  variant = 'primary',
}: {
  document: DocumentDetail
  kind: DownloadKind
  label: string
  filename: string
  variant?: 'primary' | 'secondary'
}) {
  const [error, setError] = useState<unknown>(null)
  const [busy, setBusy] = useState(false)
  const get = async () => {
    setError(null)
    setBusy(true)
    try {
      await download(document.id, kind, filename)
    } catch (thrown) {
      setError(thrown)
    } finally {
      setBusy(false)
    }
  }
  return (
    <div className="flex flex-col gap-2">
      <Button variant={variant} size={variant === 'primary' ? 'md' : 'sm'} loading={busy} onClick={() => void get()}>
        {label}
      </Button>
      {error !== null && <ErrorMessage error={error} />}
    </div>
  )
}
