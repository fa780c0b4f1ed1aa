import { queryOptions } from '@tanstack/react-query'
import { api, unwrap } from './client.ts'

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
