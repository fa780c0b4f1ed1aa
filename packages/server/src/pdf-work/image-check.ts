import { crc32, createInflate } from 'node:zlib'
import type { JpegImage } from 'pdfjs-dist/legacy/image_decoders/pdf.image_decoders.mjs'
import { rejection, type PdfRejection } from './limits.ts'

/*
 * Whether a file is, all of it, the PNG or JPEG image it says it is (an identity document): run
 * in a PDF worker, off the event loop. Every chunk or segment is walked to the image's end marker
 * and the image data decoded in full (a PNG's rows are inflated as a stream, never held; a JPEG's
 * scans are entropy-decoded by pdf.js's decoder), under a pixel limit checked from the header
 * before any decoding. What follows the end marker (a phone's motion-photo video, a polyglot's
 * HTML) is not part of the image: the caller keeps only `length` bytes.
 */

export type ImageType = 'image/png' | 'image/jpeg'

/** How many bytes the image takes, from its first byte to its end marker. */
export interface CheckedImage {
  length: number
}

const NAMES: Record<ImageType, string> = { 'image/png': 'PNG', 'image/jpeg': 'JPEG' }

/** An image whose structure holds, with what its header says and the decoding still to do; or why it is not one. */
type Walked = { problem: string } | { length: number; pixels: number; decode(): Promise<string | null> }

export async function checkImage(bytes: Uint8Array, type: ImageType, maxPixels: number): Promise<CheckedImage | PdfRejection> {
  const data = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  const walked = type === 'image/png' ? walkPng(data) : walkJpeg(data)
  const unreadable = (problem: string) =>
    rejection(400, `The file is sent as ${type} but is not a readable ${NAMES[type]} image: ${problem}. Upload a PDF, PNG or JPEG file.`)
  if ('problem' in walked) return unreadable(walked.problem)
  if (walked.pixels > maxPixels) {
    const megapixels = (count: number) => `${Math.round(count / 1e5) / 10} megapixels`
    return rejection(413, `The image is larger than this server accepts (${megapixels(walked.pixels)}; the limit is ${megapixels(maxPixels)}).`)
  }
  const problem = await walked.decode()
  return problem ? unreadable(problem) : { length: walked.length }
}

// PNG (ISO/IEC 15948)

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])
const CHANNELS: Record<number, number> = { 0: 1, 2: 3, 3: 1, 4: 2, 6: 4 }
const BIT_DEPTHS: Record<number, number[]> = { 0: [1, 2, 4, 8, 16], 2: [8, 16], 3: [1, 2, 4, 8], 4: [8, 16], 6: [8, 16] }
/** Adam7: each pass's first column and row, and its steps. */
const ADAM7 = [
  [0, 0, 8, 8],
  [4, 0, 8, 8],
  [0, 4, 4, 8],
  [2, 0, 4, 4],
  [0, 2, 2, 4],
  [1, 0, 2, 2],
  [0, 1, 1, 2],
] as const

interface PngHeader {
  width: number
  height: number
  bitDepth: number
  colorType: number
  interlaced: boolean
}

const truncated = { problem: 'the file ends before the image does (is it truncated?)' }

/** The chunk at `offset`: its type, its data, where it ends; or why it cannot be read. */
function pngChunk(data: Buffer, offset: number): { type: string; body: Buffer; end: number } | { problem: string } {
  if (offset + 12 > data.length) return truncated
  const length = data.readUInt32BE(offset)
  const end = offset + 12 + length
  if (length > 0x7fffffff || end > data.length) return truncated
  const type = data.toString('latin1', offset + 4, offset + 8)
  if (crc32(data.subarray(offset + 4, end - 4)) !== data.readUInt32BE(end - 4)) return { problem: `its ${type} chunk is damaged (checksum mismatch)` }
  return { type, body: data.subarray(offset + 8, end - 4), end }
}

