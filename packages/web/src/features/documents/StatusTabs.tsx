import { Link } from '@tanstack/react-router'
import { cn } from '../../lib/cn.ts'
import { formatNumber } from '../../lib/format.ts'
import type { DocumentCounts } from './queries.ts'

/** The tabs, in the order a sender looks for them; Voided includes the documents whose expiry passed (the API voids them). */
const TABS: { status: keyof DocumentCounts['by_status'] | undefined; label: string }[] = [
  { status: undefined, label: 'All' },
  { status: 'sent', label: 'Waiting for signatures' },
  { status: 'completed', label: 'Completed' },
  { status: 'declined', label: 'Declined' },
  { status: 'voided', label: 'Voided or expired' },
  { status: 'draft', label: 'Drafts' },
]

/** Status filters as links (so each is a URL and preloads on hover), each with how many documents it holds. */
export function StatusTabs({ current, counts }: { current: string | undefined; counts: DocumentCounts | undefined }) {
  // Drafts cannot be made through the dashboard: their tab shows only when some exist.
  const tabs = TABS.filter((tab) => tab.status !== 'draft' || (counts?.by_status.draft ?? 0) > 0 || current === 'draft')
  return (
    <nav aria-label="Document status" className="mb-4 flex gap-1 overflow-x-auto border-b border-line">
      {tabs.map((tab) => {
        const active = current === tab.status
        const count = counts === undefined ? undefined : tab.status ? counts.by_status[tab.status] : counts.all
        return (
          <Link
            key={tab.label}
            to="/documents"
            search={(prev) => ({ ...prev, status: tab.status, offset: undefined })}
            aria-current={active ? 'page' : undefined}
            className={cn(
              '-mb-px flex items-center gap-1.5 border-b-2 px-3 py-2 text-sm font-medium whitespace-nowrap',
              active ? 'border-brand-600 text-brand-700' : 'border-transparent text-muted hover:text-ink',
            )}
          >
            {tab.label}
            {count !== undefined && (
              <span className={cn('rounded-full px-1.5 text-xs', active ? 'bg-brand-100 text-brand-700' : 'bg-gray-100 text-muted')}>
                {formatNumber(count)}
              </span>
            )}
          </Link>
        )
      })}
    </nav>
  )
}
