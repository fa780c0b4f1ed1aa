import { queryOptions, useMutation, useQuery, useQueryClient, type QueryClient } from '@tanstack/react-query'
import { api, isApiError, unwrap } from '../api/client.ts'

/** The session's server state: who is signed in, the instance, and what changes them (sign out, another workspace). */

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

/** Ends this session: everything cached belonged to it, and no one is signed in. */
export function useLogOut() {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: () => unwrap(api.POST('/auth/logout')),
    onSuccess: () => {
      queryClient.clear()
      queryClient.setQueryData(meQuery.queryKey, null)
    },
  })
}

/** Selects another workspace of the user. */
export function useSwitchWorkspace() {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: (workspaceId: string) => unwrap(api.POST('/me/workspace', { body: { workspace_id: workspaceId } })),
    onSuccess: (me) => enterWorkspace(queryClient, me),
  })
}

/** Creates a workspace, which the user owns and enters at once. */
export function useCreateWorkspace() {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: (name: string) => unwrap(api.POST('/workspaces', { body: { name } })),
    onSuccess: (me) => enterWorkspace(queryClient, me),
  })
}

/** Me names the new workspace; everything else cached belonged to the old one, so it is read again. */
async function enterWorkspace(queryClient: QueryClient, me: Me): Promise<void> {
  queryClient.setQueryData(meQuery.queryKey, me)
  await queryClient.invalidateQueries({ predicate: (query) => query.queryKey[0] !== meQuery.queryKey[0] })
}
