import type { FastifyReply, FastifyRequest } from 'fastify'
import type { MemoryAsset } from '../lib/memory-asset.ts'

/**
 * Pages link assets as `<path>?v=<version>`, so a versioned request may be cached for a
 * year; an unversioned one must be revalidated (ETag), which keeps stale scripts out of
 * browsers after a deploy.
 */
export function sendAsset(request: FastifyRequest, reply: FastifyReply, asset: MemoryAsset): FastifyReply {
  const versioned = (request.query as Record<string, unknown>).v === asset.version
  // Weak: the gzipped and plain bodies share it.
  const etag = `W/"${asset.version}"`
  void reply
    .header('content-type', asset.type)
    .header('cache-control', versioned ? 'public, max-age=31536000, immutable' : 'no-cache')
    .header('etag', etag)
    .header('vary', 'accept-encoding')
    .header('cross-origin-resource-policy', 'same-origin')
  if (request.headers['if-none-match']?.includes(etag)) return reply.status(304).send()
  if (asset.gzip && /\bgzip\b/.test(request.headers['accept-encoding'] ?? '')) return reply.header('content-encoding', 'gzip').send(asset.gzip)
  return reply.send(asset.bytes)
}
