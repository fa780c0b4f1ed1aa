import { queryOptions, useQuery } from '@tanstack/react-query'
import { api, isApiError, unwrap } from '../api/client.ts'

const getMe = () => unwrap(api.GET('/me'))

/** GET /me: the signed-in user, the selected workspace and every workspace they belong to. */
export type Me = Awaited<ReturnType<typeof getMe>>
export type WorkspaceSummary = Me['workspaces'][number]
export type WorkspaceRole = WorkspaceSummary['role']
/** What the user may do in the selected workspace, as the server decides it (accounts/roles.ts). */
export type Ability = keyof Me['abilities']

/** The session's user, or null when signed out (a 401 is an answer here, not an error). */
export const meQuery = queryOptions({
  queryKey: ['me'] as const,
  queryFn: async (): Promise<Me | null> => {
    try {
      return await getMe()
    } catch (error) {
      if (isApiError(error, 401)) return null
      throw error
    }
  },
  staleTime: 60_000,
})

export const instanceQuery = queryOptions({
  queryKey: ['instance'] as const,
  queryFn: () => unwrap(api.GET('/instance')),
  staleTime: 5 * 60_000,
})

/** The signed-in user inside the app (the app layout has already made sure there is one). */
export function useMe(): Me {
  const { data } = useQuery(meQuery)
  if (!data) throw new Error('useMe is only for pages inside the signed-in app')
  return data
}