/** The chunks from the signature to IEND, each with a correct CRC: a valid IHDR first, a palette where one is needed, image data. */
function walkPng(data: Buffer): Walked {
  if (data.length < 8 || !data.subarray(0, 8).equals(PNG_SIGNATURE)) return { problem: 'it does not start with the PNG signature' }
  const first = pngChunk(data, 8)
  if ('problem' in first) return first
  if (first.type !== 'IHDR') return { problem: 'it does not begin with an image header (IHDR)' }
  const header = pngHeader(first.body)
  if ('problem' in header) return header
  let palette = false
  const imageData: Buffer[] = []
  for (let offset = first.end; ;) {
    const chunk = pngChunk(data, offset)
    if ('problem' in chunk) return chunk
    if (chunk.type === 'IHDR') return { problem: 'it has two image headers' }
    if (chunk.type === 'PLTE') palette = true
    else if (chunk.type === 'IDAT') imageData.push(chunk.body)
    else if (chunk.type === 'IEND') {
      if (imageData.length === 0) return { problem: 'it has no image data' }
      if (header.colorType === 3 && !palette) return { problem: 'its palette is missing' }
      const rows = pngRows(header)
      return { length: chunk.end, pixels: header.width * header.height, decode: () => pngDataProblem(imageData, rows) }
    }
    offset = chunk.end
  }
}

function pngHeader(body: Buffer): PngHeader | { problem: string } {
  if (body.length !== 13) return { problem: 'its image header is damaged' }
  const width = body.readUInt32BE(0)
  const height = body.readUInt32BE(4)
  const [bitDepth = 0, colorType = 0, compression, filter, interlace] = body.subarray(8, 13)
  if (width === 0 || height === 0 || width > 0x7fffffff || height > 0x7fffffff) return { problem: 'its width or height is invalid' }
  if (!BIT_DEPTHS[colorType]?.includes(bitDepth) || compression !== 0 || filter !== 0 || (interlace !== 0 && interlace !== 1)) {
    return { problem: 'its image header names a format PNG does not have' }
  }
  return { width, height, bitDepth, colorType, interlaced: interlace === 1 }
}

/** The rows the image data must inflate to: for each row (of each interlace pass), its length with the filter-type byte. */
function pngRows(header: PngHeader): { count: number; bytes: number }[] {
  const bitsPerPixel = CHANNELS[header.colorType]! * header.bitDepth
  const passes = header.interlaced ? ADAM7 : ([[0, 0, 1, 1]] as const)
  return passes
    .map(([x0, y0, dx, dy]) => ({ width: Math.ceil(Math.max(0, header.width - x0) / dx), height: Math.ceil(Math.max(0, header.height - y0) / dy) }))
    .filter((pass) => pass.width > 0 && pass.height > 0)
    .map((pass) => ({ count: pass.height, bytes: 1 + Math.ceil((pass.width * bitsPerPixel) / 8) }))
}

/** Encoders may write a few bytes more than the rows need; a stream that goes on beyond this is not an image. */
const PNG_SLACK_BYTES = 1024

/** Inflates the image data as a stream, checking every row's filter type and that exactly the rows the header promises are there. */
function pngDataProblem(chunks: Buffer[], rows: { count: number; bytes: number }[]): Promise<string | null> {
  let pass = 0
  let row = 0
  /** Bytes still to come of the current row; 0 at a row's start. */
  let rest = 0
  let extra = 0

  return new Promise((resolve) => {
    const inflate = createInflate()
    let settled = false
    const settle = (problem: string | null) => {
      if (settled) return
      settled = true
      inflate.destroy()
      resolve(problem)
    }
    inflate.on('data', (chunk: Buffer) => {
      let at = 0
      while (at < chunk.length && pass < rows.length) {
        const current = rows[pass]!
        if (rest === 0) {
          if (chunk[at]! > 4) return settle('its image data is damaged (an unknown row filter)')
          rest = current.bytes
        }
        const taken = Math.min(rest, chunk.length - at)
        rest -= taken
        at += taken
        if (rest === 0 && ++row === current.count) {
          pass++
          row = 0
        }
      }
      extra += chunk.length - at
      if (extra > PNG_SLACK_BYTES) settle('its image data is longer than its width and height say')
    })
    inflate.on('error', () => settle('its image data is damaged'))
    inflate.on('end', () => settle(pass < rows.length ? 'its image data is incomplete (shorter than its width and height say)' : null))
    for (const chunk of chunks) inflate.write(chunk)
    inflate.end()
  })
}

