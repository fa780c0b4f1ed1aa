import type { ReactNode } from 'react'
import { cn } from '../lib/cn.ts'

export type BadgeTone = 'neutral' | 'info' | 'success' | 'warning' | 'danger'

const tones: Record<BadgeTone, string> = {
  neutral: 'bg-gray-100 text-gray-800 ring-gray-300',
  info: 'bg-blue-50 text-blue-800 ring-blue-200',
  success: 'bg-green-50 text-green-800 ring-green-200',
  warning: 'bg-amber-50 text-amber-900 ring-amber-300',
  danger: 'bg-red-50 text-red-800 ring-red-200',
}

export function Badge({ tone = 'neutral', children, className }: { tone?: BadgeTone; children: ReactNode; className?: string }) {
  return (
    <span className={cn('inline-flex items-center rounded-full px-2 py-0.5 text-xs font-medium ring-1 ring-inset whitespace-nowrap', tones[tone], className)}>
      {children}
    </span>
  )
}

// Documents and signers have their own badges with words (StatusBadge.tsx).
const statusTones: Record<string, BadgeTone> = {
  // identity checks, webhooks, keys, deliveries
  pending: 'info',
  expired: 'warning',
  none: 'neutral',
  approved: 'success',
  rejected: 'danger',
  active: 'success',
  enabled: 'success',
  disabled: 'neutral',
  revoked: 'neutral',
  delivered: 'success',
  failed: 'danger',
  retrying: 'warning',
}

/** A status word in a colour that matches it ("approved" green, "failed" red, …). */
export function StatusBadge({ status, label }: { status: string; label?: string }) {
  return <Badge tone={statusTones[status] ?? 'neutral'}>{label ?? status.replaceAll('_', ' ')}</Badge>
}
