import { deflateSync, inflateSync } from 'node:zlib'
import { PDFImage, PdfArray, PdfDict, PdfName, PdfNumber, PdfString, type PDF, type PdfObject } from '@libpdf/core'

/*
 * Signature images arrive as any PNG an API client sends. @libpdf/core's embedPng decodes in pure
 * JavaScript (pako; for two signers' images that was half of the whole render) and mis-draws
 * 16-bit and sub-byte PNGs. So PNGs are embedded here, with Node's native zlib:
 *  - without an alpha channel the compressed data goes into the PDF as it is: PDF's Flate filter
 *    understands PNG row filters, every bit depth, palettes (/Indexed) and tRNS colour keys (/Mask);
 *  - with an alpha channel (or a palette with tRNS alpha) rows are unfiltered here and the alpha
 *    becomes a soft mask.
 * Interlaced or damaged PNGs are left to embedPng, which reports what it cannot read.
 */

interface Png {
  width: number
  height: number
  bitDepth: number
  colorType: number
  /** Samples per pixel: 1 grey or palette index, 2 grey + alpha, 3 RGB, 4 RGBA. */
  channels: number
  palette: Buffer | undefined
  trns: Buffer | undefined
  data: Buffer
}

const SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])
const CHANNELS: Record<number, number> = { 0: 1, 2: 3, 3: 1, 4: 2, 6: 4 }
const BIT_DEPTHS: Record<number, number[]> = { 0: [1, 2, 4, 8, 16], 2: [8, 16], 3: [1, 2, 4, 8], 4: [8, 16], 6: [8, 16] }

/** The parts of a non-interlaced, well-formed PNG, else undefined. */
function readPng(bytes: Buffer): Png | undefined {
  if (bytes.length < 8 || !bytes.subarray(0, 8).equals(SIGNATURE)) return undefined
  const idat: Buffer[] = []
  let header: Pick<Png, 'width' | 'height' | 'bitDepth' | 'colorType' | 'channels'> | undefined
  let palette: Buffer | undefined
  let trns: Buffer | undefined
  for (let offset = 8; offset + 8 <= bytes.length;) {
    const length = bytes.readUInt32BE(offset)
    const type = bytes.toString('latin1', offset + 4, offset + 8)
    const data = bytes.subarray(offset + 8, offset + 8 + length)
    if (data.length !== length) return undefined
    offset += 12 + length
    if (type === 'IHDR') {
      if (length !== 13) return undefined
      const [bitDepth = 0, colorType = -1, , , interlace] = data.subarray(8, 13)
      const channels = CHANNELS[colorType]
      if (channels === undefined || !BIT_DEPTHS[colorType]?.includes(bitDepth) || interlace !== 0) return undefined
      header = { width: data.readUInt32BE(0), height: data.readUInt32BE(4), bitDepth, colorType, channels }
    } else if (type === 'PLTE') palette = data
    else if (type === 'tRNS') trns = data
    else if (type === 'IDAT') idat.push(data)
    else if (type === 'IEND') break
  }
  if (!header || header.width === 0 || header.height === 0 || idat.length === 0) return undefined
  if (header.colorType === 3 && (!palette || palette.length % 3 !== 0)) return undefined
  return { ...header, palette, trns, data: Buffer.concat(idat) }
}

/** Bytes per row, and the byte distance to "the pixel to the left" that the PNG row filters use. */
const rowLayout = (png: Png) => ({
  stride: Math.ceil((png.width * png.channels * png.bitDepth) / 8),
  step: Math.max(1, (png.channels * png.bitDepth) / 8),
})