// JPEG (ITU-T T.81)

const isStartOfFrame = (marker: number) => marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc
const isRestart = (marker: number) => marker >= 0xd0 && marker <= 0xd7

/** The segments from SOI to EOI, each within the file; one frame header with a size; scans after it, their entropy-coded data skipped to the next marker. */
function walkJpeg(data: Buffer): Walked {
  if (data.length < 4 || data[0] !== 0xff || data[1] !== 0xd8) return { problem: 'it does not start with the JPEG start-of-image marker' }
  let pixels: number | undefined
  let scans = 0
  let offset = 2
  for (;;) {
    if (offset >= data.length) return truncated
    if (data[offset] !== 0xff) return { problem: 'it has data where a marker should be' }
    while (data[offset] === 0xff) offset++ // fill bytes
    if (offset >= data.length) return truncated
    const marker = data[offset++]!
    if (marker === 0xd9) {
      if (pixels === undefined || scans === 0) return { problem: 'it has no image data' }
      const image = data.subarray(0, offset)
      return { length: offset, pixels, decode: () => jpegDataProblem(image) }
    }
    if (isRestart(marker) || marker === 0x01) continue
    if (marker === 0xd8 || marker === 0x00) return { problem: 'it has a start-of-image marker inside the image' }
    if (offset + 2 > data.length) return truncated
    const length = data.readUInt16BE(offset)
    if (length < 2 || offset + length > data.length) return truncated
    if (isStartOfFrame(marker)) {
      if (pixels !== undefined) return { problem: 'it has more than one frame' }
      if (length < 8) return { problem: 'its frame header is damaged' }
      const height = data.readUInt16BE(offset + 3)
      const width = data.readUInt16BE(offset + 5)
      if (width === 0 || height === 0) return { problem: 'its width or height is missing' }
      pixels = width * height
    }
    offset += length
    if (marker === 0xda) {
      if (pixels === undefined) return { problem: 'its image data comes before its frame header' }
      scans++
      offset = endOfEntropyCodedData(data, offset)
    }
  }
}

/** Where the marker after a scan's entropy-coded data starts (0xFF 0x00 is a data byte, 0xFF 0xD0–D7 a restart within the scan). */
function endOfEntropyCodedData(data: Buffer, from: number): number {
  for (let at = data.indexOf(0xff, from); at !== -1; at = data.indexOf(0xff, at + 1)) {
    const next = data[at + 1]
    if (next === undefined) return data.length
    if (next !== 0x00 && !isRestart(next)) return at
    at++
  }
  return data.length
}

let jpegDecoder: Promise<typeof JpegImage> | undefined

/** Decodes every scan with pdf.js's JPEG decoder (loaded on first use), which throws on what it cannot decode. */
async function jpegDataProblem(jpeg: Buffer): Promise<string | null> {
  const Decoder = await (jpegDecoder ??= import('pdfjs-dist/legacy/image_decoders/pdf.image_decoders.mjs').then((decoders) => {
    // Its warnings would go to the server's stdout; what matters comes back as an error.
    decoders.setVerbosityLevel(decoders.VerbosityLevel.ERRORS)
    return decoders.JpegImage
  }))
  try {
    new Decoder().parse(jpeg)
    return null
  } catch (error) {
    return `its image data cannot be decoded (${error instanceof Error ? error.message.replace(/^JpegImage\.parse - /, '') : String(error)})`
  }
}
