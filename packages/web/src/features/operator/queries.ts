import { keepPreviousData, queryOptions, useMutation, useQueryClient } from '@tanstack/react-query'
import { operatorApi, type IdentityCheckStatus, type Plan } from './operator-api.ts'

/** The Operator area's server state: query keys, queries and mutations. Its tabs call the API only through here. */

export const ORGS_PAGE_SIZE = 20

/** Every key starts with 'operator', so invalidating ['operator'] refreshes every tab. */
export const operatorKeys = {
  all: ['operator'] as const,
  orgs: ['operator', 'orgs'] as const,
  orgList: (search: string, offset: number) => ['operator', 'orgs', { search, offset }] as const,
  users: ['operator', 'users'] as const,
  userList: (search: string) => ['operator', 'users', { search }] as const,
  identityChecks: (status: IdentityCheckStatus) => ['operator', 'identity-checks', status] as const,
}

export const orgListQuery = (search: string, offset: number) =>
  queryOptions({
    queryKey: operatorKeys.orgList(search, offset),
    queryFn: () => operatorApi.orgs({ search, limit: ORGS_PAGE_SIZE, offset }),
    // Typing a search or turning a page keeps the rows in place until the next ones arrive.
    placeholderData: keepPreviousData,
  })

export const userListQuery = (search: string) =>
  queryOptions({ queryKey: operatorKeys.userList(search), queryFn: () => operatorApi.users({ search }), placeholderData: keepPreviousData })

export const identityChecksQuery = (status: IdentityCheckStatus) =>
  queryOptions({ queryKey: operatorKeys.identityChecks(status), queryFn: () => operatorApi.identityChecks(status) })

/**
 * Reads every workspace list again after a change. A search still loading was asked before the
 * change: invalidating alone would join that request (a query without data yet is not refetched)
 * and show its old answer, so it is cancelled first and asked again.
 */
async function refreshOrgLists(queryClient: ReturnType<typeof useQueryClient>) {
  await queryClient.cancelQueries({ queryKey: operatorKeys.orgs })
  await queryClient.invalidateQueries({ queryKey: operatorKeys.orgs })
}

export function useSetPlan() {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: ({ orgId, plan }: { orgId: string; plan: Plan }) => operatorApi.setPlan(orgId, plan),
    onSuccess: () => refreshOrgLists(queryClient),
  })
}

export function useGrantCredits() {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: ({ orgId, packs }: { orgId: string; packs: number }) => operatorApi.grantCredits(orgId, packs),
    onSuccess: () => refreshOrgLists(queryClient),
  })
}

/** A user change (disable, enable, promote, two-factor reset) and the user list read again. */
export function useUserAction(action: (userId: string) => Promise<unknown>) {
  const queryClient = useQueryClient()
  return useMutation({ mutationFn: action, onSuccess: () => queryClient.invalidateQueries({ queryKey: operatorKeys.users }) })
}
