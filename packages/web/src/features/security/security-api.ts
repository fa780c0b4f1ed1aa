import { queryOptions, type QueryClient } from '@tanstack/react-query'
import { api, unwrap } from '../../api/client.ts'
import type { PasskeyCreation } from '../../lib/passkeys.ts'

/** Account → Security and the workspace's rule: second factors, recovery codes, the security log. */
export const securityApi = {
  status: () => unwrap(api.GET('/me/two-factor')),
  startTotp: () => unwrap(api.POST('/me/two-factor/totp')),
  confirmTotp: (body: { code: string; password: string }) => unwrap(api.POST('/me/two-factor/totp/confirm', { body })),
  disableTotp: (password: string) => unwrap(api.POST('/me/two-factor/totp/disable', { body: { password } })),
  passkeyOptions: (password: string) => unwrap(api.POST('/me/passkeys/options', { body: { password } })),
  addPasskey: (body: { name: string; response: PasskeyCreation }) => unwrap(api.POST('/me/passkeys', { body })),
  removePasskey: (id: string, password: string) => unwrap(api.POST('/me/passkeys/{id}/remove', { params: { path: { id } }, body: { password } })),
  regenerateRecoveryCodes: (password: string) => unwrap(api.POST('/me/recovery-codes', { body: { password } })),
  events: () => unwrap(api.GET('/me/security-events')),
  workspaceRule: () => unwrap(api.GET('/workspace/security')),
  setWorkspaceRule: (requireTwoFactor: boolean) => unwrap(api.PUT('/workspace/security', { body: { require_two_factor: requireTwoFactor } })),
}

export type TwoFactorStatus = Awaited<ReturnType<typeof securityApi.status>>
export type PasskeyView = TwoFactorStatus['passkeys'][number]
export type TotpSetup = Awaited<ReturnType<typeof securityApi.startTotp>>
export type SecurityEvent = Awaited<ReturnType<typeof securityApi.events>>['events'][number]
export type WorkspaceRule = Awaited<ReturnType<typeof securityApi.workspaceRule>>

export const twoFactorQuery = queryOptions({ queryKey: ['two-factor'] as const, queryFn: securityApi.status })
export const securityEventsKey = ['security-events'] as const
export const workspaceRuleKey = ['workspace-security'] as const
export const workspaceRuleQuery = queryOptions({ queryKey: workspaceRuleKey, queryFn: securityApi.workspaceRule })

/** After a change to how the user signs in: the status, the log, the workspace's list of members without one, and Me. */
export function refreshSecurity(queryClient: QueryClient): Promise<unknown> {
  return Promise.all([
    queryClient.invalidateQueries({ queryKey: twoFactorQuery.queryKey }),
    queryClient.invalidateQueries({ queryKey: securityEventsKey }),
    queryClient.invalidateQueries({ queryKey: workspaceRuleKey }),
  ])
}
