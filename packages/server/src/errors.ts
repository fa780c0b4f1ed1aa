/**
 * The one error type of the service. Domain code throws it with a code; the HTTP
 * error handler turns the code into a status through STATUS_BY_CODE, and the
 * operator CLI prints its message.
 *
 * Every error body carries the code beside the text (`{error, code, field?}`), so a program
 * acts on the code and never on the words: the codes are a stable part of the API (listed as
 * an enum in the OpenAPI document), the texts may be reworded.
 */
export const STATUS_BY_CODE = {
  /** A request the schema accepts but the service refuses (an unknown template, an expiry in the past…). */
  invalid_request: 400,
  /** A value the route's schema refuses: a missing or unknown field, a wrong type, format or length. */
  validation_failed: 400,
  /** The body is not JSON (or its Content-Length does not match it). */
  invalid_json: 400,
  unauthenticated: 401,
  missing_api_key: 401,
  invalid_api_key: 401,
  /** An OAuth access token the MCP endpoint refuses: unknown, expired, revoked or issued for another audience. */
  invalid_token: 401,
  payment_required: 402,
  /** A paid plan reached the monthly spend cap its owner set: raising the cap, not upgrading, lets it send. */
  spend_cap_reached: 402,
  forbidden: 403,
  /** The credential lacks the scope the request needs: a read-only API key asked to change something. */
  insufficient_scope: 403,
  not_found: 404,
  method_not_allowed: 405,
  request_timeout: 408,
  conflict: 409,
  /** Extension: an Idempotency-Key already used with another request body on this route. */
  idempotency_key_reused: 409,
  /** Extension: a repeat of an Idempotency-Key whose first request has not finished; retry after Retry-After. */
  idempotency_key_in_progress: 409,
  gone: 410,
  precondition_failed: 412,
  payload_too_large: 413,
  uri_too_long: 414,
  unsupported_media_type: 415,
  rate_limited: 429,
  /** Extension: the workspace already has as many live event streams (GET /api/v1/events) open as it may; close one first. */
  too_many_event_streams: 429,
  headers_too_large: 431,
  internal_error: 500,
  service_unavailable: 503,
} as const satisfies Record<string, number>

export type ErrorCode = keyof typeof STATUS_BY_CODE

/** Every code, in the order of the table: the enum of the error body's `code`. */
export const ERROR_CODES = Object.keys(STATUS_BY_CODE) as ErrorCode[]

/**
 * A message as a catalog key and its values (a value may be a date, or a message itself), for a
 * channel that writes errors in its reader's language: the signer's pages (signing/i18n/error-texts.ts).
 */
export interface TranslatableText {
  key: string
  values?: Record<string, string | number | Date | TranslatableText>
}

export class AppError extends Error {
  /** The message in other languages (set where a signer can see it); `message` stays the English every other channel writes. */
  translatable?: TranslatableText

  constructor(
    readonly code: ErrorCode,
    message: string,
    /** Extra body fields, e.g. upgrade_url on a 402. */
    readonly extra: Record<string, unknown> = {},
    /** Response headers, e.g. Retry-After on a 503. */
    readonly headers: Record<string, string> = {},
    /** The JSON pointer (RFC 6901) of the one value the error is about, e.g. `/signers/1/role`. */
    readonly field?: string,
  ) {
    super(message)
    this.name = 'AppError'
  }

  get status(): number {
    return STATUS_BY_CODE[this.code]
  }

  /** The error body every channel writes: REST, session routes and MCP tool results. */
  get body(): ErrorPayload {
    return { error: this.message, code: this.code, ...(this.field === undefined ? {} : { field: this.field }), ...this.extra }
  }
}

export interface ErrorPayload {
  error: string
  code: ErrorCode
  field?: string
  [extra: string]: unknown
}

export const invalid = (message: string, about: { field?: string } = {}): AppError => new AppError('invalid_request', message, {}, {}, about.field)
/** A value its schema refuses; `field` is the JSON pointer of the value at fault. */
export const validationFailed = (message: string, field: string | undefined): AppError => new AppError('validation_failed', message, {}, {}, field)
export const notFound = (message: string): AppError => new AppError('not_found', message)
