import { STATUS_CODES } from 'node:http'
import type { Socket } from 'node:net'
import type { FastifyError, FastifyInstance, FastifyReply } from 'fastify'
import { AppError } from '../errors.ts'
import { describeValidationErrors } from '../lib/validation.ts'

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The body type a route takes, named in its 415 (default application/json). */
    accepts?: string
    /** The setting that sets the route's body limit, named in its 413 (default BODY_LIMIT). */
    bodyLimitSetting?: string
  }
}

/** Fastify's own request errors, turned into clear `{error}` bodies. */
const FASTIFY_ERRORS: Record<string, (error: FastifyError, route: { bodyLimit: number; accepts: string; bodyLimitSetting: string }) => [number, string]> = {
  FST_ERR_CTP_INVALID_MEDIA_TYPE: (_e, route) => [415, `Unsupported Content-Type: send the body as ${route.accepts}.`],
  FST_ERR_CTP_BODY_TOO_LARGE: (_e, route) => [413, `The request body is larger than ${route.bodyLimit} bytes (${route.bodyLimitSetting}).`],
  FST_ERR_CTP_INVALID_JSON_BODY: () => [400, 'The request body is not valid JSON.'],
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: () => [400, 'The Content-Length header does not match the body.'],
}

/** Fastify's errors while routing (before any route applies), by code. */
const ROUTING_ERRORS: Record<string, [number, string]> = {
  FST_ERR_BAD_URL: [400, 'The request path is not a valid URL (malformed %-escape).'],
  FST_ERR_MAX_PARAM_LENGTH: [414, 'A path parameter is too long.'],
}

/**
 * For Fastify's `frameworkErrors` option. Routing errors never reach setErrorHandler, and
 * Fastify's own replies to them add code, message and statusCode to the `{error}` body.
 */
export function routingErrorHandler(error: FastifyError, _request: unknown, reply: FastifyReply): void {
  const [status, message] = ROUTING_ERRORS[error.code] ?? [400, 'The request could not be routed.']
  void reply.status(status).send({ error: message })
}

/** Node's errors on a connection before any request could be parsed, by code (anything else: 400). */
const CLIENT_ERRORS: Record<string, [number, string]> = {
  ERR_HTTP_REQUEST_TIMEOUT: [408, 'The request did not arrive within REQUEST_TIMEOUT_MS; the connection is closed.'],
  HPE_HEADER_OVERFLOW: [431, 'The request headers are too large.'],
}

/**
 * For Fastify's `clientErrorHandler` option: a malformed or timed-out request (no route, no
 * reply object) still gets an `{error}` body, written to the socket, which is then closed.
 */
export function clientErrorHandler(error: Error & { code?: string }, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return
  const [status, message] = CLIENT_ERRORS[error.code ?? ''] ?? [400, 'The request is not valid HTTP.']
  const body = JSON.stringify({ error: message })
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nX-Content-Type-Options: nosniff\r\nConnection: close\r\n\r\n${body}`,
    )
  }
  socket.destroy()
}

/** The single place where any thrown error becomes an HTTP response. */
export function installErrorHandler(app: FastifyInstance, bodyLimit: number): void {
  app.setErrorHandler((error: FastifyError, request, reply) => {
    if (error instanceof AppError) {
      return reply.status(error.status).headers(error.headers).send({ error: error.message, ...error.extra })
    }
    if (error.validation) {
      const noun = error.validationContext === 'querystring' ? 'query parameter' : 'field'
      return reply.status(400).send({ error: describeValidationErrors(error.validation, '', noun) })
    }
    const known = error.code ? FASTIFY_ERRORS[error.code] : undefined
    if (known) {
      // Routes that take a file (POST /api/v1/seals) say so in their config and have their own limit.
      const { config } = request.routeOptions
      const route = { bodyLimit: request.routeOptions.bodyLimit ?? bodyLimit, accepts: config.accepts ?? 'application/json', bodyLimitSetting: config.bodyLimitSetting ?? 'BODY_LIMIT' }
      const [status, message] = known(error, route)
      return reply.status(status).send({ error: message })
    }
    if (error instanceof SyntaxError || (error.statusCode !== undefined && error.statusCode >= 400 && error.statusCode < 500)) {
      return reply.status(error.statusCode ?? 400).send({ error: error.message })
    }
    request.log.error({ err: error }, 'unhandled error')
    return reply.status(500).send({ error: 'Internal server error.' })
  })

  app.setNotFoundHandler((request, reply) => reply.status(404).send({ error: `No route for ${request.method} ${request.url.split('?')[0]}.` }))
}
