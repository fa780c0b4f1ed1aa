import { createHmac, randomBytes } from 'node:crypto'

/*
 * One secret, two signatures. A secret is `whsec_` + the standard base64 of 32 random
 * bytes, the Standard Webhooks format, so its libraries verify `webhook-signature` as is
 * (their key is the base64-decoded part). The spec's `X-Service-Signature` is keyed with
 * the secret exactly as shown (the whole `whsec_…` string, as UTF-8), which is what a
 * receiver written against the original service does: `hmac(secret, rawBody)`.
 */

export const WEBHOOK_SECRET_PREFIX = 'whsec_'
const SECRET_BYTES = 32

export const newWebhookSecret = (): string => WEBHOOK_SECRET_PREFIX + randomBytes(SECRET_BYTES).toString('base64')

/** `sha256=` + lowercase hex HMAC-SHA256 of the raw body, keyed with the whole secret string. */
export const serviceSignature = (secret: string, body: string): string => `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`

/** Standard Webhooks `v1,` + base64 HMAC-SHA256 of `<id>.<timestamp>.<body>`, keyed with the secret's decoded bytes. */
export function standardSignature(secret: string, id: string, timestamp: number, body: string): string {
  const key = Buffer.from(secret.slice(WEBHOOK_SECRET_PREFIX.length), 'base64')
  return `v1,${createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64')}`
}

/** The headers one attempt carries; `timestamp` is the attempt's time in unix seconds. */
export function deliveryHeaders(secret: string, delivery: { id: string; timestamp: number; body: string }): Record<string, string> {
  return {
    'content-type': 'application/json',
    'user-agent': 'Signet-Webhooks/1.0',
    'x-service-signature': serviceSignature(secret, delivery.body),
    'webhook-id': delivery.id,
    'webhook-timestamp': String(delivery.timestamp),
    'webhook-signature': standardSignature(secret, delivery.id, delivery.timestamp, delivery.body),
  }
}
