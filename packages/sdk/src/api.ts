import type { Client } from 'openapi-fetch'
import { errorOfResponse } from './errors.ts'
import type { paths } from './generated/openapi.ts'
import type { RetryPolicy } from './retry.ts'

/** The typed openapi-fetch client (paths relative to /api/v1) every resource calls, with the retry policy its waits use. */
export interface Api {
  client: Client<paths>
  policy: RetryPolicy
  /**
   * A read by hand: the JSON of GET `path` (relative to /api/v1, its ids already in it) with
   * `query`'s defined values, or the SignetError of a non-2xx answer. Reads are the calls an
   * integration makes most (a status poll, a page loop), and openapi-fetch's per-call work (new
   * Headers merged twice, the path and query serialisers) was most of what the SDK added to one
   * (docs/benchmarks.md); a read has no body to serialise, so it needs none of it.
   */
  read: <T>(path: string, query?: object, signal?: AbortSignal) => Promise<T>
}

/** An id as one path segment. */
export const segment = (id: string) => encodeURIComponent(id)

/** `?a=1&b=x` of the query's defined values ('' when none), as openapi-fetch writes them. */
export function queryString(query: object | undefined): string {
  if (query === undefined) return ''
  let text = ''
  for (const [name, value] of Object.entries(query)) {
    if (value === undefined || value === null) continue
    text += `${text === '' ? '?' : '&'}${encodeURIComponent(name)}=${encodeURIComponent(String(value))}`
  }
  return text
}

/** The data of a 2xx answer; any other answer is thrown as a SignetError. */
export async function dataOf<D>(call: Promise<{ data?: D; error?: unknown; response: Response }>): Promise<D> {
  const { data, error, response } = await call
  if (!response.ok) throw errorOfResponse(response, error)
  return data as D
}

/** A create's Idempotency-Key: the caller's, or a new one, so the SDK may repeat it after a dropped connection. */
export const idempotencyHeader = (key: string | undefined) => ({ 'idempotency-key': key ?? crypto.randomUUID() })

export interface CreateOptions {
  /** Reuse one key for every attempt of one logical create (say, a row of your database): a repeat returns the first answer. */
  idempotencyKey?: string
}
