import * as asn1js from 'asn1js'
import * as pkijs from 'pkijs'
import { OID } from './oids.ts'

/*
 * The X.509 v3 extensions our certificate profiles use (RFC 5280 §4.2), each with the
 * criticality that section recommends unless a profile says otherwise.
 */

const extension = (extnID: string, critical: boolean, value: { toBER(): ArrayBuffer }): pkijs.Extension =>
  new pkijs.Extension({ extnID, critical, extnValue: value.toBER() })

export function basicConstraints(options: { ca: true; pathLength: number } | { ca: false }): pkijs.Extension {
  const value = options.ca ? new pkijs.BasicConstraints({ cA: true, pathLenConstraint: options.pathLength }) : new pkijs.BasicConstraints({ cA: false })
  return extension(OID.basicConstraints, true, value.toSchema())
}

const KEY_USAGE_BITS = { digitalSignature: 0, nonRepudiation: 1, keyCertSign: 5, cRLSign: 6 } as const
export type KeyUsage = keyof typeof KEY_USAGE_BITS

/** A named-bit BIT STRING: DER drops trailing zero bits, so the unused-bit count follows the highest bit set. */
export function keyUsage(...usages: KeyUsage[]): pkijs.Extension {
  const bits = usages.map((usage) => KEY_USAGE_BITS[usage])
  const highest = Math.max(...bits)
  const bytes = new Uint8Array((highest >> 3) + 1)
  for (const bit of bits) bytes[bit >> 3] = (bytes[bit >> 3] ?? 0) | (0x80 >> (bit & 7))
  return extension(OID.keyUsage, true, new asn1js.BitString({ valueHex: bytes, unusedBits: 7 - (highest & 7) }))
}

export const extendedKeyUsage = (purposes: string[], options: { critical: boolean }): pkijs.Extension =>
  extension(OID.extendedKeyUsage, options.critical, new pkijs.ExtKeyUsage({ keyPurposes: purposes }).toSchema())

export const subjectKeyIdentifier = (keyIdentifier: Uint8Array): pkijs.Extension =>
  extension(OID.subjectKeyIdentifier, false, new asn1js.OctetString({ valueHex: keyIdentifier }))

export const authorityKeyIdentifier = (keyIdentifier: Uint8Array): pkijs.Extension =>
  extension(
    OID.authorityKeyIdentifier,
    false,
    new pkijs.AuthorityKeyIdentifier({ keyIdentifier: new asn1js.OctetString({ valueHex: keyIdentifier }) }).toSchema(),
  )
