import { Link } from '@tanstack/react-router'
import { ApiError } from '../../api/client.ts'
import { ErrorMessage } from '../../components/index.ts'

/**
 * An error as the server gave it; a 402 (plan allowance, Free plan's one template, spend cap) also
 * gets the way out: the server's upgrade_url (a credit-pack checkout) when it names one, else Billing.
 */
export function PlanAwareError({ error, title }: { error: unknown; title?: string }) {
  if (!(error instanceof ApiError) || error.status !== 402) return <ErrorMessage error={error} title={title} />
  const body = error.body as { upgrade_url?: unknown } | null
  const upgradeUrl = typeof body?.upgrade_url === 'string' ? body.upgrade_url : null
  return (
    <div role="alert" className="rounded-md border border-amber-300 bg-amber-50 p-3 text-sm text-amber-950">
      {title && <p className="font-semibold">{title}</p>}
      <p>{error.message}</p>
      <p className="mt-2 flex flex-wrap gap-3">
        {upgradeUrl && (
          <a href={upgradeUrl} className="font-medium text-brand-700 underline">
            Buy credits
          </a>
        )}
        <Link to="/settings/billing" className="font-medium text-brand-700 underline">
          See plans and billing
        </Link>
      </p>
    </div>
  )
}
