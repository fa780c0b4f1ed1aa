import { useQuery } from '@tanstack/react-query'
import { Badge, Card, ErrorMessage, QueryView } from '../../components/index.ts'
import { formatDateTime } from '../../lib/format.ts'
import { AUDIT_EVENT_LABELS, AUTH_METHOD_LABELS } from '../../lib/vocabulary.ts'
import { auditTrailQuery, type DocumentDetail } from './queries.ts'

/** A document's audit trail in words: what happened, when, who did it and how they proved who they are. */
export function AuditTrailCard({ document }: { document: DocumentDetail }) {
  const trail = useQuery(auditTrailQuery(document))
  return (
    <Card
      title="Audit trail"
      description="Every event is chained to the one before it by its hash, so a changed or removed event breaks the chain."
      actions={trail.data && (trail.data.chain_valid ? <Badge tone="success">Hash chain intact</Badge> : <Badge tone="danger">Hash chain broken</Badge>)}
    >
      <QueryView query={trail} loadingLabel="Loading the audit trail…" errorTitle="The audit trail could not be loaded">
        {(data) => (
          <>
            {!data.chain_valid && (
              <ErrorMessage className="mb-3" error="The audit trail's hash chain does not check: an event was changed or removed after it was written." />
            )}
            <ol className="flex flex-col gap-3">
              {data.events.map((event) => (
                <li key={event.seq} className="border-l-2 border-brand-100 pl-3 text-sm break-words">
                  <p className="font-medium">
                    {AUDIT_EVENT_LABELS[event.event]}
                    {event.agent_triggered && (
                      <Badge tone="info" className="ml-2">
                        AI agent
                      </Badge>
                    )}
                  </p>
                  <p className="text-muted">
                    <time dateTime={event.at}>{formatDateTime(event.at)}</time>
                    {event.actor && ` · ${event.actor}`}
                    {event.auth_method && ` · ${AUTH_METHOD_LABELS[event.auth_method]}`}
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
