/**
 * The one error type of the service. Domain code throws it with a code; the HTTP
 * error handler turns the code into a status through STATUS_BY_CODE, and the
 * operator CLI prints its message.
 */
export type ErrorCode =
  | 'invalid_request'
  | 'missing_api_key'
  | 'invalid_api_key'
  | 'unauthenticated'
  | 'payment_required'
  | 'forbidden'
  | 'not_found'
  | 'conflict'
  | 'gone'
  | 'precondition_failed'
  | 'payload_too_large'
  | 'unsupported_media_type'
  | 'rate_limited'
  | 'service_unavailable'

export const STATUS_BY_CODE: Record<ErrorCode, number> = {
  invalid_request: 400,
  missing_api_key: 401,
  invalid_api_key: 401,
  unauthenticated: 401,
  payment_required: 402,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  gone: 410,
  precondition_failed: 412,
  payload_too_large: 413,
  unsupported_media_type: 415,
  rate_limited: 429,
  service_unavailable: 503,
}

export class AppError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    /** Extra body fields, e.g. upgrade_url on a 402. */
    readonly extra: Record<string, unknown> = {},
    /** Response headers, e.g. Retry-After on a 503. */
    readonly headers: Record<string, string> = {},
  ) {
    super(message)
    this.name = 'AppError'
  }

  get status(): number {
    return STATUS_BY_CODE[this.code]
  }
}

export const invalid = (message: string): AppError => new AppError('invalid_request', message)
export const notFound = (message: string): AppError => new AppError('not_found', message)