/** The rows of the image with each row's PNG filter undone; undefined when the data is damaged. */
function unfilter(png: Png): Uint8Array | undefined {
  const { stride, step } = rowLayout(png)
  let raw: Buffer
  try {
    raw = inflateSync(png.data, { maxOutputLength: (stride + 1) * png.height + 1024 })
  } catch {
    return undefined
  }
  if (raw.length < (stride + 1) * png.height) return undefined
  const out = new Uint8Array(stride * png.height)
  // One loop per filter type: a switch per byte made this the slowest step of the render.
  for (let y = 0; y < png.height; y++) {
    const from = y * (stride + 1) + 1
    const row = y * stride
    const up = row - stride
    const filter = raw[from - 1]
    if (filter === 0 || (filter === 2 && y === 0)) {
      out.set(raw.subarray(from, from + stride), row)
    } else if (filter === 1 || (filter === 4 && y === 0)) {
      // Paeth with no row above predicts from the left, like Sub.
      for (let i = 0; i < stride; i++) out[row + i] = raw[from + i]! + (i >= step ? out[row + i - step]! : 0)
    } else if (filter === 2) {
      for (let i = 0; i < stride; i++) out[row + i] = raw[from + i]! + out[up + i]!
    } else if (filter === 3) {
      for (let i = 0; i < stride; i++) {
        const left = i >= step ? out[row + i - step]! : 0
        out[row + i] = raw[from + i]! + ((left + (y > 0 ? out[up + i]! : 0)) >> 1)
      }
    } else if (filter === 4) {
      for (let i = 0; i < stride; i++) {
        const a = i >= step ? out[row + i - step]! : 0
        const b = out[up + i]!
        const c = i >= step ? out[up + i - step]! : 0
        const pa = Math.abs(b - c)
        const pb = Math.abs(a - c)
        const pc = Math.abs(a + b - 2 * c)
        out[row + i] = raw[from + i]! + (pa <= pb && pa <= pc ? a : pb <= pc ? b : c)
      }
    } else return undefined
  }
  return out
}

/**
 * Why a submitted PNG could not be drawn — not a complete non-interlaced PNG, pixel data that is
 * damaged or shorter than its size says, or more than `maxDecodedBytes` once decoded — or null.
 * It decodes the image fully, so an image that passes here also renders in the signed PDF.
 */
export function pngProblem(bytes: Uint8Array, maxDecodedBytes: number): string | null {
  const png = readPng(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength))
  if (!png) return 'the image is not a complete PNG'
  const { stride } = rowLayout(png)
  const decodedSize = (stride + 1) * png.height
  if (decodedSize > maxDecodedBytes)
    return `the image is too large once decoded (${Math.ceil(decodedSize / 1024 / 1024)} MB; the limit is ${maxDecodedBytes / 1024 / 1024} MB)`
  let raw: Buffer
  try {
    // A little slack for encoders that write a few bytes too many; a bomb stops at the limit.
    raw = inflateSync(png.data, { maxOutputLength: decodedSize + 1024 })
  } catch {
    return 'the image data is damaged'
  }
  if (raw.length < decodedSize) return 'the image data is incomplete (shorter than its width and height say)'
  for (let y = 0; y < png.height; y++) if ((raw[y * (stride + 1)] as number) > 4) return 'the image data is damaged'
  return null
}

function colorSpace(png: Png): PdfObject {
  if (png.colorType === 3) {
    const palette = png.palette as Buffer
    return new PdfArray([PdfName.of('Indexed'), PdfName.of('DeviceRGB'), PdfNumber.of(palette.length / 3 - 1), PdfString.fromBytes(palette)])
  }
  return PdfName.of(png.channels <= 2 ? 'DeviceGray' : 'DeviceRGB')
}

function image(pdf: PDF, png: Png, data: Uint8Array, entries: Record<string, PdfObject>): PDFImage {
  const ref = pdf.createStream(
    {
      Type: PdfName.of('XObject'),
      Subtype: PdfName.of('Image'),
      Width: PdfNumber.of(png.width),
      Height: PdfNumber.of(png.height),
      Filter: PdfName.of('FlateDecode'),
      ...entries,
    },
    data,
  )
  return new PDFImage(ref, png.width, png.height)
}

