import { createHash, hash, randomBytes, timingSafeEqual } from 'node:crypto'

/** One call, no Hash object: half the cost of createHash for a key or token (hashed on every request). */
export const sha256Hex = (data: Uint8Array | string): string => hash('sha256', data, 'hex')

/** Bytes hashed between two turns of the event loop. */
const HASH_SLICE = 1024 * 1024

/**
 * SHA-256 of megabytes without holding the event loop: one slice at a time, yielding between
 * slices (Web Crypto would copy the whole input on this thread first, which costs as much).
 */
export async function sha256HexAsync(data: Uint8Array): Promise<string> {
  const hash = createHash('sha256')
  for (let offset = 0; offset < data.byteLength; offset += HASH_SLICE) {
    hash.update(data.subarray(offset, offset + HASH_SLICE))
    if (offset + HASH_SLICE < data.byteLength) await new Promise((resolve) => setImmediate(resolve))
  }
  return hash.digest('hex')
}

/** A URL-safe random token of `bytes` bytes of entropy. */
export const randomToken = (bytes: number): string => randomBytes(bytes).toString('base64url')

/** Constant-time comparison of two hex digests of equal length. */
export function digestsEqual(a: string, b: string): boolean {
  const left = Buffer.from(a, 'hex')
  const right = Buffer.from(b, 'hex')
  return left.length === right.length && timingSafeEqual(left, right)
}
