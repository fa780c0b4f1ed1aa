import { STATUS_CODES } from 'node:http'
import type { Socket } from 'node:net'
import type { FastifyError, FastifyInstance, FastifyReply } from 'fastify'
import { ErrorBodySchema, PaymentRequiredBodySchema } from '../error-bodies.ts'
import { AppError, STATUS_BY_CODE, validationFailed, type ErrorCode } from '../errors.ts'
import { validationFailure } from '../lib/validation.ts'

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The body type a route takes, named in its 415 (default application/json). */
    accepts?: string
    /** The setting that sets the route's body limit, named in its 413 (default BODY_LIMIT). */
    bodyLimitSetting?: string
  }
}

/** Fastify's own request errors, turned into clear `{error, code}` bodies. */
const FASTIFY_ERRORS: Record<string, (route: { bodyLimit: number; accepts: string; bodyLimitSetting: string }) => AppError> = {
  FST_ERR_CTP_INVALID_MEDIA_TYPE: (route) => new AppError('unsupported_media_type', `Unsupported Content-Type: send the body as ${route.accepts}.`),
  FST_ERR_CTP_BODY_TOO_LARGE: (route) =>
    new AppError('payload_too_large', `The request body is larger than ${route.bodyLimit} bytes (${route.bodyLimitSetting}).`),
  FST_ERR_CTP_INVALID_JSON_BODY: () => new AppError('invalid_json', 'The request body is not valid JSON.'),
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: () => new AppError('invalid_json', 'The Content-Length header does not match the body.'),
}

/** Fastify's errors while routing (before any route applies), by code. */
const ROUTING_ERRORS: Record<string, AppError> = {
  FST_ERR_BAD_URL: new AppError('invalid_request', 'The request path is not a valid URL (malformed %-escape).'),
  FST_ERR_MAX_PARAM_LENGTH: new AppError('uri_too_long', 'A path parameter is too long.'),
}
const UNROUTABLE = new AppError('invalid_request', 'The request could not be routed.')

/**
 * For Fastify's `frameworkErrors` option. Routing errors never reach setErrorHandler, and
 * Fastify's own replies to them add code, message and statusCode to the `{error}` body.
 */
export function routingErrorHandler(error: FastifyError, _request: unknown, reply: FastifyReply): void {
  const refusal = ROUTING_ERRORS[error.code] ?? UNROUTABLE
  void reply.status(refusal.status).send(refusal.body)
}

/** Node's errors on a connection before any request could be parsed, by code (anything else: 400). */
const CLIENT_ERRORS: Record<string, AppError> = {
  ERR_HTTP_REQUEST_TIMEOUT: new AppError('request_timeout', 'The request did not arrive within REQUEST_TIMEOUT_MS; the connection is closed.'),
  HPE_HEADER_OVERFLOW: new AppError('headers_too_large', 'The request headers are too large.'),
}
const NOT_HTTP = new AppError('invalid_request', 'The request is not valid HTTP.')

/**
 * For Fastify's `clientErrorHandler` option: a malformed or timed-out request (no route, no
 * reply object) still gets an `{error, code}` body, written to the socket, which is then closed.
 */
export function clientErrorHandler(error: Error & { code?: string }, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return
  const refusal = CLIENT_ERRORS[error.code ?? ''] ?? NOT_HTTP
  const { status } = refusal
  const body = JSON.stringify(refusal.body)
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nX-Content-Type-Options: nosniff\r\nConnection: close\r\n\r\n${body}`,
    )
  }
  socket.destroy()
}

/** The single place where any thrown error becomes an HTTP response. */
export function installErrorHandler(app: FastifyInstance, bodyLimit: number): void {
  // The error bodies every route's responses refer to (error-bodies.ts ErrorBody, PaymentRequiredBody).
  app.addSchema(ErrorBodySchema)
  app.addSchema(PaymentRequiredBodySchema)
  app.setErrorHandler((error: FastifyError, request, reply) => {
    if (error instanceof AppError) {
      return reply.status(error.status).headers(error.headers).send(error.body)
    }
    if (error.validation) {
      const noun = error.validationContext === 'querystring' ? 'query parameter' : 'field'
      const { message, field } = validationFailure(error.validation, '', noun)
      return reply.status(400).send(validationFailed(message, field).body)
    }
    const known = error.code ? FASTIFY_ERRORS[error.code] : undefined
    if (known) {
      // Routes that take a file (POST /api/v1/seals) say so in their config and have their own limit.
      const { config } = request.routeOptions
      const route = {
        bodyLimit: request.routeOptions.bodyLimit ?? bodyLimit,
        accepts: config.accepts ?? 'application/json',
        bodyLimitSetting: config.bodyLimitSetting ?? 'BODY_LIMIT',
      }
      const refusal = known(route)
      return reply.status(refusal.status).send(refusal.body)
    }
    if (error instanceof SyntaxError) return reply.status(400).send(new AppError('invalid_json', error.message).body)
    if (error.statusCode !== undefined && error.statusCode >= 400 && error.statusCode < 500) {
      return reply.status(error.statusCode).send({ error: error.message, code: codeForStatus(error.statusCode) })
    }
    request.log.error({ err: error }, 'unhandled error')
    return reply.status(500).send(INTERNAL_ERROR.body)
  })

  app.setNotFoundHandler((request, reply) => reply.status(404).send(noRouteFor(request.method, request.url)))
}

const INTERNAL_ERROR = new AppError('internal_error', 'Internal server error.')

/** The 404 of a path no route serves (the dashboard's fallback gives it too). */
export const noRouteFor = (method: string, url: string) => new AppError('not_found', `No route for ${method} ${url.split('?')[0]}.`).body

/** Another 4xx a plugin raised with a status only: the code of that status, or the generic one. */
function codeForStatus(status: number): ErrorCode {
  const codes = Object.entries(STATUS_BY_CODE) as [ErrorCode, number][]
  return codes.find(([, codeStatus]) => codeStatus === status)?.[0] ?? 'invalid_request'
}
