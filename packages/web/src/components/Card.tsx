import type { ReactNode } from 'react'
import { cn } from '../lib/cn.ts'

export interface CardProps {
  title?: ReactNode
  description?: ReactNode
  /** Buttons at the right of the title. */
  actions?: ReactNode
  children?: ReactNode
  className?: string
  /** Heading level of the title (2 by default: cards sit under the page's h1). */
  level?: 2 | 3
}

export function Card({ title, description, actions, children, className, level = 2 }: CardProps) {
  const Heading = level === 2 ? 'h2' : 'h3'
  return (
    <section className={cn('rounded-lg border border-line bg-white p-3 sm:p-5', className)}>
      {(title || actions) && (
        <div className="mb-3 flex flex-wrap items-start justify-between gap-2">
          <div>
            {title && <Heading className="text-base font-semibold">{title}</Heading>}
            {description && <p className="mt-0.5 text-sm text-muted">{description}</p>}
          </div>
          {actions && <div className="flex flex-wrap gap-2">{actions}</div>}
        </div>
      )}
      {children}
    </section>
  )
}
