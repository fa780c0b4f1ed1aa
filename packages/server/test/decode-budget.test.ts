import { randomBytes } from 'node:crypto'
import { PdfName, PdfStream } from '@libpdf/core'
import { describe, expect, test } from 'vitest'
import { lzwDecodedSize, runLengthDecodedSize } from '../src/pdf-work/decode-budget.ts'
import { lzwEncode, lzwZeros } from './helpers/hostile-pdfs.ts'

/*
 * The PDF worker counts what LZW and RunLength streams decode to before @libpdf/core decodes
 * them (their output can be thousands of times their size). Each count must equal the length
 * @libpdf/core's own decoder produces, and must stop early past its ceiling.
 */

const decodedBy = (filter: string, data: Uint8Array): Uint8Array => PdfStream.fromDict({ Filter: PdfName.of(filter) }, data).getDecodedData()

describe('lzwDecodedSize', () => {
  const samples: [string, Uint8Array][] = [
    ['text', Buffer.from('TOBEORNOTTOBEORTOBEORNOT'.repeat(200))],
    ['random bytes (the dictionary fills and is cleared)', randomBytes(40_000)],
    ['a megabyte of zeros', Buffer.alloc(1024 * 1024)],
  ]
  test.each(samples)('%s: as long as what @libpdf/core decodes', (_name, data) => {
    const encoded = lzwEncode(data)
    expect(Buffer.from(decodedBy('LZWDecode', encoded)).equals(Buffer.from(data))).toBe(true)
    expect(lzwDecodedSize(encoded, 1, Number.POSITIVE_INFINITY)).toBe(data.length)
  })

  test('counts a bomb of codes written directly exactly as @libpdf/core decodes it, and stops past its ceiling', () => {
    const bomb = lzwZeros(8)
    const decoded = decodedBy('LZWDecode', bomb)
    expect(decoded.every((byte) => byte === 0)).toBe(true)
    expect(lzwDecodedSize(bomb, 1, Number.POSITIVE_INFINITY)).toBe(decoded.length)
    expect(bomb.length * 1000).toBeLessThan(decoded.length)
    const counted = lzwDecodedSize(bomb, 1, 1024 * 1024)
    expect(counted).toBeGreaterThan(1024 * 1024)
    expect(counted).toBeLessThan(2 * 1024 * 1024)
  })
})

describe('runLengthDecodedSize', () => {
  test('as long as what @libpdf/core decodes: runs and literal spans', () => {
    // 100 × 'A' as runs of 128 and less, then a literal span of 3 bytes, then end of data.
    const encoded = Buffer.from([257 - 100, 0x41, 2, 0x61, 0x62, 0x63, 128])
    expect(decodedBy('RunLengthDecode', encoded).length).toBe(103)
    expect(runLengthDecodedSize(encoded)).toBe(103)
  })
})
