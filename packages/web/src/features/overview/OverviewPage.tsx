import { useQuery } from '@tanstack/react-query'
import { Link } from '@tanstack/react-router'
import { usageQuery } from '../../api/queries.ts'
import { useMe } from '../../auth/session.ts'
import { buttonClass, Card, EmptyState, Meter, PageHeader, QueryView } from '../../components/index.ts'
import { formatNumber } from '../../lib/format.ts'
import { DocumentRows } from '../documents/DocumentRows.tsx'
import { FirstRunSteps } from './FirstRunSteps.tsx'
import { NeedsAttention } from './NeedsAttention.tsx'
import { recentDocumentsQuery } from './queries.ts'

/** /app/: what needs attention first, then what happened lately, then how much of the plan is used. */
export function OverviewPage() {
  const me = useMe()
  return (
    <>
      <PageHeader
        title="Overview"
        description={`${me.workspace?.name ?? ''} · this month's usage and the documents that need you`}
        actions={
          <Link to="/send" className={buttonClass('primary')}>
            Send a document
          </Link>
        }
      />
      <div className="flex flex-col gap-5">
        <FirstRunSteps />
        <NeedsAttention />
        <RecentDocuments />
        <Usage />
      </div>
    </>
  )
}

function RecentDocuments() {
  const documents = useQuery(recentDocumentsQuery())
  return (
    <Card
      title="Recent documents"
      actions={
        <Link to="/documents" className={buttonClass('secondary', 'sm')}>
          All documents
        </Link>
      }
    >
      <QueryView query={documents} loadingLabel="Loading documents…">
        {(list) =>
          list.documents.length === 0 ? (
            <EmptyState
              title="No documents yet"
              description="Send a template to one or more signers; it shows here until it is completed."
              action={
                <Link to="/send" className={buttonClass('primary', 'sm')}>
                  Send a document
                </Link>
              }
            />
          ) : (
            <DocumentRows documents={list.documents} label="Recent documents" />
          )
        }
      </QueryView>
    </Card>
  )
}

/** One meter: how much of the plan's allowance this period used; the details are on Billing. */
function Usage() {
  const usage = useQuery(usageQuery())
  return (
    <Card
      title="Usage this month"
      actions={
        <Link to="/settings/billing" className={buttonClass('secondary', 'sm')}>
          Billing
        </Link>
      }
    >
      <QueryView query={usage} loadingLabel="Loading usage…">
        {(u) =>
          u.included_allowance > 0 ? (
            <>
              <p className="mb-1 flex flex-wrap justify-between gap-2 text-sm">
                <span>Documents included in your plan</span>
                <span>
                  {formatNumber(u.included_used)} of {formatNumber(u.included_allowance)} used
                </span>
              </p>
              <Meter
                value={u.included_used}
                max={u.included_allowance}
                label={`${formatNumber(u.included_used)} of ${formatNumber(u.included_allowance)} included documents used`}
              />
            </>
          ) : (
            <p className="text-sm">{formatNumber(u.unlimited_units + u.billable_units)} documents this month; your plan does not limit them.</p>
          )
        }
      </QueryView>
    </Card>
  )
}
