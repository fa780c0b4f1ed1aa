/**
 * Hashing. Everywhere this is Web Crypto. In Node there is one fast path: the signed
 * ranges of a PDF are two slices of one buffer, and Web Crypto can only hash one
 * contiguous buffer, so hashing them there means concatenating a copy of (nearly) the
 * whole file, which Node then copies once more into its job. For a 50 MB file those
 * copies cost as much as the hash itself. Node's own incremental hash takes the slices
 * without copying; we reach it through `process.getBuiltinModule` (Node ≥ 20.16), a
 * runtime lookup rather than an import, so bundlers and browsers never see `node:crypto`.
 */

export type HashName = 'SHA-1' | 'SHA-256' | 'SHA-384' | 'SHA-512'

interface NodeHash {
  update(data: Uint8Array): NodeHash
  digest(): Uint8Array
}
interface NodeCrypto {
  createHash(algorithm: string): NodeHash
}

function nodeCrypto(): NodeCrypto | null {
  const processLike = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process
  const crypto = processLike?.getBuiltinModule?.('node:crypto') as NodeCrypto | undefined
  return crypto && typeof crypto.createHash === 'function' ? crypto : null
}

const NODE_CRYPTO = nodeCrypto()
const NODE_NAMES: Record<HashName, string> = { 'SHA-1': 'sha1', 'SHA-256': 'sha256', 'SHA-384': 'sha384', 'SHA-512': 'sha512' }

/** Hash of one buffer with Web Crypto (in Node it runs off the main thread). */
export async function digest(algorithm: HashName, data: Uint8Array): Promise<Uint8Array> {
  return new Uint8Array(await crypto.subtle.digest(algorithm, data))
}

/** Which implementation `digestRanges` uses; exported so tests can compare both. */
export type RangeHasher = 'node' | 'webcrypto'
export const defaultRangeHasher: RangeHasher = NODE_CRYPTO ? 'node' : 'webcrypto'

/** Hash of the concatenation of `ranges` ([start, length] pairs) of `bytes`, without copying where possible. */
export async function digestRanges(algorithm: HashName, bytes: Uint8Array, ranges: readonly (readonly [number, number])[], hasher: RangeHasher = defaultRangeHasher): Promise<Uint8Array> {
  const slices = ranges.map(([start, length]) => bytes.subarray(start, start + length))
  if (hasher === 'node' && NODE_CRYPTO) {
    const hash = NODE_CRYPTO.createHash(NODE_NAMES[algorithm])
    for (const slice of slices) hash.update(slice)
    return new Uint8Array(hash.digest())
  }
  if (slices.length === 1 && slices[0]) return digest(algorithm, slices[0])
  const joined = new Uint8Array(slices.reduce((sum, slice) => sum + slice.length, 0))
  let offset = 0
  for (const slice of slices) {
    joined.set(slice, offset)
    offset += slice.length
  }
  return digest(algorithm, joined)
}
