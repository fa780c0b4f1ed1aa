import { inflateSync } from 'node:zlib'
import QRCode from 'qrcode'
import { describe, expect, test } from 'vitest'
import { renderBadgePng, type BadgeFacts } from '../src/seal/badge.ts'
import { PNG_SIGNATURE } from './helpers/png.ts'

const facts = (overrides: Partial<BadgeFacts> = {}): BadgeFacts => ({
  orgName: 'Acme Corporation Ltd.',
  title: 'Mutual non-disclosure agreement',
  sha256: 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
  sealedAt: new Date('2025-03-02T08:00:01.250Z'),
  tsaName: 'Signet Time-Stamp Authority (built-in)',
  verifyUrl: 'https://signet.example.com/verify/7c9e6679-7425-40de-944b-e07fc1f90ae7',
  ...overrides,
})

// ---- a small PNG reader (8-bit RGBA, not interlaced: what resvg writes) ---------------------------

interface Rgba {
  width: number
  height: number
  /** [r, g, b, a] of pixel (x, y). */
  at(x: number, y: number): [number, number, number, number]
}

function chunks(png: Buffer): { type: string; data: Buffer }[] {
  const out: { type: string; data: Buffer }[] = []
  for (let offset = 8; offset < png.length;) {
    const length = png.readUInt32BE(offset)
    out.push({ type: png.toString('latin1', offset + 4, offset + 8), data: png.subarray(offset + 8, offset + 8 + length) })
    offset += 12 + length
  }
  return out
}

function header(png: Uint8Array): { width: number; height: number; bitDepth: number; colorType: number; interlace: number } {
  const ihdr = chunks(Buffer.from(png)).find((chunk) => chunk.type === 'IHDR')!.data
  return { width: ihdr.readUInt32BE(0), height: ihdr.readUInt32BE(4), bitDepth: ihdr[8]!, colorType: ihdr[9]!, interlace: ihdr[12]! }
}

function decode(png: Uint8Array): Rgba {
  const { width, height, bitDepth, colorType, interlace } = header(png)
  expect({ bitDepth, colorType, interlace }).toEqual({ bitDepth: 8, colorType: 6, interlace: 0 })
  const raw = inflateSync(
    Buffer.concat(
      chunks(Buffer.from(png))
        .filter((c) => c.type === 'IDAT')
        .map((c) => c.data),
    ),
  )
  const stride = width * 4
  const pixels = new Uint8Array(stride * height)
  for (let y = 0; y < height; y++) {
    const filter = raw[y * (stride + 1)]!
    for (let i = 0; i < stride; i++) {
      const a = i >= 4 ? pixels[y * stride + i - 4]! : 0
      const b = y > 0 ? pixels[(y - 1) * stride + i]! : 0
      const c = i >= 4 && y > 0 ? pixels[(y - 1) * stride + i - 4]! : 0
      const p = a + b - c
      const paeth = Math.abs(p - a) <= Math.abs(p - b) && Math.abs(p - a) <= Math.abs(p - c) ? a : Math.abs(p - b) <= Math.abs(p - c) ? b : c
      const predictor = [0, a, b, (a + b) >> 1, paeth][filter]
      if (predictor === undefined) throw new Error(`bad PNG filter ${filter}`)
      pixels[y * stride + i] = (raw[y * (stride + 1) + 1 + i]! + predictor) & 0xff
    }
  }
  return { width, height, at: (x, y) => [...pixels.subarray((y * width + x) * 4, (y * width + x) * 4 + 4)] as [number, number, number, number] }
}

const isDark = ([r, g, b, a]: number[]) => a! === 255 && 0.2126 * r! + 0.7152 * g! + 0.0722 * b! < 128

/**
 * Finds the QR code of `size` modules the way a reader's first step does: the top edges of the two
 * upper finder patterns are, in one pixel row, two dark runs of 7 modules, (size − 7) modules apart.
 */
function locateQr(image: Rgba, size: number): { left: number; top: number; module: number } {
  for (let y = 0; y < image.height; y++) {
    const runs: { start: number; length: number }[] = []
    for (let x = 0; x < image.width; x++) {
      if (!isDark(image.at(x, y))) continue
      const last = runs.at(-1)
      if (last && last.start + last.length === x) last.length++
      else runs.push({ start: x, length: 1 })
    }
    for (const run of runs) {
      if (run.length % 7 !== 0) continue
      const module = run.length / 7
      const partner = runs.find((other) => other.start === run.start + (size - 7) * module && other.length === run.length)
      if (partner) return { left: run.start, top: y, module }
    }
  }
  throw new Error('no QR code found')
}

