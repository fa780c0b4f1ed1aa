import { Type, type Static } from 'typebox'
import { WEBHOOK_DELIVERY_STATUSES } from '../db/schema.ts'
import { MAX_WEBHOOK_URL_LENGTH } from './ssrf-guard.ts'
import { NullableTimestamp, Offset, Timestamp } from '../lib/schemas.ts'

const Secret = Type.String({
  description:
    'whsec_ + base64 of 32 random bytes, shown only when created or rotated. X-Service-Signature is keyed with this whole string; ' +
    'webhook-signature (Standard Webhooks) with its base64-decoded part.',
})

export const WebhookIdParams = Type.Object({ id: Type.String({ description: 'a webhook endpoint id (UUID)' }) }, { additionalProperties: false })

export const DeliveryParams = Type.Object(
  { id: Type.String({ description: 'a webhook endpoint id (UUID)' }), deliveryId: Type.String({ description: 'a delivery id (UUID), the webhook-id header' }) },
  { additionalProperties: false },
)

export const CreateWebhookBody = Type.Object(
  {
    url: Type.String({
      minLength: 1,
      maxLength: MAX_WEBHOOK_URL_LENGTH,
      description: 'http(s) URL without credentials whose host resolves only to public addresses',
    }),
  },
  { additionalProperties: false },
)

export const UpdateWebhookBody = Type.Object(
  { enabled: Type.Boolean({ description: 'false stops deliveries to this endpoint (queued ones are given up) until set true again' }) },
  { additionalProperties: false },
)

const endpointFields = {
  id: Type.String(),
  url: Type.String(),
  enabled: Type.Boolean(),
  created_at: Timestamp,
}

export const WebhookEndpoint = Type.Object(endpointFields, { additionalProperties: false })

export const WebhookCreated = Type.Object({ ...endpointFields, secret: Secret }, { additionalProperties: false })

export const WebhookList = Type.Object(
  {
    webhooks: Type.Array(WebhookEndpoint),
    private_addresses_allowed: Type.Boolean({
      description: 'an extension: whether this instance accepts URLs on private, loopback and link-local addresses (WEBHOOK_ALLOW_PRIVATE); false refuses them',
    }),
  },
  { additionalProperties: false },
)
export type WebhookList = Static<typeof WebhookList>

export const WebhookSecret = Type.Object({ id: Type.String(), secret: Secret }, { additionalProperties: false })

export const DeletedResult = Type.Object({ success: Type.Literal(true) }, { additionalProperties: false })

export const ListDeliveriesQuery = Type.Object(
  {
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20 })),
    offset: Type.Optional(Offset),
  },
  { additionalProperties: false },
)

const NullableInteger = Type.Union([Type.Integer(), Type.Null()])
const NullableString = Type.Union([Type.String(), Type.Null()])

export const Delivery = Type.Object(
  {
    id: Type.String({ description: 'the delivery id, sent as webhook-id (the same on retries and redeliveries)' }),
    event: Type.String(),
    document_id: NullableString,
    status: Type.Enum(WEBHOOK_DELIVERY_STATUSES, { description: 'pending (queued or being sent), delivered (a 2xx answer) or failed' }),
    attempts: Type.Integer({ description: 'HTTP attempts so far, redeliveries included' }),
    response_code: Type.Union([Type.Integer(), Type.Null()], { description: "the last attempt's HTTP status; null when none arrived" }),
    latency_ms: Type.Union([Type.Integer(), Type.Null()], { description: "the last attempt's duration" }),
    error: Type.Union([Type.String(), Type.Null()], { description: 'why the last attempt failed' }),
    created_at: Timestamp,
    delivered_at: NullableTimestamp,
    attempt_log: Type.Array(
      Type.Object({ at: Timestamp, status_code: NullableInteger, latency_ms: Type.Integer(), error: NullableString }, { additionalProperties: false }),
    ),
  },
  { additionalProperties: false },
)

export const DeliveryList = Type.Object(
  {
    deliveries: Type.Array(Delivery),
    total: Type.Integer(),
    limit: Type.Integer(),
    offset: Type.Integer(),
    has_more: Type.Boolean(),
  },
  { additionalProperties: false },
)

export const Redelivery = Type.Object({ id: Type.String(), status: Type.Literal('pending') }, { additionalProperties: false })

export type DeliveryView = Static<typeof Delivery>
export type DeliveryList = Static<typeof DeliveryList>
export type WebhookEndpointView = Static<typeof WebhookEndpoint>

export const WebhookTestResult = Type.Object(
  {
    delivered: Type.Boolean({ description: 'true only when the endpoint answered with a 2xx' }),
    status_code: Type.Union([Type.Integer(), Type.Null()], { description: "the endpoint's HTTP status; null when no answer came" }),
    latency_ms: Type.Integer(),
    error: Type.Union([Type.String(), Type.Null()], {
      description: 'why it was not delivered: a refused address, a network error, a timeout, or the HTTP status',
    }),
    response_body_excerpt: Type.Union([Type.String(), Type.Null()], { description: 'the first 1 KiB of the response body, as text' }),
  },
  { additionalProperties: false },
)

export type WebhookTestResult = Static<typeof WebhookTestResult>