function softMask(pdf: PDF, png: Png, alpha: Uint8Array): Record<string, PdfObject> {
  if (alpha.every((value) => value === 255)) return {}
  const mask = image(pdf, { ...png, channels: 1, colorType: 0 }, deflateSync(alpha), {
    ColorSpace: PdfName.of('DeviceGray'),
    BitsPerComponent: PdfNumber.of(8),
  })
  return { SMask: mask.ref }
}

export function embedPng(pdf: PDF, bytes: Uint8Array): PDFImage {
  const png = readPng(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength))
  if (!png) return pdf.embedPng(bytes)
  const hasAlpha = png.colorType === 4 || png.colorType === 6

  // Viewers compare a 16-bit colour key against samples they have already cut to 8 bits (poppler
  // does), so only shallower keys are left to /Mask.
  if (!hasAlpha && !(png.trns && (png.colorType === 3 || png.bitDepth === 16))) {
    const colors = png.channels
    const parms = PdfDict.of({
      Predictor: PdfNumber.of(15),
      Colors: PdfNumber.of(colors),
      BitsPerComponent: PdfNumber.of(png.bitDepth),
      Columns: PdfNumber.of(png.width),
    })
    const entries: Record<string, PdfObject> = { ColorSpace: colorSpace(png), BitsPerComponent: PdfNumber.of(png.bitDepth), DecodeParms: parms }
    // tRNS of a grey or RGB image: the one colour (a 16-bit value per channel) that is transparent.
    const key = png.trns
    if (key && key.length >= 2 * colors) {
      entries.Mask = new PdfArray(Array.from({ length: 2 * colors }, (_, i) => PdfNumber.of(key.readUInt16BE(2 * Math.floor(i / 2)))))
    }
    return image(pdf, png, png.data, entries)
  }

  const samples = unfilter(png)
  if (!samples) return pdf.embedPng(bytes)
  const pixels = png.width * png.height
  const alpha = new Uint8Array(pixels)

  if (png.colorType === 3) {
    // Palette indices stay packed as they are; each index's tRNS entry (255 beyond them) is its alpha.
    const { stride } = rowLayout(png)
    const trns = png.trns as Buffer
    const mask = (1 << png.bitDepth) - 1
    for (let y = 0, p = 0; y < png.height; y++) {
      for (let x = 0; x < png.width; x++, p++) {
        const bit = x * png.bitDepth
        const index = (samples[y * stride + (bit >> 3)]! >> (8 - png.bitDepth - (bit & 7))) & mask
        alpha[p] = index < trns.length ? trns[index]! : 255
      }
    }
    const entries = { ColorSpace: colorSpace(png), BitsPerComponent: PdfNumber.of(png.bitDepth), ...softMask(pdf, png, alpha) }
    return image(pdf, png, deflateSync(samples), entries)
  }

  // Grey or RGB, 8 or 16 bits a sample, with alpha or a 16-bit colour key: 8-bit colour plus a soft mask.
  const colors = hasAlpha ? png.channels - 1 : png.channels
  const bytesPerSample = png.bitDepth / 8
  const sample = bytesPerSample === 2 ? (i: number) => (samples[i]! << 8) | samples[i + 1]! : (i: number) => samples[i]!
  const key = png.trns && png.trns.length >= 2 * colors ? Array.from({ length: colors }, (_, k) => png.trns!.readUInt16BE(2 * k)) : undefined
  const color = new Uint8Array(pixels * colors)
  for (let p = 0; p < pixels; p++) {
    const at = p * png.channels * bytesPerSample
    let keyed = key !== undefined
    for (let k = 0; k < colors; k++) {
      color[p * colors + k] = samples[at + k * bytesPerSample]!
      if (keyed && sample(at + k * bytesPerSample) !== key![k]) keyed = false
    }
    alpha[p] = hasAlpha ? samples[at + colors * bytesPerSample]! : keyed ? 0 : 255
  }
  const entries = { ColorSpace: colorSpace(png), BitsPerComponent: PdfNumber.of(8), ...softMask(pdf, png, alpha) }
  return image(pdf, png, deflateSync(color), entries)
}
