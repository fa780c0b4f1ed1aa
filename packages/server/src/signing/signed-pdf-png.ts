import { deflateSync, inflateSync } from 'node:zlib'
import { PDFImage, PdfDict, PdfName, PdfNumber, type PDF, type PdfObject } from '@libpdf/core'

/*
 * @libpdf/core's embedPng inflates and re-deflates the image in pure JavaScript (pako): for two
 * signers' signature images that was half of the whole render. Signature pads produce 8-bit,
 * non-interlaced PNGs, which this embeds with Node's native zlib instead: without alpha the
 * compressed data goes into the PDF unchanged (PDF's Flate filter understands PNG row filters),
 * with alpha it is unfiltered here and split into colour and a soft mask. Any other PNG (palette,
 * 16-bit, interlaced, tRNS transparency, damaged) is left to embedPng.
 */

interface PngHeader {
  width: number
  height: number
  /** Samples per pixel: 1 grey, 2 grey + alpha, 3 RGB, 4 RGBA. */
  channels: number
  data: Buffer
}

const SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])
const CHANNELS: Record<number, number> = { 0: 1, 2: 3, 4: 2, 6: 4 }

/** The header and concatenated image data of a PNG this module handles, else undefined. */
function readPng(png: Uint8Array): PngHeader | undefined {
  const bytes = Buffer.from(png.buffer, png.byteOffset, png.byteLength)
  if (bytes.length < 8 || !bytes.subarray(0, 8).equals(SIGNATURE)) return undefined
  const idat: Buffer[] = []
  let header: Omit<PngHeader, 'data'> | undefined
  for (let offset = 8; offset + 8 <= bytes.length; ) {
    const length = bytes.readUInt32BE(offset)
    const type = bytes.toString('latin1', offset + 4, offset + 8)
    const data = bytes.subarray(offset + 8, offset + 8 + length)
    if (data.length !== length) return undefined
    offset += 12 + length
    if (type === 'IHDR') {
      const [bitDepth, colorType, , , interlace] = data.subarray(8, 13)
      const channels = CHANNELS[colorType ?? -1]
      if (length !== 13 || bitDepth !== 8 || interlace !== 0 || channels === undefined) return undefined
      header = { width: data.readUInt32BE(0), height: data.readUInt32BE(4), channels }
    } else if (type === 'IDAT') idat.push(data)
    else if (type === 'tRNS') return undefined
    else if (type === 'IEND') break
  }
  if (!header || header.width === 0 || header.height === 0 || idat.length === 0) return undefined
  return { ...header, data: Buffer.concat(idat) }
}

/** The raw samples of the image, undoing each row's PNG filter; undefined when the data is damaged. */
function unfilter({ width, height, channels, data }: PngHeader): Uint8Array | undefined {
  let raw: Buffer
  try {
    raw = inflateSync(data)
  } catch {
    return undefined
  }
  const stride = width * channels
  if (raw.length < (stride + 1) * height) return undefined
  const out = new Uint8Array(stride * height)
  // One loop per filter type: a switch per byte made this the slowest step of the render.
  for (let y = 0; y < height; y++) {
    const from = y * (stride + 1) + 1
    const row = y * stride
    const up = row - stride
    const filter = raw[from - 1]
    if (filter === 0 || (filter === 2 && y === 0)) {
      out.set(raw.subarray(from, from + stride), row)
    } else if (filter === 1 || (filter === 4 && y === 0)) {
      // Paeth with no row above predicts from the left, like Sub.
      for (let i = 0; i < stride; i++) out[row + i] = raw[from + i]! + (i >= channels ? out[row + i - channels]! : 0)
    } else if (filter === 2) {
      for (let i = 0; i < stride; i++) out[row + i] = raw[from + i]! + out[up + i]!
    } else if (filter === 3) {
      for (let i = 0; i < stride; i++) {
        const left = i >= channels ? out[row + i - channels]! : 0
        out[row + i] = raw[from + i]! + ((left + (y > 0 ? out[up + i]! : 0)) >> 1)
      }
    } else if (filter === 4) {
      for (let i = 0; i < stride; i++) {
        const a = i >= channels ? out[row + i - channels]! : 0
        const b = out[up + i]!
        const c = i >= channels ? out[up + i - channels]! : 0
        const pa = Math.abs(b - c)
        const pb = Math.abs(a - c)
        const pc = Math.abs(a + b - 2 * c)
        out[row + i] = raw[from + i]! + (pa <= pb && pa <= pc ? a : pb <= pc ? b : c)
      }
    } else return undefined
  }
  return out
}

function imageStream(pdf: PDF, png: PngHeader, colors: number, data: Buffer, extra: Record<string, PdfObject>) {
  return pdf.createStream(
    {
      Type: PdfName.of('XObject'),
      Subtype: PdfName.of('Image'),
      Width: PdfNumber.of(png.width),
      Height: PdfNumber.of(png.height),
      ColorSpace: PdfName.of(colors === 1 ? 'DeviceGray' : 'DeviceRGB'),
      BitsPerComponent: PdfNumber.of(8),
      Filter: PdfName.of('FlateDecode'),
      ...extra,
    },
    data,
  )
}

export function embedPng(pdf: PDF, bytes: Uint8Array): PDFImage {
  const png = readPng(bytes)
  if (!png) return pdf.embedPng(bytes)
  const colors = png.channels === 1 || png.channels === 2 ? 1 : 3
  if (colors === png.channels) {
    const parms = PdfDict.of({ Predictor: PdfNumber.of(15), Colors: PdfNumber.of(colors), BitsPerComponent: PdfNumber.of(8), Columns: PdfNumber.of(png.width) })
    return new PDFImage(imageStream(pdf, png, colors, png.data, { DecodeParms: parms }), png.width, png.height)
  }
  const samples = unfilter(png)
  if (!samples) return pdf.embedPng(bytes)
  const pixels = png.width * png.height
  const color = new Uint8Array(pixels * colors)
  const alpha = new Uint8Array(pixels)
  let opaque = true
  for (let p = 0; p < pixels; p++) {
    const s = p * png.channels
    if (colors === 3) {
      color[p * 3] = samples[s]!
      color[p * 3 + 1] = samples[s + 1]!
      color[p * 3 + 2] = samples[s + 2]!
    } else color[p] = samples[s]!
    const value = samples[s + colors]!
    alpha[p] = value
    if (value !== 255) opaque = false
  }
  const smask: Record<string, PdfObject> = opaque ? {} : { SMask: imageStream(pdf, png, 1, deflateSync(alpha), {}) }
  return new PDFImage(imageStream(pdf, png, colors, deflateSync(color), smask), png.width, png.height)
}
