import { queryOptions, useMutation, useQueryClient, type QueryClient } from '@tanstack/react-query'
import { api, fetchRaw, unwrap } from '../../api/client.ts'
import { reminderSettingsQuery, spendCapQuery, usageKeys, usageQuery, type ReminderSchedule } from '../../api/queries.ts'
import type { operations } from '@signet/sdk/openapi'
import { meQuery, type Ability, type WorkspaceRole } from '../../auth/session.ts'
import { API_KEY_ACCESS_SCOPES, type ApiKeyAccess } from '../../lib/vocabulary.ts'
import { workspaceRuleQuery } from '../security/index.ts'

/** The settings pages' server state (API keys, webhooks, members, billing, identity check, reminders): query keys, queries, mutations and loads. Pages call the API only through here. */

export const apiKeyKeys = { all: ['keys'] as const }
export const webhookKeys = {
  all: ['webhooks'] as const,
  /** Every page of one endpoint's log starts with ['deliveries', id], so a new delivery refreshes them all. */
  deliveries: (webhookId: string) => ['deliveries', webhookId] as const,
  deliveryPage: (webhookId: string, offset: number) => ['deliveries', webhookId, offset] as const,
}
export const memberKeys = { all: ['members'] as const }
export const identityCheckKeys = { all: ['identity-check'] as const }
export const connectedAppKeys = { all: ['connected-apps'] as const }

export type ApiKey = operations['listApiKeys']['responses'][200]['content']['application/json']['keys'][number]
export type CreatedApiKey = operations['createApiKey']['responses'][201]['content']['application/json']
export type Webhook = operations['listWebhooks']['responses'][200]['content']['application/json']['webhooks'][number]
export type WebhookTestResult = operations['testWebhook']['responses'][200]['content']['application/json']
export type Delivery = operations['listWebhookDeliveries']['responses'][200]['content']['application/json']['deliveries'][number]
export type Member = operations['listMembers']['responses'][200]['content']['application/json']['members'][number]
export type PendingInvitation = operations['listMembers']['responses'][200]['content']['application/json']['invitations'][number]
export type IdentityCheck = operations['getIdentityCheck']['responses'][200]['content']['application/json']
/** An app that connected with OAuth, who allowed it and what it may do. */
export type ConnectedApp = operations['listConnectedApps']['responses'][200]['content']['application/json']['data'][number]

const byId = (id: string) => ({ params: { path: { id } } })
const byUserId = (userId: string) => ({ params: { path: { userId } } })

// API keys

export const apiKeysQuery = queryOptions({ queryKey: apiKeyKeys.all, queryFn: () => unwrap(api.GET('/keys')) })

/** Creates a key; the list is read again without waiting, so the new key is shown at once. */
export function useCreateApiKey() {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: ({ name, access }: { name: string; access: ApiKeyAccess }) =>
      unwrap(api.POST('/keys', { body: { name, scopes: API_KEY_ACCESS_SCOPES[access] } })),
    onSuccess: () => {
      void queryClient.invalidateQueries({ queryKey: apiKeyKeys.all })
    },
  })
}

export function useRevokeApiKey() {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: (id: string) => unwrap(api.DELETE('/keys/{id}', byId(id))),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: apiKeyKeys.all }),
  })
}

// Webhooks

export const webhooksQuery = queryOptions({ queryKey: webhookKeys.all, queryFn: () => unwrap(api.GET('/webhooks')) })

export const DELIVERY_PAGE_SIZE = 10

export const deliveriesQuery = (webhookId: string, offset: number) =>
  queryOptions({
    queryKey: webhookKeys.deliveryPage(webhookId, offset),
    queryFn: () => unwrap(api.GET('/webhooks/{id}/deliveries', { params: { path: { id: webhookId }, query: { limit: DELIVERY_PAGE_SIZE, offset } } })),
  })

/** Adds an endpoint; the list is read again without waiting, so its signing secret is shown at once. */
export function useCreateWebhook() {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: (url: string) => unwrap(api.POST('/webhooks', { body: { url } })),
    onSuccess: () => {
      void queryClient.invalidateQueries({ queryKey: webhookKeys.all })
    },
  })
}

