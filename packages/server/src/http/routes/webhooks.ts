import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { FastifyRequest } from 'fastify'
import { invalid } from '../../errors.ts'
import type { Services } from '../../services.ts'
import { rateLimit, RATE_LIMITS } from '../rate-limit.ts'
import { idempotencyConflict, IdempotencyKeyHeaders, idempotentRoute } from '../idempotency.ts'
import { listDeliveries, redeliverWebhook } from '../../webhooks/deliveries.ts'
import { deleteWebhookEndpoint, listWebhookEndpoints, registerWebhookEndpoint, rotateWebhookSecret, setWebhookEnabled } from '../../webhooks/endpoints.ts'
import { requireManager } from '../../accounts/roles.ts'
import { sendTestEvent } from '../../webhooks/test-event.ts'
import { actorOf, principalOf } from '../auth.ts'
import { ErrorBody, PaymentRequiredBody, withCommonErrors } from '../schemas.ts'
import {
  CreateWebhookBody,
  DeletedResult,
  DeliveryList,
  DeliveryParams,
  ListDeliveriesQuery,
  Redelivery,
  UpdateWebhookBody,
  WebhookCreated,
  WebhookEndpoint,
  WebhookIdParams,
  WebhookList,
  WebhookSecret,
  WebhookTestResult,
} from '../../webhooks/webhooks.schemas.ts'

const tags = ['Webhooks']

const upgrade = { ...PaymentRequiredBody, description: 'Webhooks need the Pro plan or higher (body has upgrade: true)' }
const noEndpoint = { ...ErrorBody, description: 'No such webhook endpoint in this org' }
const bodySent = { ...ErrorBody, description: 'A request body was sent' }

/** The org whose webhooks the caller changes: an API key, or a session of one of the workspace's owners and admins (a member gets 403). */
function managedOrgId(request: FastifyRequest): string {
  requireManager(actorOf(request), 'webhooks')
  return principalOf(request).orgId
}

/** A JSON schema cannot say "no body" (an absent body is not a JSON value), so the route checks it. */
function rejectAnyBody(body: unknown): void {
  const empty = body === undefined || body === null || (typeof body === 'object' && Object.keys(body).length === 0)
  if (!empty) throw invalid('This endpoint takes no request body.')
}

/**
 * Outbound webhooks (Pro and higher): endpoints with their signing secrets, and each
 * endpoint's delivery log with manual redelivery. Reads and delete work on every plan,
 * so an org that moved below Pro can still see and remove what it registered.
 */
export const webhookRoutes: FastifyPluginAsyncTypebox<{ services: Services }> = async (app, { services }) => {
  // Every management route shares one per-org budget.
  app.addHook('onRequest', rateLimit(services, RATE_LIMITS.webhooks))
  const { db } = services

  app.post(
    '/webhooks',
    {
      ...idempotentRoute(services),
      schema: {
        tags,
        operationId: 'createWebhook',
        summary: 'Register a webhook endpoint (its secret is shown only in this response)',
        headers: IdempotencyKeyHeaders,
        body: CreateWebhookBody,
        response: withCommonErrors({
          201: WebhookCreated,
          400: { ...ErrorBody, description: 'Invalid body, or a URL that is not http(s), has credentials, or reaches a non-public address' },
          402: upgrade,
          409: idempotencyConflict('The URL is already registered, or the org has the most endpoints allowed (20)'),
        }),
      },
    },
    async (request, reply) => {
      return reply.status(201).send(await registerWebhookEndpoint(services, { orgId: managedOrgId(request), url: request.body.url }))
    },
  )

  app.get(
    '/webhooks',
    { schema: { tags, operationId: 'listWebhooks', summary: 'List webhook endpoints, newest first', response: withCommonErrors({ 200: WebhookList }) } },
    async (request) => listWebhookEndpoints(services, principalOf(request).orgId),
  )

  app.patch(
    '/webhooks/:id',
    {
      schema: {
        tags,
        operationId: 'updateWebhook',
        summary: 'Enable or disable a webhook endpoint',
        params: WebhookIdParams,
        body: UpdateWebhookBody,
        response: withCommonErrors({ 200: WebhookEndpoint, 400: { ...ErrorBody, description: 'Invalid body' }, 402: upgrade, 404: noEndpoint }),
      },
    },
    async (request) => {
      return setWebhookEnabled(services, managedOrgId(request), request.params.id, request.body.enabled)
    },
  )

  app.delete(
    '/webhooks/:id',
    {
      schema: {
        tags,
        operationId: 'deleteWebhook',
        summary: 'Delete a webhook endpoint; its queued deliveries are given up',
        params: WebhookIdParams,
        response: withCommonErrors({ 200: DeletedResult, 400: bodySent, 404: noEndpoint }),
      },
    },
    async (request) => {
      rejectAnyBody(request.body)
      return deleteWebhookEndpoint(services, managedOrgId(request), request.params.id)
    },
  )

  app.post(
    '/webhooks/:id/rotate-secret',
    {
      schema: {
        tags,
        operationId: 'rotateWebhookSecret',
        summary: 'Replace the signing secret (at once; the new one is shown only in this response)',
        params: WebhookIdParams,
        response: withCommonErrors({ 200: WebhookSecret, 400: bodySent, 402: upgrade, 404: noEndpoint }),
      },
    },
    async (request) => {
      rejectAnyBody(request.body)
      return rotateWebhookSecret(services, managedOrgId(request), request.params.id)
    },
  )

  app.get(
    '/webhooks/:id/deliveries',
    {
      schema: {
        tags,
        operationId: 'listWebhookDeliveries',
        summary: "An endpoint's delivery log, newest first",
        params: WebhookIdParams,
        querystring: ListDeliveriesQuery,
        response: withCommonErrors({ 200: DeliveryList, 400: { ...ErrorBody, description: 'Invalid query parameter' }, 404: noEndpoint }),
      },
    },
    async (request) => {
      const { limit = 20, offset = 0 } = request.query
      return listDeliveries(db, principalOf(request).orgId, request.params.id, { limit, offset })
    },
  )

  app.post(
    '/webhooks/:id/deliveries/:deliveryId/redeliver',
    {
      schema: {
        tags,
        operationId: 'redeliverWebhook',
        summary: 'Send a delivery again (same body and webhook-id, up to two new attempts)',
        params: DeliveryParams,
        response: withCommonErrors({
          202: Redelivery,
          400: bodySent,
          402: upgrade,
          404: { ...ErrorBody, description: 'No such endpoint or delivery in this org' },
          409: { ...ErrorBody, description: 'The delivery is already queued, or the endpoint is disabled' },
        }),
      },
    },
    async (request, reply) => {
      rejectAnyBody(request.body)
      const { id, deliveryId } = request.params
      return reply.status(202).send(await redeliverWebhook(services, managedOrgId(request), id, deliveryId))
    },
  )

  app.post(
    '/webhooks/:id/test',
    {
      schema: {
        tags,
        operationId: 'testWebhook',
        summary: 'Send a signed test event to the endpoint now and report its answer',
        description:
          'One attempt through the same SSRF guard and transport as real deliveries (5-second limit, no retry, not logged). ' +
          'The body is {event: "test", occurred_at, webhook_endpoint_id, message}, signed like every delivery. ' +
          'delivered is true only when the endpoint answered 2xx.',
        params: WebhookIdParams,
        response: withCommonErrors({ 200: WebhookTestResult, 400: bodySent, 402: upgrade, 404: noEndpoint }),
      },
    },
    async (request) => {
      rejectAnyBody(request.body)
      return sendTestEvent(services, managedOrgId(request), request.params.id)
    },
  )
}
