import { PdfDict, PdfName, type PdfValue } from './objects.ts'
import { bufferSource, copyBytes } from '../util/bytes.ts'

/**
 * Stream decoding for the streams the verifier must read: cross-reference streams,
 * object streams and DSS entries. Only FlateDecode (with PNG/TIFF predictors) is
 * needed for those; it uses the platform's DecompressionStream, so no dependency.
 */

/** Refuse to inflate a structural stream beyond this, a bound against zip bombs. */
const MAX_INFLATED_BYTES = 256 * 1024 * 1024

async function inflate(data: Uint8Array): Promise<Uint8Array> {
  const stream = new DecompressionStream('deflate')
  const writer = stream.writable.getWriter()
  // Errors surface on the reading side; swallow them here so they are not unhandled.
  writer.write(bufferSource(data)).catch(() => undefined)
  writer.close().catch(() => undefined)
  const reader = stream.readable.getReader()
  const chunks: Uint8Array[] = []
  let total = 0
  try {
    for (;;) {
      const { done, value } = await reader.read()
      if (done) break
      chunks.push(value)
      total += value.length
      if (total > MAX_INFLATED_BYTES) throw new Error('inflated stream too large')
    }
  } catch (error) {
    // Some writers omit the zlib checksum; keep what was inflated if there is any.
    if (total === 0 || (error instanceof Error && error.message === 'inflated stream too large')) throw error
  }
  const out = new Uint8Array(total)
  let offset = 0
  for (const chunk of chunks) {
    out.set(chunk, offset)
    offset += chunk.length
  }
  return out
}

function intParam(parms: PdfDict | null, key: string, fallback: number): number {
  const value = parms?.get(key)
  return typeof value === 'number' && Number.isInteger(value) ? value : fallback
}

/** Undoes a PNG (10–15) or TIFF (2) predictor (ISO 32000-1, 7.4.4.4). */
export function unpredict(data: Uint8Array, parms: PdfDict | null): Uint8Array {
  const predictor = intParam(parms, 'Predictor', 1)
  if (predictor <= 1) return data
  const colors = intParam(parms, 'Colors', 1)
  const bits = intParam(parms, 'BitsPerComponent', 8)
  const columns = intParam(parms, 'Columns', 1)
  const bytesPerPixel = Math.max(1, Math.ceil((colors * bits) / 8))
  const rowLength = Math.ceil((colors * bits * columns) / 8)
  if (predictor === 2) {
    if (bits !== 8) throw new Error('TIFF predictor with other than 8 bits per component is not supported')
    const out = copyBytes(data)
    for (let row = 0; row + rowLength <= out.length; row += rowLength) {
      for (let i = bytesPerPixel; i < rowLength; i++) out[row + i] = ((out[row + i] as number) + (out[row + i - bytesPerPixel] as number)) & 0xff
    }
    return out
  }
  const rows = Math.floor(data.length / (rowLength + 1))
  const out = new Uint8Array(rows * rowLength)
  for (let row = 0; row < rows; row++) {
    const filter = data[row * (rowLength + 1)]
    const input = row * (rowLength + 1) + 1
    const base = row * rowLength
    for (let i = 0; i < rowLength; i++) {
      const raw = data[input + i] as number
      const left = i >= bytesPerPixel ? (out[base + i - bytesPerPixel] as number) : 0
      const up = row > 0 ? (out[base - rowLength + i] as number) : 0
      const upLeft = row > 0 && i >= bytesPerPixel ? (out[base - rowLength + i - bytesPerPixel] as number) : 0
      let value: number
      switch (filter) {
        case 0:
          value = raw
          break
        case 1:
          value = raw + left
          break
        case 2:
          value = raw + up
          break
        case 3:
          value = raw + Math.floor((left + up) / 2)
          break
        case 4: {
          const p = left + up - upLeft
          const pa = Math.abs(p - left)
          const pb = Math.abs(p - up)
          const pc = Math.abs(p - upLeft)
          value = raw + (pa <= pb && pa <= pc ? left : pb <= pc ? up : upLeft)
          break
        }
        default:
          throw new Error(`unknown PNG predictor ${String(filter)}`)
      }
      out[base + i] = value & 0xff
    }
  }
  return out
}

function asList(value: PdfValue | undefined): PdfValue[] {
  if (value === undefined || value === null) return []
  return Array.isArray(value) ? value : [value]
}

/** Decodes stream data per its /Filter and /DecodeParms (FlateDecode only). */
export async function decodeStream(dict: PdfDict, raw: Uint8Array): Promise<Uint8Array> {
  const filters = asList(dict.get('Filter'))
  const parms = asList(dict.get('DecodeParms'))
  let data = raw
  for (const [index, filter] of filters.entries()) {
    if (!(filter instanceof PdfName)) throw new Error('invalid /Filter')
    if (filter.name !== 'FlateDecode' && filter.name !== 'Fl') throw new Error(`unsupported stream filter /${filter.name}`)
    const parm = parms[index]
    data = unpredict(await inflate(data), parm instanceof PdfDict ? parm : null)
  }
  return data
}
