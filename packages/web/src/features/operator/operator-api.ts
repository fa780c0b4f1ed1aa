import { api, unwrap } from '../../api/client.ts'
import type { paths } from '../../api/schema'

export const PLANS = ['free', 'pro', 'team', 'business'] as const
export type Plan = (typeof PLANS)[number]
export type IdentityCheckStatus = NonNullable<NonNullable<paths['/operator/identity-checks']['get']['parameters']['query']>['status']>

export const operatorApi = {
  orgs: (query: { search?: string; limit: number; offset: number }) =>
    unwrap(api.GET('/operator/orgs', { params: { query: { ...query, search: query.search || undefined } } })),
  setPlan: (id: string, plan: Plan) => unwrap(api.PUT('/operator/orgs/{id}/plan', { params: { path: { id } }, body: { plan } })),
  grantCredits: (id: string, packs: number) => unwrap(api.POST('/operator/orgs/{id}/credits', { params: { path: { id } }, body: { packs } })),
  users: (query: { search?: string }) => unwrap(api.GET('/operator/users', { params: { query: { search: query.search || undefined } } })),
  disableUser: (id: string) => unwrap(api.POST('/operator/users/{id}/disable', { params: { path: { id } } })),
  enableUser: (id: string) => unwrap(api.POST('/operator/users/{id}/enable', { params: { path: { id } } })),
  promoteUser: (id: string) => unwrap(api.POST('/operator/users/{id}/promote', { params: { path: { id } } })),
  resetTwoFactor: (id: string) => unwrap(api.POST('/operator/users/{id}/reset-two-factor', { params: { path: { id } } })),
  identityChecks: (status: IdentityCheckStatus) => unwrap(api.GET('/operator/identity-checks', { params: { query: { status } } })),
  /** A download (the server sends it as an attachment); the session cookie authenticates it. */
  documentUrl: (id: string) => `/api/v1/operator/identity-checks/${encodeURIComponent(id)}/document`,
  decide: (id: string, body: { approve: boolean; legal_name?: string; reason?: string }) =>
    unwrap(api.POST('/operator/identity-checks/{id}/decision', { params: { path: { id } }, body })),
}

export type OperatorOrg = Awaited<ReturnType<typeof operatorApi.orgs>>['orgs'][number]
export type OperatorUser = Awaited<ReturnType<typeof operatorApi.users>>['users'][number]
export type OperatorIdentityCheck = Awaited<ReturnType<typeof operatorApi.identityChecks>>['checks'][number]
