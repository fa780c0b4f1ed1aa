import { useQuery } from '@tanstack/react-query'
import { Card } from '../../components/index.ts'
import { DocumentRows } from '../documents/DocumentRows.tsx'
import type { DocumentListItem } from '../documents/queries.ts'
import { allDocumentCountsQuery, declinedDocumentsQuery, expiringDocumentsQuery, waitingLongestQuery } from './queries.ts'

/** Declined documents, those expiring within three days, and those waiting longest for a signature — or nothing, when none are. */
export function NeedsAttention() {
  const declined = useQuery(declinedDocumentsQuery())
  const expiring = useQuery(expiringDocumentsQuery())
  const counts = useQuery(allDocumentCountsQuery())
  const waitingCount = counts.data?.by_status.sent ?? 0
  const waiting = useQuery({ ...waitingLongestQuery(waitingCount), enabled: waitingCount > 0 })

  const expiringIds = new Set(expiring.data?.documents.map((d) => d.id))
  // Oldest first; one already listed as expiring is not listed twice.
  const waitingLongest = [...(waiting.data?.documents ?? [])].reverse().filter((d) => !expiringIds.has(d.id))
  const groups: { title: string; documents: DocumentListItem[] }[] = [
    { title: 'Declined', documents: declined.data?.documents ?? [] },
    { title: 'Expiring within 3 days', documents: expiring.data?.documents ?? [] },
    { title: 'Waiting longest', documents: waitingLongest },
  ].filter((group) => group.documents.length > 0)
  if (groups.length === 0) return null
  return (
    <Card title="Needs attention">
      <div className="flex flex-col gap-4">
        {groups.map((group) => (
          <section key={group.title} aria-label={group.title}>
            <h3 className="mb-2 text-sm font-semibold">{group.title}</h3>
            <DocumentRows documents={group.documents} label={group.title} />
          </section>
        ))}
      </div>
    </Card>
  )
}
