import fastifyCookie from '@fastify/cookie'
import fastifySwagger from '@fastify/swagger'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import Fastify, { type FastifyInstance } from 'fastify'
import { sql } from 'drizzle-orm'
import type { TSchema } from 'typebox'
import { AccessLogController } from './http/access-log.ts'
import { apiAuth } from './http/auth.ts'
import { connectionOptions } from './http/connection-limits.ts'
import { refuseEncodedBodies } from './http/content-encoding.ts'
import { clientErrorHandler, installErrorHandler, routingErrorHandler } from './http/error-handler.ts'
import { jsonBodyParser, withBodyLimit } from './http/json-body.ts'
import { accountRoutes } from './http/routes/accounts.ts'
import { apiKeyRoutes } from './http/routes/api-keys.ts'
import { bulkSendRoutes } from './http/routes/bulk-send.ts'
import { connectedAppRoutes } from './http/routes/connected-apps.ts'
import { billingPageRoutes, billingRoutes } from './http/routes/billing.ts'
import { dashboardRoutes } from './http/routes/dashboard.ts'
import { docsRoutes } from './http/routes/docs.ts'
import { documentRoutes } from './http/routes/documents.ts'
import { eventRoutes } from './http/routes/events.ts'
import { embedRoutes, embedScriptRoutes } from './http/routes/embed.ts'
import { identityCheckRoutes } from './http/routes/identity-check.ts'
import { mcpRoutes } from './http/routes/mcp.ts'
import { meRoutes } from './http/routes/me.ts'
import { oauthRoutes } from './http/routes/oauth.ts'
import { memberRoutes } from './http/routes/members.ts'
import { metricsRoutes, timeRequests } from './http/routes/metrics.ts'
import { operatorRoutes } from './http/routes/operator.ts'
import { sealRoutes } from './http/routes/seals.ts'
import { settingsRoutes } from './http/routes/settings.ts'
import { signingAssetRoutes } from './http/routes/signing-assets.ts'
import { signingRoutes } from './http/routes/signing.ts'
import { templateRoutes } from './http/routes/templates.ts'
import { twoFactorRoutes } from './http/routes/two-factor.ts'
import { verifyRoutes } from './http/routes/verify.ts'
import { webhookRoutes } from './http/routes/webhooks.ts'
import { buildResponseSerializers } from './http/response-serializer.ts'
import { NosniffServerResponse } from './http/security-headers.ts'
import { compileCoercing, compileStrict } from './lib/validation.ts'
import type { Services } from './services.ts'

export const API_VERSION = '1.0.0'

/** The body limit of the public account routes (sign-up, log-in, passwords): their longest body is ~1.1 KB of fields. */
const ACCOUNT_BODY_LIMIT = 16 * 1024
const ACCOUNT_BODY_LIMIT_WORDS = '16 KiB: sign-up, sign-in and password requests carry only a few short fields'

/** Builds the HTTP application over the given services; never listens (server.ts and tests do). */
/** What the process tells the app about its own life: draining before a shutdown (server.ts, SHUTDOWN_GRACE_MS). */
export interface AppLifecycle {
  readonly draining: boolean
}

