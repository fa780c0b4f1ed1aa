import { randomBytes } from 'node:crypto'
import { deflateSync } from 'node:zlib'

/*
 * PDFs that ask too much of a server: a big image page, too many pages or objects, an image
 * too large to draw, streams that decompress to gigabytes, files that take long or need a lot
 * of memory to open. Written object by object (streams as raw bytes), so each is exactly what
 * its name says, and generated in the test (never downloaded).
 */

type Body = string | Buffer

/** A classic-xref PDF of `objects` (object n = objects[n - 1]); object 1 must be the catalog. */
export function rawPdf(objects: Body[]): Buffer {
  const parts: Buffer[] = [Buffer.from('%PDF-1.7\n%\xe2\xe3\xcf\xd3\n', 'latin1')]
  let length = parts[0]?.length ?? 0
  const offsets: number[] = []
  const push = (part: Body) => {
    const bytes = typeof part === 'string' ? Buffer.from(part, 'latin1') : part
    parts.push(bytes)
    length += bytes.length
  }
  objects.forEach((body, index) => {
    offsets.push(length)
    push(`${index + 1} 0 obj\n`)
    push(body)
    push('\nendobj\n')
  })
  const xref = length
  push(`xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`)
  push(offsets.map((offset) => `${String(offset).padStart(10, '0')} 00000 n \n`).join(''))
  push(`trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`)
  return Buffer.concat(parts)
}

/** A stream object body: `dict` entries plus /Length, then the raw data. */
export function stream(data: Buffer, dict = ''): Buffer {
  return Buffer.concat([Buffer.from(`<< ${dict} /Length ${data.length} >>\nstream\n`, 'latin1'), data, Buffer.from('\nendstream', 'latin1')])
}

const CATALOG = '<< /Type /Catalog /Pages 2 0 R >>'

