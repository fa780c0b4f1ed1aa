import { Readable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import type pg from 'pg'
import { from as copyFrom, to as copyTo } from 'pg-copy-streams'

/*
 * Megabytes of bytea to and from PostgreSQL without holding the event loop.
 *
 * As a query parameter or result, node-postgres handles a value in one piece: a 25 MB
 * parameter is copied into one message (twice, as its buffer grows), and a result arrives as
 * hex text that is decoded as a string before it is parsed (even with `binary: true`) — over
 * a second of the event loop per read. COPY in binary format streams the raw bytes as small
 * messages instead, one chunk per event-loop turn.
 */

/** Reads one bytea value: the first column of the first row `select` returns (undefined: no row, or NULL). */
export async function copyOutBytea(client: pg.ClientBase, select: string): Promise<Buffer | undefined> {
  const reader = new OneByteaReader()
  for await (const chunk of client.query(copyTo(`COPY (${select}) TO STDOUT (FORMAT binary)`))) reader.push(chunk as Buffer)
  return reader.value()
}

const SIGNATURE = Buffer.from('PGCOPY\n\xff\r\n\0', 'latin1')
/** Signature, flags (int32), header-extension length (int32). */
const FIXED_HEADER = SIGNATURE.length + 8
/** How much of a value is handed to the socket at a time. */
const WRITE_SLICE = 256 * 1024

/** One column of a row written by `copyInRow`. */
export type CopyValue = { text: string } | { bytes: Uint8Array } | { int4: number }

function field(value: CopyValue): Buffer[] {
  const data =
    'text' in value
      ? Buffer.from(value.text, 'utf8')
      : 'bytes' in value
        ? Buffer.from(value.bytes.buffer, value.bytes.byteOffset, value.bytes.byteLength)
        : Buffer.alloc(4)
  if ('int4' in value) data.writeInt32BE(value.int4)
  const length = Buffer.alloc(4)
  length.writeInt32BE(data.length)
  return [length, data]
}

/** Writes one row into `table` (its columns in order) with `COPY … FROM STDIN (FORMAT binary)`. */
export async function copyInRow(client: pg.ClientBase, table: string, columns: string[], values: CopyValue[]): Promise<void> {
  const header = Buffer.alloc(FIXED_HEADER + 2)
  SIGNATURE.copy(header)
  header.writeInt16BE(values.length, FIXED_HEADER) // flags and header extension stay 0
  function* pieces(): Generator<Buffer> {
    yield header
    for (const value of values) {
      for (const part of field(value)) {
        for (let at = 0; at < part.length; at += WRITE_SLICE) yield part.subarray(at, at + WRITE_SLICE)
      }
    }
    yield Buffer.from([0xff, 0xff]) // the trailer: a field count of -1
  }
  const names = columns.map((name) => `"${name}"`).join(', ')
  await pipeline(Readable.from(pieces(), { objectMode: false }), client.query(copyFrom(`COPY "${table}" (${names}) FROM STDIN (FORMAT binary)`)))
}

/** The first column of the first row of a binary COPY stream (undefined: no row, or NULL). */
class OneByteaReader {
  #head = Buffer.alloc(0)
  #value: Buffer | undefined
  #filled = 0
  #done = false

  push(chunk: Buffer): void {
    if (this.#done) return
    if (this.#value) {
      this.#fill(chunk)
      return
    }
    this.#head = Buffer.concat([this.#head, chunk])
    if (this.#head.length < FIXED_HEADER) return
    if (!this.#head.subarray(0, SIGNATURE.length).equals(SIGNATURE)) throw new Error('COPY did not send its binary signature')
    const tuple = FIXED_HEADER + this.#head.readUInt32BE(SIGNATURE.length + 4)
    if (this.#head.length < tuple + 2) return
    if (this.#head.readInt16BE(tuple) === -1) {
      this.#done = true // the trailer: no row
      return
    }
    if (this.#head.length < tuple + 6) return
    const length = this.#head.readInt32BE(tuple + 2)
    if (length === -1) {
      this.#done = true
      return
    }
    this.#value = Buffer.allocUnsafe(length)
    this.#fill(this.#head.subarray(tuple + 6))
    this.#head = Buffer.alloc(0)
  }

  #fill(chunk: Buffer): void {
    const value = this.#value as Buffer
    this.#filled += chunk.copy(value, this.#filled, 0, Math.min(chunk.length, value.length - this.#filled))
    if (this.#filled === value.length) this.#done = true
  }

  value(): Buffer | undefined {
    if (this.#value && this.#filled !== this.#value.length) throw new Error('COPY ended inside a value')
    return this.#value
  }
}
