import type { DigestAlgorithm } from '@libpdf/core'
import * as asn1js from 'asn1js'
import * as pkijs from 'pkijs'
import { commonName } from './pki/certificates.ts'
import { objectIdentifierText, parseDer } from './pki/der.ts'
import { digestAlgorithmOf, OID } from './pki/oids.ts'
import { lastSignatureContents } from './pki/pdf-signature-contents.ts'
import { signedDataOf, signerCertificate } from './pki/signed-data.ts'

/** What an RFC 3161 token states. Read, not verified: the standalone verifier checks signatures and chains. */
export interface TimestampFacts {
  genTime: Date
  /** CN of the signing TSA certificate, else the name the TSTInfo gives, else null. */
  tsaName: string | null
  /** The token's serial number, lowercase hex. */
  serialNumber: string
  hashAlgorithm: DigestAlgorithm
  messageImprint: Uint8Array
  /** The TSA policy OID, dotted. */
  policy: string
}

function tstInfoOf(signedData: pkijs.SignedData): asn1js.Sequence | null {
  const { eContentType, eContent } = signedData.encapContentInfo
  if (eContentType !== OID.tstInfo || !eContent) return null
  const tstInfo = parseDer(new Uint8Array(eContent.getValue()), 'TSTInfo')
  if (!(tstInfo instanceof asn1js.Sequence)) throw new Error('TSTInfo is not a SEQUENCE')
  return tstInfo
}

/** A directoryName's CN, or the text of a name given as a string (URI, DNS name, e-mail). */
function generalNameText(name: pkijs.GeneralName | undefined): string | null {
  if (!name) return null
  if (name.type === 4) return commonName(name.value as pkijs.RelativeDistinguishedNames)
  const value: unknown = name.value
  return typeof value === 'string' ? value : null
}

export function readTimestampToken(token: Uint8Array): TimestampFacts {
  const signedData = signedDataOf(token)
  const schema = tstInfoOf(signedData)
  if (!schema) throw new Error('not an RFC 3161 time-stamp token (the content is not a TSTInfo)')
  const tstInfo = new pkijs.TSTInfo({ schema })
  // pkijs prints large OID arcs (UUID-derived policies like ours) as hex, so the policy is read from the ASN.1 directly.
  const policy = schema.valueBlock.value[1]
  if (!(policy instanceof asn1js.ObjectIdentifier)) throw new Error('TSTInfo has no policy')
  const signer = signerCertificate(signedData)
  return {
    genTime: tstInfo.genTime,
    tsaName: (signer && commonName(signer.subject)) ?? generalNameText(tstInfo.tsa),
    serialNumber: BigInt(`0x${Buffer.from(tstInfo.serialNumber.valueBlock.valueHexView).toString('hex')}`).toString(16),
    hashAlgorithm: digestAlgorithmOf(tstInfo.messageImprint.hashAlgorithm.algorithmId),
    messageImprint: new Uint8Array(tstInfo.messageImprint.hashedMessage.valueBlock.valueHexView),
    policy: objectIdentifierText(policy),
  }
}

/**
 * The signature time-stamp token (unsigned attribute id-aa-timeStampToken) of a PDF
 * signature's CMS, as its original bytes, or null if the signature is untimed.
 */
export function signatureTimestampToken(cms: Uint8Array): Uint8Array | null {
  const signerInfo = signedDataOf(cms).signerInfos[0]
  const token: unknown = signerInfo?.unsignedAttrs?.attributes.find((item) => item.type === OID.timeStampToken)?.values[0]
  if (!(token instanceof asn1js.BaseBlock)) return null
  return new Uint8Array(token.valueBeforeDecodeView)
}

/**
 * The proven time and TSA of the last signature in a signed PDF, or null if it has no
 * signature or an untimed one. A document time-stamp (/SubFilter ETSI.RFC3161) is a
 * token itself and is read as such.
 */
export function lastSignatureTimestamp(pdf: Uint8Array): TimestampFacts | null {
  const contents = lastSignatureContents(pdf)
  if (!contents) return null
  if (tstInfoOf(signedDataOf(contents))) return readTimestampToken(contents)
  const token = signatureTimestampToken(contents)
  return token ? readTimestampToken(token) : null
}
