import { bufferSource } from './bytes.ts'

/**
 * Hashing, with Web Crypto everywhere, plus one fast path for Node.
 *
 * A PDF signature covers two slices of the file, [0, a) and [b, end), and the report
 * also needs the SHA-256 of the whole file. Web Crypto hashes one contiguous buffer at a
 * time, so it must be given a concatenated copy of (nearly) the whole file, which Node
 * copies once more into its job; for a 50 MB file those copies cost as much as hashing.
 * Node's incremental hash can instead hash the file once from the start and, at each
 * signature's gap, fork its state (`hash.copy()`) to finish that signature's digest with
 * its short second range. The whole file is then read once for all signatures and the
 * file hash. We reach node:crypto through `process.getBuiltinModule` (Node ≥ 20.16), a
 * runtime lookup rather than an import, so bundlers and browsers never see it.
 */

export type HashName = 'SHA-1' | 'SHA-256' | 'SHA-384' | 'SHA-512'

/** Hash of one buffer with Web Crypto. */
export async function digest(algorithm: HashName, data: Uint8Array): Promise<Uint8Array> {
  return new Uint8Array(await crypto.subtle.digest(algorithm, bufferSource(data)))
}

interface NodeHash {
  update(data: Uint8Array): NodeHash
  copy(): NodeHash
  digest(): Uint8Array
}
interface NodeCrypto {
  createHash(algorithm: string): NodeHash
}

function nodeCrypto(): NodeCrypto | null {
  const processLike = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process
  try {
    const module = processLike?.getBuiltinModule?.('node:crypto') as NodeCrypto | undefined
    return module && typeof module.createHash === 'function' ? module : null
  } catch {
    return null
  }
}

const NODE_CRYPTO = nodeCrypto()
const NODE_NAMES: Record<HashName, string> = { 'SHA-1': 'sha1', 'SHA-256': 'sha256', 'SHA-384': 'sha384', 'SHA-512': 'sha512' }

export type Range = readonly [start: number, length: number]

/** Digests of ranges of one file, and of the whole file. */
export interface FileHasher {
  readonly kind: 'node' | 'webcrypto'
  /** Hash of the concatenation of `ranges`. Cheapest when called in increasing order of the first range's end. */
  digestRanges(algorithm: HashName, ranges: readonly Range[]): Promise<Uint8Array>
  /** SHA-256 of the whole file. */
  fileSha256(): Promise<Uint8Array>
}

class WebCryptoHasher implements FileHasher {
  readonly kind = 'webcrypto'
  // Started at once: in Node it runs on the thread pool while we parse.
  private readonly file: Promise<Uint8Array>

  constructor(private readonly bytes: Uint8Array) {
    this.file = digest('SHA-256', bytes)
    this.file.catch(() => undefined)
  }

  digestRanges(algorithm: HashName, ranges: readonly Range[]): Promise<Uint8Array> {
    const slices = ranges.map(([start, length]) => this.bytes.subarray(start, start + length))
    if (slices.length === 1 && slices[0]) return digest(algorithm, slices[0])
    const joined = new Uint8Array(slices.reduce((sum, slice) => sum + slice.length, 0))
    let offset = 0
    for (const slice of slices) {
      joined.set(slice, offset)
      offset += slice.length
    }
    return digest(algorithm, joined)
  }

  fileSha256(): Promise<Uint8Array> {
    return this.file
  }
}

class NodeHasher implements FileHasher {
  readonly kind = 'node'
  /** One running hash per algorithm over the file's prefix [0, position). */
  private readonly running = new Map<HashName, { hash: NodeHash; position: number }>()

  constructor(
    private readonly bytes: Uint8Array,
    private readonly node: NodeCrypto,
  ) {}

  private prefix(algorithm: HashName, end: number): NodeHash | null {
    let state = this.running.get(algorithm)
    if (!state) {
      state = { hash: this.node.createHash(NODE_NAMES[algorithm]), position: 0 }
      this.running.set(algorithm, state)
    }
    if (end < state.position) return null
    state.hash.update(this.bytes.subarray(state.position, end))
    state.position = end
    return state.hash.copy()
  }

  async digestRanges(algorithm: HashName, ranges: readonly Range[]): Promise<Uint8Array> {
    const [first, ...rest] = ranges
    let hash: NodeHash | null = null
    if (first && first[0] === 0) hash = this.prefix(algorithm, first[1])
    if (!hash) {
      hash = this.node.createHash(NODE_NAMES[algorithm])
      for (const [start, length] of ranges) hash.update(this.bytes.subarray(start, start + length))
    } else {
      for (const [start, length] of rest) hash.update(this.bytes.subarray(start, start + length))
    }
    return new Uint8Array(hash.digest())
  }

  async fileSha256(): Promise<Uint8Array> {
    const hash = this.prefix('SHA-256', this.bytes.length) ?? this.node.createHash('sha256').update(this.bytes)
    return new Uint8Array(hash.digest())
  }
}

export function createFileHasher(bytes: Uint8Array, kind: 'node' | 'webcrypto' = NODE_CRYPTO ? 'node' : 'webcrypto'): FileHasher {
  return kind === 'node' && NODE_CRYPTO ? new NodeHasher(bytes, NODE_CRYPTO) : new WebCryptoHasher(bytes)
}
