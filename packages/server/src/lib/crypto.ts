import { createHash, randomBytes, timingSafeEqual } from 'node:crypto'

export const sha256Hex = (data: Uint8Array | string): string => createHash('sha256').update(data).digest('hex')

/** SHA-256 on libuv's thread pool (Web Crypto), for megabytes that must not hold the event loop. */
export async function sha256HexAsync(data: Uint8Array): Promise<string> {
  return Buffer.from(await crypto.subtle.digest('SHA-256', data as Uint8Array<ArrayBuffer>)).toString('hex')
}

/** A URL-safe random token of `bytes` bytes of entropy. */
export const randomToken = (bytes: number): string => randomBytes(bytes).toString('base64url')

/** Constant-time comparison of two hex digests of equal length. */
export function digestsEqual(a: string, b: string): boolean {
  const left = Buffer.from(a, 'hex')
  const right = Buffer.from(b, 'hex')
  return left.length === right.length && timingSafeEqual(left, right)
}