/** One US-letter page drawing `content`, with `resources`; objects from 5 on are `extra`. */
function onePage(content: string, resources = '<< >>', extra: Body[] = []): Buffer {
  return rawPdf([
    CATALOG,
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources ${resources} /Contents 4 0 R >>`,
    stream(Buffer.from(content, 'latin1')),
    ...extra,
  ])
}

/** About `megabytes` MB: one page showing one large image of random pixels (Flate, incompressible). */
export function imageHeavyPdf(megabytes: number): Buffer {
  const side = Math.round(Math.sqrt((megabytes * 1024 * 1024) / 3))
  const pixels = deflateSync(randomBytes(side * side * 3), { level: 1 })
  return onePage('q 540 0 0 540 36 126 cm /Im0 Do Q', '<< /XObject << /Im0 5 0 R >> >>', [
    stream(pixels, `/Type /XObject /Subtype /Image /Width ${side} /Height ${side} /ColorSpace /DeviceRGB /BitsPerComponent 8 /Filter /FlateDecode`),
  ])
}

/** `pages` blank pages; the page tree says `declaredCount` (default: the truth). */
export function manyPagesPdf(pages: number, declaredCount = pages): Buffer {
  const kids = Array.from({ length: pages }, (_, i) => `${i + 3} 0 R`).join(' ')
  const pageObjects = Array.from({ length: pages }, () => '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] >>')
  return rawPdf([CATALOG, `<< /Type /Pages /Kids [${kids}] /Count ${declaredCount} >>`, ...pageObjects])
}

/** One page, plus `count` small unused objects. */
export function manyObjectsPdf(count: number): Buffer {
  return onePage(
    '',
    '<< >>',
    Array.from({ length: count }, (_, i) => `<< /N ${i} >>`),
  )
}

/** One page with an image that says it is `width` × `height` (its data is a few bytes of zlib). */
export function hugeImagePdf(width: number, height: number): Buffer {
  return onePage('q 100 0 0 100 0 0 cm /Im0 Do Q', '<< /XObject << /Im0 5 0 R >> >>', [
    stream(
      deflateSync(Buffer.alloc(1024)),
      `/Type /XObject /Subtype /Image /Width ${width} /Height ${height} /ColorSpace /DeviceGray /BitsPerComponent 8 /Filter /FlateDecode`,
    ),
  ])
}

/** Zeros, Flate-compressed: a megabyte of output per kilobyte of file. */
function zeros(megabytes: number): Buffer {
  return deflateSync(Buffer.alloc(megabytes * 1024 * 1024), { level: 9 })
}

/** A page whose `streams` extra (unused) streams each inflate to `megabytes` MB of zeros. */
export function flateBombPdf(megabytes: number, streams = 1): Buffer {
  const bomb = zeros(megabytes)
  return onePage(
    '',
    '<< >>',
    Array.from({ length: streams }, () => stream(bomb, '/Filter /FlateDecode')),
  )
}

/**
 * Objects 3 (the page) lives in an object stream whose data inflates to `megabytes` MB (the
 * page dictionary, then zeros): a reader must inflate it to find the page, so the bomb goes off
 * while the file is being opened. Cross-reference stream, uncompressed.
 */
export function objectStreamBombPdf(megabytes: number): Buffer {
  const page = '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] >>'
  const header = '3 0 '
  const data = Buffer.concat([Buffer.from(header + page + '\n', 'latin1'), Buffer.alloc(megabytes * 1024 * 1024, 0x20)])
  const objectStream = stream(deflateSync(data, { level: 9 }), `/Type /ObjStm /N 1 /First ${header.length} /Filter /FlateDecode`)
  const parts: Buffer[] = [Buffer.from('%PDF-1.7\n', 'latin1')]
  const offsets: Record<number, number> = {}
  const add = (num: number, body: Body) => {
    offsets[num] = parts.reduce((sum, part) => sum + part.length, 0)
    parts.push(Buffer.from(`${num} 0 obj\n`, 'latin1'), typeof body === 'string' ? Buffer.from(body, 'latin1') : body, Buffer.from('\nendobj\n', 'latin1'))
  }
  add(1, CATALOG)
  add(2, '<< /Type /Pages /Kids [3 0 R] /Count 1 >>')
  add(4, objectStream)
  const xrefAt = parts.reduce((sum, part) => sum + part.length, 0)
  const row = (type: number, field2: number, field3: number) =>
    Buffer.from([type, (field2 >>> 24) & 255, (field2 >>> 16) & 255, (field2 >>> 8) & 255, field2 & 255, field3])
  const rows = Buffer.concat([
    row(0, 0, 255),
    row(1, offsets[1] ?? 0, 0),
    row(1, offsets[2] ?? 0, 0),
    row(2, 4, 0),
    row(1, offsets[4] ?? 0, 0),
    row(1, xrefAt, 0),
  ])
  add(5, stream(rows, '/Type /XRef /Size 6 /W [1 4 1] /Root 1 0 R'))
  parts.push(Buffer.from(`startxref\n${xrefAt}\n%%EOF\n`, 'latin1'))
  return Buffer.concat(parts)
}

/** One page and one array of `numbers` numbers: a few megabytes of file, hundreds of megabytes once parsed. */
export function heapHungryPdf(numbers: number): Buffer {
  return onePage('', '<< >>', [`[${'1 '.repeat(numbers)}]`])
}

/** Writes LZW codes MSB-first at the current code length, as PDF's LZWDecode reads them. */
class LzwCodeWriter {
  codeLength = 9
  private readonly out: number[] = []
  private bits = 0
  private bitCount = 0

  write(code: number): void {
    this.bits = (this.bits << this.codeLength) | code
    this.bitCount += this.codeLength
    while (this.bitCount >= 8) {
      this.out.push((this.bits >>> (this.bitCount - 8)) & 255)
      this.bitCount -= 8
      this.bits &= (1 << this.bitCount) - 1
    }
  }

  /** The bytes written, the last one padded with zero bits. */
  finish(): Buffer {
    if (this.bitCount > 0) this.out.push((this.bits << (8 - this.bitCount)) & 255)
    return Buffer.from(this.out)
  }
}

/**
 * PDF LZWDecode (EarlyChange 1) of `data`, as @libpdf/core's decoder reads it: the decoder
 * adds each dictionary entry one code after the encoder, so it widens its codes when its
 * next entry reaches 512, 1024, 2048 — one entry after the encoder does.
 */
export function lzwEncode(data: Uint8Array): Buffer {
  const codes = new LzwCodeWriter()
  const emit = (code: number) => codes.write(code)
  let dictionary = new Map<string, number>()
  let next = 258
  const reset = () => {
    dictionary = new Map(Array.from({ length: 256 }, (_, byte) => [String.fromCharCode(byte), byte]))
    next = 258
    codes.codeLength = 9
  }
  reset()
  emit(256)
  let word = ''
  for (const byte of data) {
    const extended = word + String.fromCharCode(byte)
    if (dictionary.has(extended)) {
      word = extended
      continue
    }
    emit(dictionary.get(word) ?? 0)
    if (next < 4096) {
      dictionary.set(extended, next++)
      if (next - 1 === 1 << codes.codeLength && codes.codeLength < 12) codes.codeLength++
    } else {
      emit(256)
      reset()
    }
    word = String.fromCharCode(byte)
  }
  if (word) emit(dictionary.get(word) ?? 0)
  emit(257)
  return codes.finish()
}

/**
 * `megabytes` MB of zeros as LZW codes written directly: after a literal 0, each next code
 * stands for one zero more than the last (the decoder's KwKwK case), until the dictionary is
 * full and cleared. About 1,300 bytes out per byte in.
 */
export function lzwZeros(megabytes: number): Buffer {
  const codes = new LzwCodeWriter()
  let nextCode = 258
  let started = false
  const emit = (code: number) => {
    codes.write(code)
    // The decoder's state after reading `code` (see lzwDecodedSize).
    if (code === 256) {
      codes.codeLength = 9
      nextCode = 258
      started = false
      return
    }
    if (started && nextCode < 4096) {
      nextCode++
      if (nextCode === 512 || nextCode === 1024 || nextCode === 2048) codes.codeLength++
    }
    started = true
  }
  let remaining = megabytes * 1024 * 1024
  while (remaining > 0) {
    emit(256)
    emit(0)
    remaining -= 1
    while (remaining > 0 && nextCode < 4096) {
      remaining -= nextCode - 256
      emit(nextCode)
    }
  }
  emit(257)
  return codes.finish()
}

/** A page with one extra stream: at least `megabytes` MB of zeros, LZW-encoded (tens of kilobytes). */
export function lzwBombPdf(megabytes: number): Buffer {
  return onePage('', '<< >>', [stream(lzwZeros(megabytes), '/Filter /LZWDecode')])
}
