import { randomBytes } from 'node:crypto'
import * as asn1js from 'asn1js'

/** Parses one DER value, refusing bytes that are not ASN.1 (asn1js reports that only through `offset`). */
export function parseDer(bytes: Uint8Array, what: string): asn1js.AsnType {
  const parsed = asn1js.fromBER(bytes)
  if (parsed.offset === -1) throw new Error(`${what} is not valid DER: ${parsed.result.error}`)
  return parsed.result
}

export const encodeDer = (value: { toBER(): ArrayBuffer }): Uint8Array => new Uint8Array(value.toBER())

/**
 * A random positive INTEGER of `length` bytes, for certificate and token serial numbers.
 * The top byte is forced into 0x40–0x7f: positive (no sign bit) and never a leading
 * zero, so the DER is always exactly `length` bytes — at the cost of 2 of the random bits.
 */
export function randomSerialNumber(length = 16): asn1js.Integer {
  const bytes = randomBytes(length)
  bytes[0] = ((bytes[0] ?? 0) & 0x3f) | 0x40
  return new asn1js.Integer({ valueHex: bytes })
}

/**
 * The dotted form of an OBJECT IDENTIFIER. asn1js prints arcs beyond 2^53 as hex in
 * braces, which would garble UUID-derived OIDs (2.25.…, like our own TSA policy), so
 * the arcs are decoded here with BigInt.
 */
export function objectIdentifierText(oid: asn1js.ObjectIdentifier): string {
  const arcs: bigint[] = []
  let arc = 0n
  for (const byte of new Uint8Array(oid.valueBlock.toBER())) {
    arc = (arc << 7n) | BigInt(byte & 0x7f)
    if ((byte & 0x80) === 0) {
      arcs.push(arc)
      arc = 0n
    }
  }
  const [first, ...rest] = arcs
  if (first === undefined) throw new Error('empty OBJECT IDENTIFIER')
  const head = first < 80n ? [first / 40n, first % 40n] : [2n, first - 80n]
  return [...head, ...rest].join('.')
}
