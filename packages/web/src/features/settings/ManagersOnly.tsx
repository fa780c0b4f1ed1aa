import type { ReactNode } from 'react'
import { canManage, useMe } from '../../auth/session.ts'
import { EmptyState } from '../../components/EmptyState.tsx'

/** Keys, webhooks, billing changes and members are for owners and admins; a member is told so. */
export function ManagersOnly({ what, children }: { what: string; children: ReactNode }) {
  const me = useMe()
  if (canManage(me)) return <>{children}</>
  return <EmptyState title={`Only owners and admins manage ${what}`} description="Ask an owner or admin of this workspace if you need a change." />
}
