import type { Client } from 'openapi-fetch'
import { errorOfResponse } from './errors.ts'
import type { paths } from './generated/openapi.ts'
import type { RetryPolicy } from './retry.ts'

/** The typed openapi-fetch client (paths relative to /api/v1) every resource calls, with the retry policy its waits use. */
export interface Api {
  client: Client<paths>
  policy: RetryPolicy
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