/** Asserts that the badge shows exactly the QR code (level M) of `url`: every module, crisp, with its quiet zone. */
function expectQrOf(png: Uint8Array, url: string): { module: number } {
  const expected = QRCode.create(url, { errorCorrectionLevel: 'M' }).modules
  const image = decode(png)
  const { left, top, module } = locateQr(image, expected.size)
  const mismatches: string[] = []
  for (let row = 0; row < expected.size; row++) {
    for (let col = 0; col < expected.size; col++) {
      const dark = expected.get(row, col) === 1
      // Every pixel of the module, not just its centre: a module must be one flat colour, without anti-aliased edges.
      for (let dy = 0; dy < module; dy++) {
        for (let dx = 0; dx < module; dx++) {
          const [r, g, b, a] = image.at(left + col * module + dx, top + row * module + dy)
          const flat = dark ? isDark([r, g, b, a]) && r < 40 && g < 40 && b < 60 : r === 255 && g === 255 && b === 255 && a === 255
          if (!flat) mismatches.push(`module ${row},${col} pixel ${dx},${dy}: ${[r, g, b, a].join(',')}`)
        }
      }
    }
  }
  expect(mismatches.slice(0, 5)).toEqual([])
  const quiet = 4 * module
  const side = expected.size * module
  for (let y = top - quiet; y < top + side + quiet; y++) {
    for (let x = left - quiet; x < left + side + quiet; x++) {
      const inside = x >= left && x < left + side && y >= top && y < top + side
      if (!inside && image.at(x, y).join(',') !== '255,255,255,255') throw new Error(`quiet zone not white at ${x},${y}`)
    }
  }
  return { module }
}

// ---- tests --------------------------------------------------------------------------------------

describe('renderBadgePng', () => {
  test('is a 640×820 PNG', async () => {
    const png = await renderBadgePng(facts())
    expect(Buffer.from(png.subarray(0, 8)).equals(PNG_SIGNATURE)).toBe(true)
    expect(header(png)).toMatchObject({ width: 640, height: 820 })
  })

  test('is deterministic: the same facts give the same bytes, other facts other bytes', async () => {
    const [first, second] = await Promise.all([renderBadgePng(facts()), renderBadgePng(facts())])
    expect(Buffer.from(first).equals(second)).toBe(true)
    const later = await renderBadgePng(facts({ sealedAt: new Date('2025-03-02T08:00:02.250Z') }))
    expect(Buffer.from(first).equals(later)).toBe(false)
    const otherHash = await renderBadgePng(facts({ sha256: 'f'.repeat(64) }))
    expect(Buffer.from(first).equals(otherHash)).toBe(false)
  })

  test('the QR code is the verification URL at level M, crisp, on whole pixels, with its quiet zone', async () => {
    const { module } = expectQrOf(await renderBadgePng(facts()), facts().verifyUrl)
    expect(module).toBeGreaterThanOrEqual(6)
  })

  test('a long URL still gets a readable code, with smaller modules', async () => {
    const url = `https://signet.example.com/verify/7c9e6679-7425-40de-944b-e07fc1f90ae7?${'x=1&'.repeat(60)}`
    const { module } = expectQrOf(await renderBadgePng(facts({ verifyUrl: url })), url)
    expect(module).toBeGreaterThanOrEqual(2)
  })

  test('any title renders: very long, CJK and emoji, markup characters, control characters', async () => {
    const base = await renderBadgePng(facts())
    for (const title of [
      'Master services agreement between Acme Corporation and Globex International Holdings '.repeat(30),
      '賃貸借契約書 — 東京オフィス 😀',
      `<svg onload="x"> & </text> ]]> '"`,
      'Line one\nline two\u0000\u0007\u2028end',
      '',
    ]) {
      const png = await renderBadgePng(facts({ title }))
      expect(header(png)).toMatchObject({ width: 640, height: 820 })
      expect(Buffer.from(png).equals(base)).toBe(false)
      // The code is never disturbed by the text around it.
      expectQrOf(png, facts().verifyUrl)
    }
  })

  test('other fields: markup is text, long values are cut', async () => {
    for (const overrides of [
      { orgName: 'A & B <Ltd>', tsaName: '"quoted" TSA', sha256: '<script>' },
      { orgName: 'Aktiengesellschaft für Vermögensverwaltung und Beteiligungen '.repeat(5), tsaName: 'tsa.example.org '.repeat(20) },
    ]) {
      expectQrOf(await renderBadgePng(facts(overrides)), facts().verifyUrl)
    }
  })

  test('an invalid seal time is refused', async () => {
    await expect(renderBadgePng(facts({ sealedAt: new Date(Number.NaN) }))).rejects.toThrow(/sealedAt/)
  })
})
