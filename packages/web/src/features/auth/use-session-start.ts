import { useQueryClient } from '@tanstack/react-query'
import { useNavigate } from '@tanstack/react-router'
import type { Me } from '../../auth/session.ts'

/** After a route that started a session: remember who is signed in and go into the app (or to `next`). */
export function useEnterApp(): (me: Me, next?: string) => Promise<void> {
  const queryClient = useQueryClient()
  const navigate = useNavigate()
  return async (me, next) => {
    queryClient.removeQueries({ predicate: (query) => query.queryKey[0] !== 'me' })
    queryClient.setQueryData(['me'], me)
    // `next` comes from our own redirect to the login page: a path inside the app, never another site.
    if (next && next.startsWith('/') && !next.startsWith('//')) await navigate({ to: next })
    else await navigate({ to: '/' })
  }
}
