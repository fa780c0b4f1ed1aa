import { Link } from '@tanstack/react-router'
import { Badge, DocumentStatusBadge } from '../../components/index.ts'
import { formatDate } from '../../lib/format.ts'
import { RowActions } from './RowActions.tsx'
import type { DocumentListItem } from './queries.ts'

/**
 * One document per row: what it is, who it is for and how far it got, then what one can do
 * with it. A grid row from 640 px; below that each row stacks into a card, so a phone never
 * scrolls sideways.
 */
export function DocumentRows({ documents, label = 'Documents' }: { documents: DocumentListItem[]; label?: string }) {
  return (
    <ul aria-label={label} className="divide-y divide-gray-200 rounded-lg border border-line bg-white">
      {documents.map((document) => (
        <li key={document.id} className="grid gap-2 p-3 sm:grid-cols-[minmax(0,1fr)_12rem_10rem] sm:items-center sm:gap-4 sm:px-4">
          <div className="min-w-0">
            <p className="font-medium break-words">
              <Link to="/documents/$id" params={{ id: document.id }} className="text-brand-700 underline-offset-2 hover:underline">
                {document.title}
              </Link>
              {document.is_verified_badge && (
                <Badge tone="success" className="ml-2">
                  Sealed
                </Badge>
              )}
            </p>
            <Recipients document={document} />
          </div>
          <div className="flex flex-wrap items-center gap-x-3 gap-y-1 sm:flex-col sm:items-start">
            <DocumentStatusBadge document={document} />
            <Progress document={document} />
          </div>
          <RowActions document={document} />
        </li>
      ))}
    </ul>
  )
}

/** "Ann Lee, bo@example.com · Sent 24 Nov 2026". */
function Recipients({ document }: { document: DocumentListItem }) {
  const names = document.recipients.map((r) => r.name ?? r.email)
  return (
    <p className="mt-0.5 text-sm break-words text-muted">
      {names.length > 0 && <span>{names.join(', ')} · </span>}
      Sent {formatDate(document.created_at)}
    </p>
  )
}

/** "1 of 2 signed", with a bar; nothing for a self-sealed document, which has no signers. */
function Progress({ document }: { document: DocumentListItem }) {
  if (document.signer_count === 0) return null
  const text = `${document.signed_count} of ${document.signer_count} signed`
  return (
    <span className="flex items-center gap-2 text-sm text-muted">
      <span className="h-1.5 w-12 overflow-hidden rounded-full bg-gray-200" aria-hidden="true">
        <span className="block h-full rounded-full bg-green-700" style={{ width: `${(100 * document.signed_count) / document.signer_count}%` }} />
      </span>
      {text}
    </span>
  )
}
