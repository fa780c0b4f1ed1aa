import { cn } from '../lib/cn.ts'

/** How much of a budget is used: a bar plus the numbers in words. */
export function Meter({ value, max, label, className }: { value: number; max: number; label: string; className?: string }) {
  const ratio = max > 0 ? Math.min(1, value / max) : 0
  return (
    <div className={cn('h-2 w-full overflow-hidden rounded-full bg-gray-200', className)} role="img" aria-label={label}>
      <div
        className={cn('h-full rounded-full', ratio >= 1 ? 'bg-red-700' : ratio >= 0.8 ? 'bg-amber-500' : 'bg-brand-600')}
        style={{ width: `${ratio * 100}%` }}
      />
    </div>
  )
}
