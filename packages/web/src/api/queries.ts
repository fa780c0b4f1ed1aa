import { queryOptions } from '@tanstack/react-query'
import { api, unwrap } from './client.ts'

/** Query definitions more than one page reads (same key, same cache). */
export const usageQuery = (period?: string) =>
  queryOptions({
    queryKey: ['usage', period ?? 'current'],
    queryFn: () => unwrap(api.GET('/usage', { params: { query: period ? { period } : {} } })),
  })

export const spendCapQuery = queryOptions({
  queryKey: ['spend-cap'],
  queryFn: () => unwrap(api.GET('/billing/spend-cap')),
})
