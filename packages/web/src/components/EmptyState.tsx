import type { ReactNode } from 'react'
import { cn } from '../lib/cn.ts'

/** What an empty list says, and the one action that fills it. */
export function EmptyState({ title, description, action, className }: { title: string; description?: ReactNode; action?: ReactNode; className?: string }) {
  return (
    <div className={cn('rounded-lg border border-dashed border-line bg-white px-4 py-10 text-center', className)}>
      <p className="font-semibold">{title}</p>
      {description && <p className="mx-auto mt-1 max-w-md text-sm text-muted">{description}</p>}
      {action && <div className="mt-4 flex justify-center">{action}</div>}
    </div>
  )
}
