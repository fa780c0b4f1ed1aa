import type { ReactNode } from 'react'
import { useMe, type Ability } from '../../auth/session.ts'
import { EmptyState } from '../../components/EmptyState.tsx'

/** A page the sidebar does not offer the user, reached by its address anyway: told why, with nothing to do. */
export function RequireAbility({ ability, what, children }: { ability: Ability; what: string; children: ReactNode }) {
  const me = useMe()
  if (me.abilities[ability]) return <>{children}</>
  return <EmptyState title={`You cannot manage ${what} in this workspace`} description="Ask an owner or admin of this workspace if you need a change." />
}
