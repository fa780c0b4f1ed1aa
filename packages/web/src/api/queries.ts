import { queryOptions } from '@tanstack/react-query'
import { api, unwrap } from './client.ts'
import type { operations } from '@signet/sdk/openapi'

/** Query definitions more than one page reads (same key, same cache). */

/** Every usage key starts with 'usage', so invalidating ['usage'] refreshes every month read. */
export const usageKeys = {
  all: ['usage'] as const,
  period: (period: string | undefined) => ['usage', period ?? 'current'] as const,
}

export const usageQuery = (period?: string) =>
  queryOptions({
    queryKey: usageKeys.period(period),
    queryFn: () => unwrap(api.GET('/usage', { params: { query: period ? { period } : {} } })),
  })

export const spendCapQuery = queryOptions({
  queryKey: ['spend-cap'] as const,
  queryFn: () => unwrap(api.GET('/billing/spend-cap')),
})

/** The workspace's default reminder schedule (null: none): Settings → Reminders sets it, the Send page offers it. */
export const reminderSettingsQuery = queryOptions({
  queryKey: ['reminder-settings'] as const,
  queryFn: () => unwrap(api.GET('/settings/reminders')),
})

/** When signers who have not finished are reminded: first after N days, then every M days, at most K times. */
export type ReminderSchedule = NonNullable<operations['getReminderSettings']['responses'][200]['content']['application/json']['reminders']>
