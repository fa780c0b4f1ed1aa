import { createHash, webcrypto } from 'node:crypto'
import * as asn1js from 'asn1js'
import * as pkijs from 'pkijs'
import { encodeDer, parseDer, randomSerialNumber } from './der.ts'
import { authorityKeyIdentifier, subjectKeyIdentifier } from './extensions.ts'
import { OID } from './oids.ts'

/** Who signs a certificate: for a self-signed root, the subject itself. */
export interface Issuer {
  name: pkijs.RelativeDistinguishedNames
  keyIdentifier: Uint8Array
  privateKey: webcrypto.CryptoKey
}

/**
 * O=organization, CN=commonName, general to specific, one attribute per RDN. Built as
 * DER and parsed back because pkijs would put attributes it is given into a single
 * multi-valued RDN ("CN=… + O=…").
 */
export function distinguishedName(commonName: string, organization: string): pkijs.RelativeDistinguishedNames {
  const rdn = (type: string, value: string) =>
    new asn1js.Set({ value: [new pkijs.AttributeTypeAndValue({ type, value: new asn1js.Utf8String({ value }) }).toSchema()] })
  const name = new asn1js.Sequence({ value: [rdn(OID.organizationName, organization), rdn(OID.commonName, commonName)] })
  return new pkijs.RelativeDistinguishedNames({ schema: parseDer(encodeDer(name), 'distinguished name') })
}

/**
 * RFC 5280 §4.2.1.2 method (1): SHA-1 of the subjectPublicKey bits. For an EC key those
 * bits are exactly the uncompressed point that a "raw" export yields.
 */
export async function keyIdentifier(publicKey: webcrypto.CryptoKey): Promise<Uint8Array> {
  const point = new Uint8Array(await webcrypto.subtle.exportKey('raw', publicKey))
  return new Uint8Array(createHash('sha1').update(point).digest())
}

/** RFC 5280 §4.1.2.5: UTCTime through 2049, GeneralizedTime from 2050 on. */
const validityTime = (date: Date): pkijs.Time => new pkijs.Time({ type: date.getUTCFullYear() < 2050 ? 0 : 1, value: date })

/** Signs an X.509 v3 certificate (ECDSA with SHA-256) with a random serial, SKI and AKI added to the given extensions. */
export async function issueCertificate(request: {
  subject: pkijs.RelativeDistinguishedNames
  publicKey: webcrypto.CryptoKey
  issuer: Issuer
  notBefore: Date
  notAfter: Date
  extensions: pkijs.Extension[]
}): Promise<pkijs.Certificate> {
  const certificate = new pkijs.Certificate({
    version: 2,
    serialNumber: randomSerialNumber(),
    issuer: request.issuer.name,
    subject: request.subject,
    notBefore: validityTime(request.notBefore),
    notAfter: validityTime(request.notAfter),
    extensions: [...request.extensions, subjectKeyIdentifier(await keyIdentifier(request.publicKey)), authorityKeyIdentifier(request.issuer.keyIdentifier)],
  })
  await certificate.subjectPublicKeyInfo.importKey(request.publicKey)
  await certificate.sign(request.issuer.privateKey, 'SHA-256')
  return certificate
}
