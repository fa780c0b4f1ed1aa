/**
 * Every error the SDK throws for an answer of the API (and for the few things it decides itself,
 * like a document that can no longer complete). Act on `code`, never on the text.
 */
export class SignetError extends Error {
  /** The HTTP status of the answer; 0 when the error did not come from an answer (waitForCompletion, verifyWebhook). */
  readonly status: number
  /** The API's sentence for a person (the error body's `error`). */
  readonly error: string
  /** The API's stable machine name for the error (`validation_failed`, `idempotency_key_reused`…), when it gave one. */
  readonly code: string | undefined
  /** The JSON pointer of the value at fault (`/signers/0/email`), when the API named one. */
  readonly field: string | undefined
  /** Seconds the API asked to wait before trying again (the Retry-After header), when it said. */
  readonly retryAfter: number | undefined
  /** The whole parsed error body (or its text when it was not JSON). */
  readonly body: unknown

  constructor(init: { status: number; error: string; code?: string | undefined; field?: string | undefined; retryAfter?: number | undefined; body?: unknown }) {
    super(init.code ? `${init.error} (${init.code})` : init.error)
    this.name = 'SignetError'
    this.status = init.status
    this.error = init.error
    this.code = init.code
    this.field = init.field
    this.retryAfter = init.retryAfter
    this.body = init.body
  }
}

/** verifyWebhook's refusal: `code` says why (missing_header, invalid_signature, timestamp_out_of_tolerance, invalid_payload). */
export class WebhookVerificationError extends SignetError {
  constructor(code: 'missing_header' | 'invalid_signature' | 'timestamp_out_of_tolerance' | 'invalid_payload', error: string) {
    super({ status: 0, error, code })
    this.name = 'WebhookVerificationError'
  }
}

/** Retry-After as seconds (the API sends seconds; an HTTP date is read too). */
export function retryAfterSeconds(response: Response, now = Date.now()): number | undefined {
  const header = response.headers.get('retry-after')
  if (header === null) return undefined
  if (/^\d+$/.test(header.trim())) return Number(header)
  const date = Date.parse(header)
  return Number.isNaN(date) ? undefined : Math.max(0, Math.ceil((date - now) / 1000))
}

/** The SignetError of a non-2xx answer whose body was already read (`body`: parsed JSON, or text). */
export function errorOfResponse(response: Response, body: unknown): SignetError {
  const json = typeof body === 'object' && body !== null ? (body as Record<string, unknown>) : {}
  const text =
    typeof json.error === 'string' ? json.error : typeof body === 'string' && body.length > 0 ? body : `HTTP ${response.status} ${response.statusText}`.trim()
  return new SignetError({
    status: response.status,
    error: text,
    code: typeof json.code === 'string' ? json.code : undefined,
    field: typeof json.field === 'string' ? json.field : undefined,
    retryAfter: retryAfterSeconds(response),
    body,
  })
}

/** Reads a non-2xx answer's body and makes its SignetError. */
export async function errorOf(response: Response): Promise<SignetError> {
  const text = await response.text()
  let body: unknown = text
  try {
    body = JSON.parse(text)
  } catch {
    // Not JSON (a proxy's HTML page, say): the text is the error.
  }
  return errorOfResponse(response, body)
}
