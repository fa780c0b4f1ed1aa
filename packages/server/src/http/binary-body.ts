import type { IncomingMessage } from 'node:http'
import { errorCodes, type FastifyRequest } from 'fastify'

/**
 * A content-type parser for large binary bodies (a PDF of up to PDF_MAX_MB). Fastify's own
 * (`parseAs: 'buffer'`) concatenates the chunks once the body is complete: one 25 MB copy
 * into fresh memory that held the event loop for up to 100 ms here. When the length is
 * declared, this one allocates the buffer once and fills it as the chunks arrive, so the
 * copying is spread over the upload; the buffer is the body's own (whole), so it can be
 * handed to a PDF worker without another copy.
 */
export function binaryBodyParser(limit: number) {
  return (request: FastifyRequest, payload: IncomingMessage, done: (error: Error | null, body?: Buffer) => void): void => {
    const declared = Number(request.headers['content-length'])
    const known = Number.isSafeInteger(declared) && declared > 0
    if (known && declared > limit) return done(new errorCodes.FST_ERR_CTP_BODY_TOO_LARGE())
    const buffer = known ? Buffer.allocUnsafeSlow(declared) : null
    const chunks: Buffer[] = []
    let received = 0
    let finished = false
    const finish = (error: Error | null, body?: Buffer) => {
      if (finished) return
      finished = true
      if (error) payload.resume()
      done(error, body)
    }
    payload.on('data', (chunk: Buffer) => {
      if (finished) return
      received += chunk.length
      if (received > limit) return finish(new errorCodes.FST_ERR_CTP_BODY_TOO_LARGE())
      if (!buffer) return void chunks.push(chunk)
      if (received > buffer.length) return finish(new errorCodes.FST_ERR_CTP_INVALID_CONTENT_LENGTH())
      chunk.copy(buffer, received - chunk.length)
    })
    payload.on('end', () => {
      if (buffer && received !== buffer.length) return finish(new errorCodes.FST_ERR_CTP_INVALID_CONTENT_LENGTH())
      finish(null, buffer ?? Buffer.concat(chunks))
    })
    payload.on('error', (error) => finish(error))
  }
}
