import { formatNumber } from '../lib/format.ts'
import { Button } from './Button.tsx'

export interface PaginationProps {
  offset: number
  limit: number
  total: number
  onChange: (offset: number) => void
}

/** "21–40 of 125" with Previous / Next. */
export function Pagination({ offset, limit, total, onChange }: PaginationProps) {
  if (total <= limit && offset === 0) return null
  const first = total === 0 ? 0 : offset + 1
  const last = Math.min(offset + limit, total)
  return (
    <nav aria-label="Pages" className="mt-3 flex flex-wrap items-center justify-between gap-2 text-sm">
      <p className="text-muted">
        {formatNumber(first)}–{formatNumber(last)} of {formatNumber(total)}
      </p>
      <div className="flex gap-2">
        <Button variant="secondary" size="sm" disabled={offset === 0} onClick={() => onChange(Math.max(0, offset - limit))}>
          Previous
        </Button>
        <Button variant="secondary" size="sm" disabled={offset + limit >= total} onClick={() => onChange(offset + limit)}>
          Next
        </Button>
      </div>
    </nav>
  )
}
