import { createHash } from 'node:crypto'
import { gzipSync } from 'node:zlib'

/** A static file served from memory: its bytes, a gzipped copy for text, and a content version. */
export interface MemoryAsset {
  bytes: Buffer
  gzip: Buffer | null
  version: string
  type: string
}

/** Wraps a file's bytes: versioned by content; gzipped once unless already compressed (fonts, images). */
export function memoryAsset(bytes: Buffer, type: string, options: { compressed?: boolean } = {}): MemoryAsset {
  return {
    bytes,
    gzip: options.compressed ? null : gzipSync(bytes, { level: 9 }),
    version: createHash('sha256').update(bytes).digest('hex').slice(0, 12),
    type,
  }
}
