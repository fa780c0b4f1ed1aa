import { Asn1Error, children, content, expect, integerHex, octets, oid, raw, readDer, smallInteger, TAG, type Der } from '../asn1/der.ts'
import { algorithmIdentifier, OID, type AlgorithmIdentifier } from './algorithms.ts'
import { copyBytes } from '../util/bytes.ts'

/**
 * CMS SignedData (RFC 5652) as found in PDF signatures and RFC 3161 tokens, parsed with
 * the raw encodings kept: the signature covers the signed attributes exactly as encoded.
 */

export interface Attribute {
  oid: string
  values: Der[]
}

export type SignerIdentifier = { issuerDer: Uint8Array; serialNumber: string } | { subjectKeyIdentifier: Uint8Array }

export interface SignerInfo {
  sid: SignerIdentifier
  digestAlgorithm: AlgorithmIdentifier
  /** The signed attributes re-tagged as a SET (what the signature covers), or null when absent. */
  signedAttributesDer: Uint8Array | null
  signedAttributes: Attribute[]
  signatureAlgorithm: AlgorithmIdentifier
  signature: Uint8Array
  unsignedAttributes: Attribute[]
}

export interface SignedData {
  /** Length of the ContentInfo encoding; PDF /Contents is zero-padded after it. */
  length: number
  eContentType: string
  /** Encapsulated content, null when detached. */
  eContent: Uint8Array | null
  /** DER of each X.509 certificate in the certificates set (other choices are skipped). */
  certificates: Uint8Array[]
  signerInfos: SignerInfo[]
}

function attributes(element: Der): Attribute[] {
  return children(element).map((attribute) => {
    const [type, values] = children(expect(attribute, TAG.SEQUENCE, 'Attribute'))
    return { oid: oid(expect(type, TAG.OID, 'attribute type')), values: children(expect(values, TAG.SET, 'attribute values')) }
  })
}

function signerInfo(element: Der): SignerInfo {
  const fields = children(expect(element, TAG.SEQUENCE, 'SignerInfo'))
  let index = 0
  const next = (): Der | undefined => fields[index++]
  smallInteger(expect(next(), TAG.INTEGER, 'SignerInfo version'))
  const sidElement = next()
  let sid: SignerIdentifier
  if (sidElement?.tag === TAG.SEQUENCE) {
    const [issuer, serial] = children(sidElement)
    sid = { issuerDer: raw(expect(issuer, TAG.SEQUENCE, 'issuer')), serialNumber: integerHex(expect(serial, TAG.INTEGER, 'serialNumber')) }
  } else if (sidElement?.tag === 0x80) {
    sid = { subjectKeyIdentifier: content(sidElement) }
  } else {
    throw new Asn1Error('bad SignerIdentifier')
  }
  const digestAlgorithm = algorithmIdentifier(expect(next(), TAG.SEQUENCE, 'digestAlgorithm'))
  let signedAttributesDer: Uint8Array | null = null
  let signedAttributes: Attribute[] = []
  let current = next()
  if (current?.tag === 0xa0) {
    // [0] IMPLICIT SET OF Attribute: the signature is over the same bytes with the SET tag.
    signedAttributesDer = copyBytes(raw(current))
    signedAttributesDer[0] = TAG.SET
    signedAttributes = attributes(current)
    current = next()
  }
  const signatureAlgorithm = algorithmIdentifier(expect(current, TAG.SEQUENCE, 'signatureAlgorithm'))
  const signature = octets(expect(next(), TAG.OCTET_STRING, 'signature'))
  const unsigned = next()
  const unsignedAttributes = unsigned?.tag === 0xa1 ? attributes(unsigned) : []
  return { sid, digestAlgorithm, signedAttributesDer, signedAttributes, signatureAlgorithm, signature, unsignedAttributes }
}

/** Parses a ContentInfo holding SignedData. Throws Asn1Error when it is not one. */
export function parseSignedData(bytes: Uint8Array): SignedData {
  const top = readDer(bytes)
  const [contentType, wrapped] = children(expect(top, TAG.SEQUENCE, 'ContentInfo'))
  if (oid(expect(contentType, TAG.OID, 'contentType')) !== OID.signedData) throw new Asn1Error('not a CMS SignedData')
  const [signedData] = children(expect(wrapped, 0xa0, 'content'))
  const fields = children(expect(signedData, TAG.SEQUENCE, 'SignedData'))
  let index = 0
  smallInteger(expect(fields[index++], TAG.INTEGER, 'version'))
  expect(fields[index++], TAG.SET, 'digestAlgorithms')
  const [eType, eWrapped] = children(expect(fields[index++], TAG.SEQUENCE, 'encapContentInfo'))
  const eContentType = oid(expect(eType, TAG.OID, 'eContentType'))
  let eContent: Uint8Array | null = null
  if (eWrapped) {
    const [octetString] = children(expect(eWrapped, 0xa0, 'eContent'))
    if (!octetString) throw new Asn1Error('empty eContent')
    eContent = octets(octetString)
  }
  const certificates: Uint8Array[] = []
  let field = fields[index++]
  if (field?.tag === 0xa0) {
    for (const choice of children(field)) if (choice.tag === TAG.SEQUENCE) certificates.push(raw(choice))
    field = fields[index++]
  }
  if (field?.tag === 0xa1) field = fields[index++] // CRLs: revocation is not checked
  const signerInfos = children(expect(field, TAG.SET, 'signerInfos')).map(signerInfo)
  return { length: top.end, eContentType, eContent, certificates, signerInfos }
}

export function findAttribute(list: Attribute[], id: string): Attribute | undefined {
  return list.find((attribute) => attribute.oid === id)
}
