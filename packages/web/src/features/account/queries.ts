import { queryOptions, useMutation, useQueryClient, type QueryClient } from '@tanstack/react-query'
import { api, unwrap } from '../../api/client.ts'
import { meQuery } from '../../auth/session.ts'
// The Account page says whether two-factor sign-in is on: the Security page's query, one cache.
import { twoFactorQuery } from '../security/queries.ts'

/** The Account page's server state: the profile (in Me), the password and the sessions. Its cards call the API only through here. */

export const accountKeys = {
  sessions: ['sessions'] as const,
}

export const sessionsQuery = queryOptions({ queryKey: accountKeys.sessions, queryFn: () => unwrap(api.GET('/me/sessions')) })

export { twoFactorQuery }

/** What the Account page's loader fetches before the page shows (and on hover). */
export function accountLoads(queryClient: QueryClient): Promise<unknown>[] {
  return [queryClient.ensureQueryData(sessionsQuery), queryClient.ensureQueryData(twoFactorQuery)]
}

/** Saves the user's name; the answer is the new Me. */
export function useSaveProfile() {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: (name: string) => unwrap(api.PATCH('/me', { body: { name } })),
    onSuccess: (me) => queryClient.setQueryData(meQuery.queryKey, me),
  })
}

/** Changes the password; the server signs out every other session, so the list is read again. */
export function useChangePassword() {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: (body: { current_password: string; new_password: string }) => unwrap(api.POST('/me/password', { body })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: accountKeys.sessions }),
  })
}

/** Signs out another browser. */
export function useEndSession() {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: (id: string) => unwrap(api.DELETE('/me/sessions/{id}', { params: { path: { id } } })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: accountKeys.sessions }),
  })
}
