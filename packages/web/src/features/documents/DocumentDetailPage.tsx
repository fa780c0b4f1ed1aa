import { useQuery } from '@tanstack/react-query'
import { getRouteApi, Link } from '@tanstack/react-router'
import { Card, DocumentStatusBadge, PageHeader, QueryView, Spinner } from '../../components/index.ts'
import { formatDateTime, formatReminderSchedule } from '../../lib/format.ts'
import { AuditTrailCard } from './AuditTrail.tsx'
import { DownloadButton, FilesCard } from './FilesCard.tsx'
import { MoreActions } from './MoreActions.tsx'
import { documentQuery, fileNameOf, type DocumentDetail } from './queries.ts'
import { SignersCard } from './SignersCard.tsx'

const route = getRouteApi('/signed-in/documents/$id')

/** /app/documents/$id: what happened to a document and what to do next — download it once completed, follow up while it waits. */
export function DocumentDetailPage() {
  const { id } = route.useParams()
  // documentQuery polls while the signed PDF is being produced, so Download appears without a reload.
  const document = useQuery(documentQuery(id))
  return (
    <>
      <Link to="/documents" className="mb-2 inline-block text-sm font-medium text-brand-700 underline-offset-2 hover:underline">
        ← Documents
      </Link>
      <PageHeader
        title={document.data?.title ?? 'Document'}
        description={document.data && <Headline document={document.data} />}
        actions={document.data && <PrimaryAction document={document.data} />}
      />
      <QueryView query={document} loadingLabel="Loading the document…" errorTitle="The document could not be loaded">
        {(data) => (
          // On a phone the status and files come first; from lg they sit in a column at the right.
          <div className="grid gap-4 lg:grid-cols-[1fr_20rem] lg:items-start">
            <div className="flex flex-col gap-4 lg:col-start-2 lg:row-start-1">
              <Summary document={data} />
              <FilesCard document={data} />
            </div>
            <div className="flex min-w-0 flex-col gap-4 lg:col-start-1 lg:row-start-1">
              <SignersCard document={data} />
              <MoreActions document={data} />
              <AuditTrailCard document={data} />
            </div>
          </div>
        )}
      </QueryView>
    </>
  )
}

/** When the last signer signed (a self-sealed document has no signers: when it was last changed). */
function completedAt(document: DocumentDetail): string {
  const signedAt = document.signers.map((s) => s.signed_at).filter((at): at is string => at !== null)
  return signedAt.length > 0 ? signedAt.reduce((latest, at) => (at > latest ? at : latest)) : document.updated_at
}

function Headline({ document }: { document: DocumentDetail }) {
  return (
    <span className="flex flex-wrap items-center gap-2">
      <DocumentStatusBadge document={document} />
      {document.status === 'completed' ? `Completed ${formatDateTime(completedAt(document))}` : `Sent ${formatDateTime(document.created_at)}`}
    </span>
  )
}

/** A completed document's one job is to be downloaded; until its PDF exists, say that it is on its way. */
function PrimaryAction({ document }: { document: DocumentDetail }) {
  if (document.status !== 'completed') return null
  if (document.signed_pdf_status === 'pending') {
    return (
      <p className="flex items-center gap-2 text-sm text-muted">
        <Spinner /> Preparing the signed PDF…
      </p>
    )
  }
  if (document.signed_pdf_status !== 'ready') return null
  return <DownloadButton document={document} kind="signed-file" label="Download" filename={fileNameOf(document.title)} />
}

function Summary({ document }: { document: DocumentDetail }) {
  return (
    <Card title="Status">
      <dl className="grid grid-cols-[auto_1fr] gap-x-3 gap-y-1.5 text-sm">
        <dt className="text-muted">Status</dt>
        <dd>
          <DocumentStatusBadge document={document} />
        </dd>
        <dt className="text-muted">Sent</dt>
        <dd>{formatDateTime(document.created_at)}</dd>
        <dt className="text-muted">Updated</dt>
        <dd>{formatDateTime(document.updated_at)}</dd>
        <dt className="text-muted">Expires</dt>
        <dd>{document.expires_at ? formatDateTime(document.expires_at) : 'Never'}</dd>
        {/* Only a document sent with a schedule has one; without, nothing is said (no reminders is how documents always were). */}
        {document.reminders && (
          <>
            <dt className="text-muted">Reminders</dt>
            <dd>{formatReminderSchedule(document.reminders)}</dd>
          </>
        )}
      </dl>
    </Card>
  )
}