export function useSetWebhookEnabled() {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: ({ id, enabled }: { id: string; enabled: boolean }) => unwrap(api.PATCH('/webhooks/{id}', { ...byId(id), body: { enabled } })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: webhookKeys.all }),
  })
}

/** Deletes an endpoint with its delivery log. */
export function useDeleteWebhook() {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: (id: string) => unwrap(api.DELETE('/webhooks/{id}', byId(id))),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: webhookKeys.all }),
  })
}

/** A new signing secret, shown once; nothing cached holds the secret. */
export function useRotateWebhookSecret() {
  return useMutation({ mutationFn: (id: string) => unwrap(api.POST('/webhooks/{id}/rotate-secret', byId(id))) })
}

/** Sends one test event now; the answer says what the endpoint replied. */
export function useSendTestEvent() {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: (id: string) => unwrap(api.POST('/webhooks/{id}/test', byId(id))),
    onSettled: (_data, _error, id) => queryClient.invalidateQueries({ queryKey: webhookKeys.deliveries(id) }),
  })
}

export function useRedeliver() {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: ({ webhookId, deliveryId }: { webhookId: string; deliveryId: string }) =>
      unwrap(api.POST('/webhooks/{id}/deliveries/{deliveryId}/redeliver', { params: { path: { id: webhookId, deliveryId } } })),
    onSuccess: (_, { webhookId }) => queryClient.invalidateQueries({ queryKey: webhookKeys.deliveries(webhookId) }),
  })
}

// Members

export const membersQuery = queryOptions({ queryKey: memberKeys.all, queryFn: () => unwrap(api.GET('/members')) })

export function useInviteMember() {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: (body: { email: string; role: WorkspaceRole }) => unwrap(api.POST('/members/invitations', { body })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: memberKeys.all }),
  })
}

export function useRevokeInvitation() {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: (id: string) => unwrap(api.DELETE('/members/invitations/{id}', byId(id))),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: memberKeys.all }),
  })
}

export function useSetMemberRole() {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: ({ userId, role }: { userId: string; role: WorkspaceRole }) => unwrap(api.PATCH('/members/{userId}', { ...byUserId(userId), body: { role } })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: memberKeys.all }),
  })
}

export function useRemoveMember() {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: (userId: string) => unwrap(api.DELETE('/members/{userId}', byUserId(userId))),
    onSuccess: async (_, userId) => {
      // Removing oneself leaves the workspace: the session now acts in another one, or none.
      if (queryClient.getQueryData(meQuery.queryKey)?.user.id === userId) await queryClient.invalidateQueries({ queryKey: meQuery.queryKey })
      await queryClient.invalidateQueries({ queryKey: memberKeys.all })
    },
  })
}

// Billing (usage and the spend cap are read on other pages too: src/api/queries.ts)

/** The last twelve calendar months (UTC), newest first, as usage periods are keyed: 'YYYY-MM'. */
export function recentPeriods(now = new Date()): string[] {
  return Array.from({ length: 12 }, (_, back) => new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - back, 1)).toISOString().slice(0, 7))
}

/** Sets the cap (null removes it); usage, which reports what the cap leaves, is read again. */
export function useSetSpendCap() {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: (spend_cap_cents: number | null) => unwrap(api.PUT('/billing/spend-cap', { body: { spend_cap_cents } })),
    onSuccess: async (saved) => {
      queryClient.setQueryData(spendCapQuery.queryKey, saved)
      await queryClient.invalidateQueries({ queryKey: usageKeys.all })
    },
  })
}

// Reminders (the workspace's default is read on the Send page too: src/api/queries.ts)

/** Sets the workspace's default schedule (null: none); documents already sent keep theirs. */
export function useSetReminderSettings() {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: (reminders: ReminderSchedule | null) => unwrap(api.PUT('/settings/reminders', { body: { reminders } })),
    onSuccess: (saved) => queryClient.setQueryData(reminderSettingsQuery.queryKey, saved),
  })
}

// Signer language (extension): the workspace's default for signer pages and e-mails

export type SignerLanguageSetting = operations['getSignerLanguageSettings']['responses'][200]['content']['application/json']['language']
export const signerLanguageQuery = queryOptions({ queryKey: ['signer-language'] as const, queryFn: () => unwrap(api.GET('/settings/signer-language')) })

