import { createHash, randomBytes, timingSafeEqual } from 'node:crypto'

export const sha256Hex = (data: Uint8Array | string): string => createHash('sha256').update(data).digest('hex')

/** A URL-safe random token of `bytes` bytes of entropy. */
export const randomToken = (bytes: number): string => randomBytes(bytes).toString('base64url')

/** Constant-time comparison of two hex digests of equal length. */
export function digestsEqual(a: string, b: string): boolean {
  const left = Buffer.from(a, 'hex')
  const right = Buffer.from(b, 'hex')
  return left.length === right.length && timingSafeEqual(left, right)
}
