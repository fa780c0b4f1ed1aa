import type { UseQueryResult } from '@tanstack/react-query'
import type { ReactNode } from 'react'
import { ErrorMessage } from './ErrorMessage.tsx'
import { Loading } from './Spinner.tsx'

export interface QueryViewProps<T> {
  query: UseQueryResult<T>
  /** Rendered once data is there. */
  children: (data: T) => ReactNode
  loadingLabel?: string
  errorTitle?: string
}

/** Loading, then the query's error text with "Try again", or the data. */
export function QueryView<T>({ query, children, loadingLabel, errorTitle }: QueryViewProps<T>) {
  if (query.isPending) return <Loading label={loadingLabel} />
  if (query.isError) return <ErrorMessage title={errorTitle} error={query.error} onRetry={() => void query.refetch()} />
  return <>{children(query.data)}</>
}