/** Sets the workspace's default language (null: none), for every document without a language of its own. */
export function useSetSignerLanguage() {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: (language: SignerLanguageSetting) => unwrap(api.PUT('/settings/signer-language', { body: { language } })),
    onSuccess: (saved) => queryClient.setQueryData(signerLanguageQuery.queryKey, saved),
  })
}

// Identity check

export const identityCheckQuery = queryOptions({ queryKey: identityCheckKeys.all, queryFn: () => unwrap(api.GET('/identity-check')) })

/**
 * Submits the legal name and the ID document; the answer is the check's new state.
 * fetchRaw: the body is the file itself, under its own type, which openapi-fetch would JSON-encode.
 */
export function useSubmitIdentityCheck() {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: async ({ legalName, file }: { legalName: string; file: File }) => {
      const response = await fetchRaw(`/identity-check?legal_name=${encodeURIComponent(legalName)}`, {
        method: 'POST',
        body: file,
        headers: { 'content-type': file.type },
      })
      return (await response.json()) as IdentityCheck
    },
    onSuccess: (state) => queryClient.setQueryData(identityCheckQuery.queryKey, state),
  })
}

// Connected apps

export const connectedAppsQuery = queryOptions({
  queryKey: connectedAppKeys.all,
  queryFn: async () => (await unwrap(api.GET('/connected-apps'))).data,
})

/** Ends the app's access and refresh tokens at once. */
export function useRevokeConnectedApp() {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: (id: string) => unwrap(api.DELETE('/connected-apps/{id}', byId(id))),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: connectedAppKeys.all }),
  })
}

// What each page's loader fetches before the page shows (and on hover)

/** Whether the signed-in user may do this here: the app's layout has loaded Me before any page's loader runs. */
const may = (queryClient: QueryClient, ability: Ability) => queryClient.getQueryData(meQuery.queryKey)?.abilities[ability] === true

// A page the user may not manage only says why: its loader asks the server nothing the page would not.
export function apiKeysLoads(queryClient: QueryClient): Promise<unknown>[] {
  return may(queryClient, 'manage_api_keys') ? [queryClient.ensureQueryData(apiKeysQuery)] : []
}

export function webhooksLoads(queryClient: QueryClient): Promise<unknown>[] {
  return may(queryClient, 'manage_webhooks') ? [queryClient.ensureQueryData(webhooksQuery)] : []
}

export function membersLoads(queryClient: QueryClient): Promise<unknown>[] {
  return [queryClient.ensureQueryData(membersQuery), ...(may(queryClient, 'manage_members') ? [queryClient.ensureQueryData(workspaceRuleQuery)] : [])]
}

/** `period` is the page's search parameter: the current month when there is none. */
export function billingLoads(queryClient: QueryClient, period: string | undefined): Promise<unknown>[] {
  return [
    queryClient.ensureQueryData(usageQuery(period ?? recentPeriods()[0])),
    queryClient.ensureQueryData(usageQuery()),
    queryClient.ensureQueryData(spendCapQuery),
  ]
}

export function connectedAppsLoads(queryClient: QueryClient): Promise<unknown>[] {
  return [queryClient.ensureQueryData(connectedAppsQuery)]
}

export function identityCheckLoads(queryClient: QueryClient): Promise<unknown>[] {
  return [queryClient.ensureQueryData(identityCheckQuery)]
}

/** Everyone reads the default (members see it without changing it). */
export function remindersLoads(queryClient: QueryClient): Promise<unknown>[] {
  return [queryClient.ensureQueryData(reminderSettingsQuery)]
}

// Embedded signing

export type EmbedOrigins = operations['getEmbedSettings']['responses'][200]['content']['application/json']['origins']
export const embedOriginsQuery = queryOptions({ queryKey: ['embed-origins'] as const, queryFn: () => unwrap(api.GET('/settings/embed')) })

/** Replaces the origins allowed to frame the workspace's embedded signer pages. */
export function useSetEmbedOrigins() {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: (origins: EmbedOrigins) => unwrap(api.PUT('/settings/embed', { body: { origins } })),
    onSuccess: (saved) => queryClient.setQueryData(embedOriginsQuery.queryKey, saved),
  })
}
