import { keepPreviousData, queryOptions, useMutation, useQueryClient, type QueryClient } from '@tanstack/react-query'
import { api, unwrap } from '../../api/client.ts'
import type { operations } from '@signet/sdk/openapi'
import { meQuery } from '../../auth/session.ts'
import type { Plan } from '../../lib/vocabulary.ts'

/** The Operator area's server state: query keys, queries, mutations and the page's loads. Its tabs call the API only through here. */

export const ORGS_PAGE_SIZE = 20

/** The statuses the identity-check queue is filtered by. */
export type IdentityCheckStatus = NonNullable<NonNullable<operations['listIdentityChecks']['parameters']['query']>['status']>

export type OperatorOrg = operations['listOperatorOrgs']['responses'][200]['content']['application/json']['orgs'][number]
export type OperatorUser = operations['listOperatorUsers']['responses'][200]['content']['application/json']['users'][number]
export type OperatorIdentityCheck = operations['listIdentityChecks']['responses'][200]['content']['application/json']['checks'][number]

/** Every key starts with 'operator', so invalidating ['operator'] refreshes every tab. */
export const operatorKeys = {
  all: ['operator'] as const,
  orgs: ['operator', 'orgs'] as const,
  orgList: (search: string, offset: number) => ['operator', 'orgs', { search, offset }] as const,
  users: ['operator', 'users'] as const,
  userList: (search: string) => ['operator', 'users', { search }] as const,
  identityChecks: (status: IdentityCheckStatus) => ['operator', 'identity-checks', status] as const,
}

const byId = (id: string) => ({ params: { path: { id } } })

export const orgListQuery = (search: string, offset: number) =>
  queryOptions({
    queryKey: operatorKeys.orgList(search, offset),
    queryFn: () => unwrap(api.GET('/operator/orgs', { params: { query: { search: search || undefined, limit: ORGS_PAGE_SIZE, offset } } })),
    // Typing a search or turning a page keeps the rows in place until the next ones arrive.
    placeholderData: keepPreviousData,
  })

export const userListQuery = (search: string) =>
  queryOptions({
    queryKey: operatorKeys.userList(search),
    queryFn: () => unwrap(api.GET('/operator/users', { params: { query: { search: search || undefined } } })),
    placeholderData: keepPreviousData,
  })

export const identityChecksQuery = (status: IdentityCheckStatus) =>
  queryOptions({
    queryKey: operatorKeys.identityChecks(status),
    queryFn: () => unwrap(api.GET('/operator/identity-checks', { params: { query: { status } } })),
  })

/** What the Operator page's loader fetches before the page shows (and on hover): its first tab, the workspaces. */
export function operatorLoads(queryClient: QueryClient): Promise<unknown>[] {
  // Anyone else sees a notice instead of the lists: asking would only be refused.
  if (!queryClient.getQueryData(meQuery.queryKey)?.abilities.operate_instance) return []
  return [queryClient.ensureQueryData(orgListQuery('', 0))]
}

/** A link, not a fetch: the server sends the document as an attachment, and the session cookie authenticates it. */
export const identityCheckDocumentUrl = (id: string) => `/api/v1/operator/identity-checks/${encodeURIComponent(id)}/document`

/**
 * Reads every workspace list again after a change. A search still loading was asked before the
 * change: invalidating alone would join that request (a query without data yet is not refetched)
 * and show its old answer, so it is cancelled first and asked again.
 */
async function refreshOrgLists(queryClient: QueryClient) {
  await queryClient.cancelQueries({ queryKey: operatorKeys.orgs })
  await queryClient.invalidateQueries({ queryKey: operatorKeys.orgs })
}

export function useSetPlan() {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: ({ orgId, plan }: { orgId: string; plan: Plan }) => unwrap(api.PUT('/operator/orgs/{id}/plan', { ...byId(orgId), body: { plan } })),
    onSuccess: () => refreshOrgLists(queryClient),
  })
}

export function useGrantCredits() {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: ({ orgId, packs }: { orgId: string; packs: number }) => unwrap(api.POST('/operator/orgs/{id}/credits', { ...byId(orgId), body: { packs } })),
    onSuccess: () => refreshOrgLists(queryClient),
  })
}

export type UserActionKind = 'enable' | 'disable' | 'promote' | 'reset-two-factor'

const USER_ACTIONS = {
  enable: (userId: string) => unwrap(api.POST('/operator/users/{id}/enable', byId(userId))),
  disable: (userId: string) => unwrap(api.POST('/operator/users/{id}/disable', byId(userId))),
  promote: (userId: string) => unwrap(api.POST('/operator/users/{id}/promote', byId(userId))),
  'reset-two-factor': (userId: string) => unwrap(api.POST('/operator/users/{id}/reset-two-factor', byId(userId))),
} satisfies Record<UserActionKind, (userId: string) => Promise<unknown>>

/** A user change (enable, disable, promote, two-factor reset), then the user lists are read again. */
export function useUserAction() {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: ({ kind, userId }: { kind: UserActionKind; userId: string }): Promise<unknown> => USER_ACTIONS[kind](userId),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: operatorKeys.users }),
  })
}

/** Approves (under the submitted legal name, or a corrected one) or rejects (with a reason for the owner) a workspace's identity check. */
export function useDecideIdentityCheck() {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: ({ id, ...body }: { id: string; approve: boolean; legal_name?: string; reason?: string }) =>
      unwrap(api.POST('/operator/identity-checks/{id}/decision', { ...byId(id), body })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: operatorKeys.all }),
  })
}