export async function buildApp(services: Services, lifecycle: AppLifecycle = { draining: false }): Promise<FastifyInstance> {
  const { config, logger } = services
  const connections = connectionOptions(config.connections)
  const app = Fastify({
    loggerInstance: logger,
    logController: new AccessLogController(),
    bodyLimit: config.bodyLimit,
    // On close, drop idle keep-alive connections; busy ones finish (server.ts asks them to close).
    forceCloseConnections: 'idle',
    return503OnClosing: true,
    frameworkErrors: routingErrorHandler,
    clientErrorHandler,
    trustProxy: config.trustProxy,
    // Response bodies are serialized from their schemas with nullable values as type lists (http/response-serializer.ts).
    schemaController: { compilersFactory: { buildSerializer: buildResponseSerializers() } },
    ...connections,
    // Every response carries X-Content-Type-Options: nosniff (http/security-headers.ts).
    http: { ...connections.http, ServerResponse: NosniffServerResponse },
  }).withTypeProvider<TypeBoxTypeProvider>()
  app.server.maxConnections = config.connections.maxConnections
  // What authentication sets on a request (http/auth.ts), declared up front so every request object has the same shape.
  app.decorateRequest('principal', null)
  app.decorateRequest('userSession', null)
  app.decorateRequest('scopes', null)
  app.decorateRequest('oauthHolder', null)
  // Before any route, so that every one is timed, the 404s included (METRICS_TOKEN or METRICS_PORT turns metrics on).
  if (services.metrics.enabled) app.addHook('onResponse', timeRequests(services.metrics))

  // JSON bodies are validated without coercion; query strings and paths arrive as text.
  // Binary bodies (a PDF upload) are admitted by their route's content-type parser; there is nothing for Ajv to check.
  app.setValidatorCompiler(({ schema, httpPart }) => {
    if (httpPart === 'body' && (schema as { format?: string }).format === 'binary') return () => true
    return (httpPart === 'body' ? compileStrict : compileCoercing)(schema as TSchema)
  })

  // JSON only: an empty body (e.g. a bare POST …/void) is "no body", anything else must parse,
  // within a bounded nesting depth and number of values, checked as it arrives (http/json-body.ts).
  app.removeAllContentTypeParsers()
  app.addContentTypeParser('application/json', jsonBodyParser(app, config.bodyLimit))

  app.addHook('preParsing', refuseEncodedBodies)

  installErrorHandler(app, config.bodyLimit)

  await app.register(fastifySwagger, {
    // Shared schemas (the error bodies) are components named by their $id: #/components/schemas/Error.
    refResolver: { buildLocalReference: (json, _baseUri, _fragment, i) => (typeof json.$id === 'string' ? json.$id : `def-${i}`) },
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Signet API',
        version: API_VERSION,
        description: 'Send PDF templates for e-signature, follow them to completion and download the signed PDF.',
      },
      servers: [{ url: config.publicUrl }],
      components: {
        securitySchemes: {
          bearerAuth: {
            type: 'http',
            scheme: 'bearer',
            description: 'An API key: sgn_live_…. A read-only key (scopes ["read"]) may only GET; any other method is 403 insufficient_scope.',
          },
          sessionCookie: {
            type: 'apiKey',
            in: 'cookie',
            name: 'signet_session',
            description: "The dashboard's session (state-changing requests must send the dashboard's Origin)",
          },
        },
      },
      security: [{ bearerAuth: [] }, { sessionCookie: [] }],
    },
  })

  app.get('/healthz', { schema: { hide: true } }, async (_request, reply) => {
    // A balancer stops sending new requests here while the ones on their way are still served.
    if (lifecycle.draining) return reply.code(503).send({ status: 'draining' })
    await services.db.execute(sql`select 1`)
    return reply.send({ status: 'ok' })
  })

  // Prometheus on the main port only with METRICS_TOKEN; otherwise /metrics is an unknown route (server.ts starts METRICS_PORT's listener).
  if (config.metrics.token !== undefined) await app.register(metricsRoutes, { metrics: services.metrics, token: config.metrics.token })

  // Before every route: the /api/v1 hook reads the session cookie.
  await app.register(fastifyCookie)
  // Sign-up, log-in and password bodies are a few short fields, and anyone may send them: a small limit keeps their parse cheap.
  const publicAccountRoutes = config.bodyLimit > ACCOUNT_BODY_LIMIT ? withBodyLimit(accountRoutes, ACCOUNT_BODY_LIMIT, ACCOUNT_BODY_LIMIT_WORDS) : accountRoutes
  await app.register(publicAccountRoutes, { services, version: API_VERSION, prefix: '/api/v1' })
  await app.register(
    async (api) => {
      api.addHook('onRequest', apiAuth(services))
      await api.register(meRoutes, { services })
      await api.register(memberRoutes, { services })
      await api.register(twoFactorRoutes, { services })
      await api.register(documentRoutes, { services })
      await api.register(bulkSendRoutes, { services })
      await api.register(embedRoutes, { services })
      await api.register(templateRoutes, { services })
      await api.register(webhookRoutes, { services })
      await api.register(eventRoutes, { services })
      await api.register(billingRoutes, { services })
      await api.register(sealRoutes, { services })
      await api.register(apiKeyRoutes, { services })
      await api.register(connectedAppRoutes, { services })
      await api.register(settingsRoutes, { services })
      await api.register(identityCheckRoutes, { services })
      await api.register(operatorRoutes, { services })
    },
    { prefix: '/api/v1' },
  )
  await app.register(mcpRoutes, { services, version: API_VERSION })
  await app.register(oauthRoutes, { services })

  // Browsers ask for it on every page; the pages name their icon themselves.
  app.get('/favicon.ico', { schema: { hide: true } }, (_request, reply) => reply.status(204).send())

  await app.register(signingRoutes, { services })
  await app.register(signingAssetRoutes)
  await app.register(embedScriptRoutes)
  await app.register(billingPageRoutes)
  await app.register(verifyRoutes, { services })

  app.get('/api/v1/openapi.json', { schema: { hide: true } }, () => app.swagger())
  await app.register(docsRoutes)
  await app.register(dashboardRoutes)
  return app
}
