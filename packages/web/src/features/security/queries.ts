import { queryOptions, useMutation, useQueryClient, type QueryClient } from '@tanstack/react-query'
import { api, isApiError, unwrap, type ApiError } from '../../api/client.ts'
import type { operations } from '@signet/sdk/openapi'
import { meQuery } from '../../auth/session.ts'
import { createPasskey } from '../../lib/passkeys.ts'

/**
 * Account → Security and the workspace's rule: second factors, recovery codes, the security log.
 * Query keys, queries, mutations and the page's loads; the cards call the API only through here.
 */

export const securityKeys = {
  twoFactor: ['two-factor'] as const,
  events: ['security-events'] as const,
  workspaceRule: ['workspace-security'] as const,
}

export type TwoFactorStatus = operations['getTwoFactor']['responses'][200]['content']['application/json']
export type PasskeyView = TwoFactorStatus['passkeys'][number]
export type TotpSetup = operations['startTotpSetup']['responses'][200]['content']['application/json']
export type WorkspaceRule = operations['getWorkspaceSecurity']['responses'][200]['content']['application/json']

export const twoFactorQuery = queryOptions({ queryKey: securityKeys.twoFactor, queryFn: () => unwrap(api.GET('/me/two-factor')) })
export const securityEventsQuery = queryOptions({ queryKey: securityKeys.events, queryFn: () => unwrap(api.GET('/me/security-events')) })
export const workspaceRuleQuery = queryOptions({ queryKey: securityKeys.workspaceRule, queryFn: () => unwrap(api.GET('/workspace/security')) })

/** What the Security page's loader fetches before the page shows (and on hover). */
export function securityLoads(queryClient: QueryClient): Promise<unknown>[] {
  return [queryClient.ensureQueryData(twoFactorQuery), queryClient.ensureQueryData(securityEventsQuery)]
}

/** The set-up step ran out: a new one starts over. */
export const setupExpired = (error: Error): error is ApiError => isApiError(error, 410)

/** After a change to how the user signs in: the status, the log, and the workspace's list of members without a second step. */
function refreshSecurity(queryClient: QueryClient): Promise<unknown> {
  return Promise.all([
    queryClient.invalidateQueries({ queryKey: securityKeys.twoFactor }),
    queryClient.invalidateQueries({ queryKey: securityKeys.events }),
    queryClient.invalidateQueries({ queryKey: securityKeys.workspaceRule }),
  ])
}

/** A change to how the user signs in, then the security state is read again. */
function useSecurityChange<Variables, Result>(mutationFn: (variables: Variables) => Promise<Result>) {
  const queryClient = useQueryClient()
  return useMutation({ mutationFn, onSuccess: () => refreshSecurity(queryClient) })
}

/** The authenticator app's secret and QR code; nothing changes until a first code confirms it. */
export function useStartTotp() {
  return useMutation({ mutationFn: () => unwrap(api.POST('/me/two-factor/totp')) })
}

/** Turns the authenticator app on; a first second step comes with recovery codes. */
export function useConfirmTotp() {
  return useSecurityChange((body: { code: string; password: string }) => unwrap(api.POST('/me/two-factor/totp/confirm', { body })))
}

export function useDisableTotp() {
  return useSecurityChange((password: string) => unwrap(api.POST('/me/two-factor/totp/disable', { body: { password } })))
}

/** The password, then the browser's prompt makes the passkey, then the server checks and keeps it; a first second step comes with recovery codes. */
export function useAddPasskey() {
  return useSecurityChange(async ({ name, password }: { name: string; password: string }) => {
    const { options } = await unwrap(api.POST('/me/passkeys/options', { body: { password } }))
    return unwrap(api.POST('/me/passkeys', { body: { name, response: await createPasskey(options) } }))
  })
}

export function useRemovePasskey() {
  return useSecurityChange(({ id, password }: { id: string; password: string }) =>
    unwrap(api.POST('/me/passkeys/{id}/remove', { params: { path: { id } }, body: { password } })),
  )
}

/** Ten new recovery codes; the old ones stop working. */
export function useRegenerateRecoveryCodes() {
  return useSecurityChange((password: string) => unwrap(api.POST('/me/recovery-codes', { body: { password } })))
}

/** The workspace's rule: the answer is the new rule; Me carries it too (the app's gate reads it there). */
export function useSetWorkspaceRule() {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: (requireTwoFactor: boolean) => unwrap(api.PUT('/workspace/security', { body: { require_two_factor: requireTwoFactor } })),
    onSuccess: async (rule) => {
      queryClient.setQueryData(securityKeys.workspaceRule, rule)
      await Promise.all([queryClient.invalidateQueries({ queryKey: meQuery.queryKey }), refreshSecurity(queryClient)])
    },
  })
}
