import { randomUUID } from 'node:crypto'
import { performance } from 'node:perf_hooks'
import type { Config } from '../config.ts'
import type { Services } from '../services.ts'
import { requireOrg } from '../orgs/require-org.ts'
import { ATTEMPT_TIMEOUT_MS, describeStatus } from './dispatcher.ts'
import { findEndpoint } from './endpoints.ts'
import { assertWebhookPlan } from './plan.ts'
import { deliveryHeaders } from './signature.ts'
import { httpWebhookTransport, type WebhookTransport } from './transport.ts'
import type { WebhookTestResult } from './webhooks.schemas.ts'

/** The body of a test delivery: the shape of a real event, with `event: "test"` and no document. */
export function testEventPayload(endpointId: string, occurredAt: Date): string {
  return JSON.stringify({
    event: 'test',
    occurred_at: occurredAt.toISOString(),
    webhook_endpoint_id: endpointId,
    message: 'A test event from Signet: your endpoint received and can verify a signed delivery.',
  })
}

/**
 * Sends one signed `test` event to the endpoint now, through the same transport and SSRF
 * guard as real deliveries (one attempt, the same 5-second limit, no retry, not queued or
 * logged), and reports what came back. Delivered means a 2xx answer and nothing else.
 */
export async function sendTestEvent(
  services: Pick<Services, 'db' | 'clock'> & { config: Pick<Config, 'webhookAllowPrivate'> },
  orgId: string,
  endpointId: string,
  transport: WebhookTransport = httpWebhookTransport({ allowPrivate: services.config.webhookAllowPrivate }),
): Promise<WebhookTestResult> {
  assertWebhookPlan((await requireOrg(services.db, orgId)).plan)
  const endpoint = await findEndpoint(services.db, orgId, endpointId)
  const now = services.clock.now()
  const body = testEventPayload(endpoint.id, now)
  const headers = deliveryHeaders(endpoint.secret, { id: randomUUID(), timestamp: Math.floor(now.getTime() / 1000), body })
  const started = performance.now()
  const latency = () => Math.round(performance.now() - started)
  try {
    const response = await transport.post({ url: endpoint.url, headers, body, timeoutMs: ATTEMPT_TIMEOUT_MS, signal: new AbortController().signal })
    const error = describeStatus(response.statusCode)
    return { delivered: error === null, status_code: response.statusCode, latency_ms: latency(), error, response_body_excerpt: response.bodyExcerpt ?? null }
  } catch (error) {
    const message = (error instanceof Error ? error.message : String(error)).slice(0, 500)
    return { delivered: false, status_code: null, latency_ms: latency(), error: message, response_body_excerpt: null }
  }
}
