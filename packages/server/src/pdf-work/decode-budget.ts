import { PdfArray, PdfDict, PdfName, PdfNumber, PdfStream, type PdfObject } from '@libpdf/core'
import pako from 'pako'
import { formatMegabytes, limitMessage, PdfLimitExceeded, rejection } from './limits.ts'

/*
 * A ceiling on what a worker task may decompress, in this worker thread only.
 *
 * @libpdf/core decodes streams with pako (FlateDecode) and its own LZW and RunLength
 * decoders, all of which allocate their whole output: a few kilobytes of zip bomb become
 * gigabytes of ArrayBuffers, which a worker's heap limit does not cover (they live outside
 * the V8 heap). So decoding is bounded where it happens:
 *  - pako's Inflate, which every FlateDecode goes through, counts each output chunk and
 *    stops the stream once the task's budget is spent;
 *  - LZWDecode and RunLengthDecode (which can expand thousands of times) have their output
 *    size counted without building it, before @libpdf/core decodes them.
 * @libpdf/core swallows decoder errors (it returns empty data instead), so an exceeded
 * budget is also remembered, and the task is rejected when its work returns.
 */

interface Budget {
  limit: number
  remaining: number
  exceeded: boolean
}

const UNLIMITED: Budget = { limit: Number.POSITIVE_INFINITY, remaining: Number.POSITIVE_INFINITY, exceeded: false }
let budget: Budget = UNLIMITED

class DecodeBudgetSpent extends Error {}

function charge(bytes: number): void {
  budget.remaining -= bytes
  if (budget.remaining < 0) {
    budget.exceeded = true
    throw new DecodeBudgetSpent('decompression budget spent')
  }
}

/** Runs `work` with at most `limitBytes` decompressed; answers a 413 rejection when it asks for more. */
export async function withDecodeBudget<T>(limitBytes: number, work: () => Promise<T>): Promise<T> {
  const task: Budget = { limit: limitBytes, remaining: limitBytes, exceeded: false }
  budget = task
  const spent = () =>
    new PdfLimitExceeded(rejection(413, limitMessage('maxDecompressedBytes', `over ${formatMegabytes(task.limit)}`, formatMegabytes(task.limit))))
  try {
    const result = await work()
    if (task.exceeded) throw spent()
    return result
  } catch (error) {
    if (task.exceeded) throw spent()
    throw error
  } finally {
    budget = UNLIMITED
  }
}

/** Bytes decompressed so far by the current task. */
export const decodedSoFar = (): number => budget.limit - budget.remaining

// -- FlateDecode: every pako inflation counts its output chunk by chunk -------------------

const PakoInflate = pako.Inflate

class CountedInflate extends PakoInflate {
  override onData(chunk: Uint8Array): void {
    charge(chunk.length)
    super.onData(chunk)
  }
}

/** pako's own inflate(), over the counted class. */
function countedInflate(input: Uint8Array, options?: pako.InflateFunctionOptions): Uint8Array {
  const inflator = new CountedInflate(options)
  inflator.push(input)
  if (inflator.err) throw new Error(inflator.msg || `inflate error ${inflator.err}`)
  return inflator.result as Uint8Array
}

// -- LZWDecode and RunLengthDecode: output size counted before decoding -------------------

const LZW_CLEAR = 256
const LZW_END = 257

/**
 * How many bytes an LZW stream decodes to, stopping once it passes `ceiling`. It reads the
 * codes exactly as @libpdf/core's LZWDecode does (MSB first, widening when its next entry
 * reaches 512, 1024, 2048), so the count is what that decoder would produce, not a guess.
 */
export function lzwDecodedSize(data: Uint8Array, earlyChange: number, ceiling: number): number {
  const lengths = new Uint32Array(4096)
  lengths.fill(1, 0, 256)
  let codeLength = 9
  let nextCode = 258
  let previous = 0
  let total = 0
  let bitPosition = 0
  for (;;) {
    if (bitPosition + codeLength > data.length * 8) return total
    let code = 0
    for (let bit = 0; bit < codeLength; bit++, bitPosition++) code = (code << 1) | (((data[bitPosition >> 3] as number) >> (7 - (bitPosition & 7))) & 1)
    if (code === LZW_END) return total
    if (code === LZW_CLEAR) {
      codeLength = 9
      nextCode = 258
      previous = 0
      continue
    }
    let length: number
    if (code < 256 || (code > LZW_END && code < nextCode)) length = lengths[code] as number
    else if (code === nextCode && previous > 0) length = previous + 1
    else return total // the decoder throws here: it produces nothing
    total += length
    if (total > ceiling) return total
    if (previous > 0 && nextCode < 4096) {
      lengths[nextCode++] = previous + 1
      const threshold = earlyChange === 1 ? nextCode : nextCode - 1
      if (threshold === 512 && codeLength < 10) codeLength = 10
      else if (threshold === 1024 && codeLength < 11) codeLength = 11
      else if (threshold === 2048 && codeLength < 12) codeLength = 12
    }
    previous = length
  }
}

/** How many bytes a RunLengthDecode stream decodes to. */
export function runLengthDecodedSize(data: Uint8Array): number {
  let total = 0
  let position = 0
  while (position < data.length) {
    const length = data[position++] as number
    if (length === 128) break
    if (length < 128) {
      total += length + 1
      position += length + 1
    } else {
      total += 257 - length
      position += 1
    }
  }
  return total
}

function filterChain(stream: PdfStream): { name: string; params: PdfDict | undefined }[] {
  const filter = stream.get('Filter')
  const parms = stream.get('DecodeParms')
  const names = filter instanceof PdfName ? [filter] : filter instanceof PdfArray ? [...filter] : []
  const params = parms instanceof PdfArray ? [...parms] : [parms]
  return names.map((name, index) => {
    const stageParams = params[index]
    return { name: name instanceof PdfName ? name.value : '', params: stageParams instanceof PdfDict ? stageParams : undefined }
  })
}

// eslint-disable-next-line @typescript-eslint/unbound-method -- kept to be called with each stream as `this`
const originalGetDecodedData = PdfStream.prototype.getDecodedData

/** Decodes stage by stage when a stage is LZW or RunLength, counting each of those before it runs. */
function countedGetDecodedData(this: PdfStream): Uint8Array {
  const chain = filterChain(this)
  if (!chain.some((stage) => stage.name === 'LZWDecode' || stage.name === 'RunLengthDecode')) return originalGetDecodedData.call(this)
  let data = this.data
  for (const stage of chain) {
    if (stage.name === 'LZWDecode') {
      const earlyChange = stage.params?.get('EarlyChange')
      charge(lzwDecodedSize(data, earlyChange instanceof PdfNumber ? earlyChange.value : 1, Math.max(0, budget.remaining) + 1))
    }
    if (stage.name === 'RunLengthDecode') charge(runLengthDecodedSize(data))
    const entries: Record<string, PdfObject> = { Filter: PdfName.of(stage.name) }
    if (stage.params) entries.DecodeParms = stage.params
    data = originalGetDecodedData.call(PdfStream.fromDict(entries, data))
  }
  return data
}

/** Installs the counting decoders in this worker thread (once, at start-up). */
export function installDecodeBudget(): void {
  pako.Inflate = CountedInflate
  pako.inflate = countedInflate as typeof pako.inflate
  PdfStream.prototype.getDecodedData = countedGetDecodedData
}
