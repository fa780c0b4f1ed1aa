import { createHash } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { createFileHasher, type Range } from '../src/util/digest.ts'

/* The Node fast path (one pass, forked hash states) must agree with plain Web Crypto. */

function reference(bytes: Uint8Array, algorithm: string, ranges: readonly Range[]): string {
  const hash = createHash(algorithm)
  for (const [start, length] of ranges) hash.update(bytes.subarray(start, start + length))
  return hash.digest('hex')
}

describe('file hasher', () => {
  const bytes = new Uint8Array(300_000).map((_, i) => (i * 31 + 7) & 0xff)
  const requests: [string, 'SHA-256' | 'SHA-384' | 'SHA-512', Range[]][] = [
    [
      'sha256',
      'SHA-256',
      [
        [0, 1000],
        [5000, 20_000],
      ],
    ],
    [
      'sha256',
      'SHA-256',
      [
        [0, 90_000],
        [95_000, 205_000],
      ],
    ],
    // Out of order (a shorter prefix after a longer one) and not starting at 0.
    [
      'sha256',
      'SHA-256',
      [
        [0, 500],
        [600, 100],
      ],
    ],
    [
      'sha384',
      'SHA-384',
      [
        [10, 500],
        [600, 100],
      ],
    ],
    [
      'sha512',
      'SHA-512',
      [
        [0, 299_000],
        [299_500, 500],
      ],
    ],
  ]

  it.each(['node', 'webcrypto'] as const)('%s: range digests and the file SHA-256 match node:crypto', async (kind) => {
    const hasher = createFileHasher(bytes, kind)
    expect(hasher.kind).toBe(kind)
    for (const [nodeName, name, ranges] of requests) {
      expect(Buffer.from(await hasher.digestRanges(name, ranges)).toString('hex')).toBe(reference(bytes, nodeName, ranges))
    }
    expect(Buffer.from(await hasher.fileSha256()).toString('hex')).toBe(createHash('sha256').update(bytes).digest('hex'))
  })
})
