import type { FastifyRequest } from 'fastify'
import { AppError } from '../errors.ts'

const hasBody = (request: FastifyRequest): boolean => request.headers['transfer-encoding'] !== undefined || Number(request.headers['content-length'] ?? 0) > 0

/**
 * A preParsing hook: request bodies are taken as sent, never inflated. A compressed one
 * (Content-Encoding gzip, br, deflate, …) is refused as such (415) instead of failing to parse
 * as JSON or PDF with a message that hides why.
 */
export async function refuseEncodedBodies(request: FastifyRequest): Promise<void> {
  const encoding = request.headers['content-encoding']?.trim().toLowerCase()
  if (encoding && encoding !== 'identity' && hasBody(request)) {
    throw new AppError('unsupported_media_type', `Content-Encoding ${encoding} is not supported: send the request body uncompressed.`)
  }
}
