import type { IncomingMessage } from 'node:http'
import { errorCodes, type FastifyInstance, type FastifyPluginAsync, type FastifyRequest } from 'fastify'
import { AppError, invalid } from '../errors.ts'
import { JsonScanner, MAX_JSON_DEPTH, MAX_JSON_VALUES, type ScanProblem } from './json-scan.ts'

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * A route whose JSON body may be larger than BODY_LIMIT (up to the route's own bodyLimit)
     * only as one big string with a little JSON around it, e.g. a base64 file. Any other large
     * body is refused with `refusal` (413) as soon as the scan shows it, and one that is one big
     * string unless `allows` says yes to it with that string emptied, before it is parsed whole.
     * Such a body must declare its size (Content-Length), so that the route can count it first.
     */
    largeJsonBody?: { allows(skeleton: unknown): boolean; refusal: string }
  }
}

/**
 * In a large body, at most one backslash escape per this many bytes: base64 needs none, and an
 * encoder that writes `\/` and wraps lines with `\n` needs about one per 25.
 */
const LARGE_BODY_ESCAPE_SHARE = 16

type Done = (error: Error | null, body?: unknown) => void
type ParseText = (request: FastifyRequest, text: string) => Promise<unknown>
type LargeJsonBody = NonNullable<FastifyRequest['routeOptions']['config']['largeJsonBody']>

/**
 * The JSON content-type parser of every route. It reads the body itself, scanning each chunk
 * as it arrives (http/json-scan.ts): nested deeper than MAX_JSON_DEPTH is 400 and more than
 * MAX_JSON_VALUES values 413, and nothing more of such a body is kept. Bodies that pass are parsed by
 * Fastify's own parser (secure-json-parse: `__proto__` and `constructor` keys refused); an
 * empty body is no body. Route body limits apply as Fastify applies them (413).
 */
export function jsonBodyParser(app: FastifyInstance, bodyLimit: number) {
  const parse = app.getDefaultJsonParser('error', 'error')
  const parseText: ParseText = (request, text) =>
    new Promise<unknown>((resolve, reject) => void parse(request, text, (error, body) => (error ? reject(error) : resolve(body))))

  return (request: FastifyRequest, payload: IncomingMessage, done: Done): void => {
    const limit = request.routeOptions.bodyLimit ?? bodyLimit
    const declared = Number(request.headers['content-length'])
    if (declared > limit) return done(new errorCodes.FST_ERR_CTP_BODY_TOO_LARGE())
    const large = request.routeOptions.config.largeJsonBody
    const scanner = new JsonScanner(large && limit > bodyLimit ? { maxRest: bodyLimit, escapeShare: LARGE_BODY_ESCAPE_SHARE } : undefined)
    let chunks: Buffer[] = []
    let received = 0
    /** Once the scan refuses the body, the rest is read and dropped (never kept), so that the client can read the answer. */
    let refused: AppError | undefined
    let finished = false
    const finish = (error: Error | null, body?: unknown) => {
      if (finished) return
      finished = true
      payload.removeListener('data', onData)
      if (error) payload.resume()
      done(error, body)
    }
    const onData = (chunk: Buffer) => {
      received += chunk.length
      if (received > limit) return finish(refused ?? new errorCodes.FST_ERR_CTP_BODY_TOO_LARGE())
      if (refused) return
      if (large && received > bodyLimit && Number.isNaN(declared)) {
        // Such a body is counted (rate limits) before it is read, by its declared size.
        return finish(new AppError('payload_too_large', `A request body larger than ${bodyLimit} bytes (BODY_LIMIT) must declare its size (Content-Length).`))
      }
      const problem = scanner.push(chunk)
      if (problem) {
        refused = scanError(problem, large?.refusal)
        chunks = []
        return
      }
      chunks.push(chunk)
    }
    payload.on('data', onData)
    payload.on('error', (error) => finish(error))
    payload.on('end', () => {
      if (finished) return
      if (refused) return finish(refused)
      if (!Number.isNaN(declared) && received !== declared) return finish(new errorCodes.FST_ERR_CTP_INVALID_CONTENT_LENGTH())
      if (received === 0) return finish(null, undefined)
      const oneBigString = large && received > bodyLimit ? large : undefined
      parseBody(parseText, request, chunks, scanner, oneBigString).then(
        (body) => finish(null, body),
        (error: Error) => finish(error),
      )
    })
  }
}

/** The bytes from..to of a body that arrived as `chunks`. */
function bytesOf(chunks: Buffer[], from: number, to: number): Buffer[] {
  const parts: Buffer[] = []
  let offset = 0
  for (const chunk of chunks) {
    const start = Math.max(from - offset, 0)
    const end = Math.min(to - offset, chunk.length)
    if (start < end) parts.push(chunk.subarray(start, end))
    offset += chunk.length
  }
  return parts
}

/**
 * A large body is parsed whole only once its skeleton (the body with its big string emptied,
 * at most BODY_LIMIT bytes) is parsed and allowed; a refused one is never even put together.
 */
async function parseBody(
  parseText: ParseText,
  request: FastifyRequest,
  chunks: Buffer[],
  scan: JsonScanner,
  oneBigString: LargeJsonBody | undefined,
): Promise<unknown> {
  if (oneBigString) {
    const start = scan.longestStart
    const skeleton = [...bytesOf(chunks, 0, start), Buffer.from('""'), ...bytesOf(chunks, start + scan.longestLength, Number.POSITIVE_INFINITY)]
    if (start < 0 || !oneBigString.allows(await parseText(request, Buffer.concat(skeleton).toString('utf8')))) {
      throw new AppError('payload_too_large', oneBigString.refusal)
    }
  }
  return parseText(request, (chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks)).toString('utf8'))
}

function scanError(problem: ScanProblem, refusal: string | undefined): AppError {
  switch (problem) {
    case 'depth':
      return invalid(`The request body is nested deeper than ${MAX_JSON_DEPTH} levels.`)
    case 'values':
      return new AppError('payload_too_large', `The request body holds more than ${MAX_JSON_VALUES} values.`)
    case 'not-one-big-string':
      return new AppError('payload_too_large', refusal ?? 'The request body is too large.')
  }
}

/**
 * `plugin` with every route it registers limited to `limit` bytes of body (unless its own limit
 * is lower), the 413 naming `setting`: for route files whose bodies are all small, so that
 * the route file need not say it route by route.
 */
export function withBodyLimit<Options extends Record<string, unknown>>(
  plugin: FastifyPluginAsync<Options>,
  limit: number,
  setting: string,
): FastifyPluginAsync<Options> {
  return async (app, options) => {
    app.addHook('onRoute', (route) => {
      if (route.bodyLimit !== undefined && route.bodyLimit <= limit) return
      route.bodyLimit = limit
      route.config = { ...route.config, bodyLimitSetting: setting }
    })
    // This wrapper already has the prefix (if any): the plugin inside must not add it again.
    const inner: Options & { prefix?: string } = { ...options }
    delete inner.prefix
    await app.register(plugin, inner)
  }
}
