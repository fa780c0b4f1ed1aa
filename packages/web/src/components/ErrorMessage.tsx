import { errorMessage } from '../api/client.ts'
import { cn } from '../lib/cn.ts'
import { Button } from './Button.tsx'

export interface ErrorMessageProps {
  /** An ApiError (its text is the server's {error}), any Error, or a text. */
  error: unknown
  title?: string
  /** Shows a "Try again" button (e.g. `() => void query.refetch()`). */
  onRetry?: () => void
  className?: string
}

/** The error, in words, where it happened; announced to screen readers. */
export function ErrorMessage({ error, title, onRetry, className }: ErrorMessageProps) {
  const text = typeof error === 'string' ? error : errorMessage(error)
  return (
    <div role="alert" className={cn('rounded-md border border-red-300 bg-red-50 p-3 text-sm text-red-900', className)}>
      {title && <p className="font-semibold">{title}</p>}
      <p className="whitespace-pre-line">{text}</p>
      {onRetry && (
        <Button size="sm" variant="secondary" className="mt-2" onClick={onRetry}>
          Try again
        </Button>
      )}
    </div>
  )
}
