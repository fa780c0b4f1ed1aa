import { WebhookVerificationError } from './errors.ts'
import type { WebhookEvent } from './types.ts'

/*
 * A delivery carries two signatures made with one secret (`whsec_` + base64 of 32 bytes):
 * X-Service-Signature, `sha256=` + hex HMAC-SHA256 of the raw body keyed with the whole secret
 * string; and the Standard Webhooks headers, `v1,` + base64 HMAC-SHA256 of `<id>.<timestamp>.<body>`
 * keyed with the secret's decoded bytes. Only WebCrypto, so this runs in Node 20+ and browsers.
 */

const PREFIX = 'whsec_'
const encoder = new TextEncoder()

/** Request headers as Node (IncomingHttpHeaders), Express or fetch (Headers) give them. */
export type WebhookHeaders = Headers | Record<string, string | string[] | undefined>

export interface VerifyOptions {
  /** How old (or how far ahead) webhook-timestamp may be: 300 seconds by default. */
  toleranceSeconds?: number
  /** The current time (tests). */
  now?: Date
}

function headerOf(headers: WebhookHeaders, name: string): string | undefined {
  if (headers instanceof Headers) return headers.get(name) ?? undefined
  const value = headers[name] ?? Object.entries(headers).find(([key]) => key.toLowerCase() === name)?.[1]
  return Array.isArray(value) ? value.join(', ') : value
}

const bytesOf = (body: string | Uint8Array): Uint8Array => (typeof body === 'string' ? encoder.encode(body) : body)

function concat(...parts: Uint8Array[]): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0))
  let at = 0
  for (const part of parts) {
    out.set(part, at)
    at += part.length
  }
  return out
}

async function hmacSha256(key: Uint8Array, data: Uint8Array): Promise<Uint8Array> {
  const cryptoKey = await crypto.subtle.importKey('raw', concat(key), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign'])
  return new Uint8Array(await crypto.subtle.sign('HMAC', cryptoKey, concat(data)))
}

/** Compares in time that depends on the length only, so a forger learns nothing from how fast a guess fails. */
function constantTimeEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false
  let difference = 0
  for (let i = 0; i < a.length; i++) difference |= (a[i] as number) ^ (b[i] as number)
  return difference === 0
}

const toHex = (bytes: Uint8Array) => Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('')
const toBase64 = (bytes: Uint8Array) => btoa(Array.from(bytes, (b) => String.fromCharCode(b)).join(''))

function fromBase64(text: string): Uint8Array | null {
  try {
    return Uint8Array.from(atob(text), (c) => c.charCodeAt(0))
  } catch {
    return null
  }
}

function standardKey(secret: string): Uint8Array {
  const key = secret.startsWith(PREFIX) ? fromBase64(secret.slice(PREFIX.length)) : null
  if (!key) throw new TypeError('A Signet webhook secret is "whsec_" followed by base64: pass the secret shown when the endpoint was created.')
  return key
}

async function signatures(secret: string, id: string, timestamp: string, body: Uint8Array) {
  const [service, standard] = await Promise.all([
    hmacSha256(encoder.encode(secret), body),
    hmacSha256(standardKey(secret), concat(encoder.encode(`${id}.${timestamp}.`), body)),
  ])
  return { service, standard }
}

/**
 * The headers Signet sends with a delivery of `body` (what a registered endpoint receives): for
 * tests of a webhook handler, and for tools that relay events to one.
 */
export async function signWebhook(secret: string, delivery: { id: string; timestamp: number; body: string }): Promise<Record<string, string>> {
  const timestamp = String(delivery.timestamp)
  const { service, standard } = await signatures(secret, delivery.id, timestamp, encoder.encode(delivery.body))
  return {
    'content-type': 'application/json',
    'user-agent': 'Signet-Webhooks/1.0',
    'x-service-signature': `sha256=${toHex(service)}`,
    'webhook-id': delivery.id,
    'webhook-timestamp': timestamp,
    'webhook-signature': `v1,${toBase64(standard)}`,
  }
}

/**
 * Checks a delivery exactly as received (the raw body, before any JSON parsing) and returns its
 * event. Both signatures must match the secret, and webhook-timestamp must be within the
 * tolerance, so a delivery captured and replayed later is refused. Throws WebhookVerificationError.
 */
export async function verifyWebhook(rawBody: string | Uint8Array, headers: WebhookHeaders, secret: string, options: VerifyOptions = {}): Promise<WebhookEvent> {
  const { toleranceSeconds = 300, now = new Date() } = options
  const serviceHeader = headerOf(headers, 'x-service-signature')
  const id = headerOf(headers, 'webhook-id')
  const timestamp = headerOf(headers, 'webhook-timestamp')
  const standardHeader = headerOf(headers, 'webhook-signature')
  if (!serviceHeader || !id || !timestamp || !standardHeader) {
    throw new WebhookVerificationError('missing_header', 'The request lacks X-Service-Signature, webhook-id, webhook-timestamp or webhook-signature.')
  }
  if (!/^\d+$/.test(timestamp) || Math.abs(now.getTime() / 1000 - Number(timestamp)) > toleranceSeconds) {
    throw new WebhookVerificationError(
      'timestamp_out_of_tolerance',
      `webhook-timestamp is more than ${toleranceSeconds} seconds away from now: an old delivery replayed?`,
    )
  }
  const body = bytesOf(rawBody)
  const expected = await signatures(secret, id, timestamp, body)
  const serviceOk = constantTimeEqual(encoder.encode(serviceHeader), encoder.encode(`sha256=${toHex(expected.service)}`))
  const standardOk = standardHeader
    .split(' ')
    .filter((part) => part.startsWith('v1,'))
    .some((part) => constantTimeEqual(encoder.encode(part), encoder.encode(`v1,${toBase64(expected.standard)}`)))
  if (!serviceOk || !standardOk) throw new WebhookVerificationError('invalid_signature', 'The signature does not match this secret and body.')
  try {
    return JSON.parse(new TextDecoder().decode(body)) as WebhookEvent
  } catch {
    throw new WebhookVerificationError('invalid_payload', 'The signed body is not JSON.')
  }
}
