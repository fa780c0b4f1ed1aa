import createClient from 'openapi-fetch'
import type { components, paths } from '@signet/sdk/openapi'

/** The typed client of the public /api/v1 routes; the session cookie authenticates it. */
export const api = createClient<paths>({ baseUrl: '/api/v1', credentials: 'same-origin' })

/** A refused request: `message` is the server's {error} text; `code` and `field` say what to do with it. */
export class ApiError extends Error {
  readonly status: number
  readonly body: unknown
  constructor(status: number, message: string, body: unknown) {
    super(message)
    this.name = 'ApiError'
    this.status = status
    this.body = body
  }

  /** The error's stable name (the server's `code`), when the server sent one. */
  get code(): ErrorCode | undefined {
    return bodyString(this.body, 'code') as ErrorCode | undefined
  }

  /** The JSON pointer of the value at fault (the server's `field`), e.g. /signers/0/email. */
  get field(): string | undefined {
    return bodyString(this.body, 'field')
  }
}

/** Every `code` an error body may carry. */
export type ErrorCode = components['schemas']['Error']['code']

function bodyString(body: unknown, key: string): string | undefined {
  const value = body && typeof body === 'object' ? (body as Record<string, unknown>)[key] : undefined
  return typeof value === 'string' ? value : undefined
}

const UNREACHABLE = 'The server could not be reached. Check your connection and try again.'

interface FetchResult<T> {
  data?: T
  error?: unknown
  response: Response
}

/**
 * Awaits an openapi-fetch call and returns its data, or throws an ApiError carrying the
 * server's {error} text and status: `useQuery({ queryFn: () => unwrap(api.GET('/usage')) })`.
 */
export async function unwrap<T>(call: Promise<FetchResult<T>>): Promise<T> {
  let result: FetchResult<T>
  try {
    result = await call
  } catch {
    throw new ApiError(0, UNREACHABLE, null)
  }
  const { data, error, response } = result
  if (!response.ok) throw new ApiError(response.status, errorText(error, response), error)
  return data as T
}

function errorText(body: unknown, response: Response): string {
  if (body && typeof body === 'object' && 'error' in body && typeof body.error === 'string') return body.error
  if (typeof body === 'string' && body.trim() !== '' && body.length < 300) return body
  return `The server answered ${response.status} ${response.statusText}`.trim() + '.'
}

/**
 * For the routes whose body is raw bytes (a PDF upload, file downloads), which openapi-fetch would
 * JSON-encode or JSON-parse: a plain fetch under /api/v1 with the same credentials and errors as `unwrap`.
 */
export async function fetchRaw(path: string, init: RequestInit = {}): Promise<Response> {
  let response: Response
  try {
    response = await fetch('/api/v1' + path, { ...init, credentials: 'same-origin' })
  } catch {
    throw new ApiError(0, UNREACHABLE, null)
  }
  if (!response.ok) {
    const body: unknown = await response.json().catch(() => null)
    throw new ApiError(response.status, errorText(body, response), body)
  }
  return response
}

/** The text to show for any thrown value. */
export function errorMessage(error: unknown): string {
  if (error instanceof Error) return error.message
  return 'Something went wrong.'
}

export function isApiError(error: unknown, status?: number): error is ApiError {
  return error instanceof ApiError && (status === undefined || error.status === status)
}
