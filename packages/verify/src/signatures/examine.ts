import { OID } from '../cms/algorithms.ts'
import { findAttribute, parseSignedData, type SignedData } from '../cms/signed-data.ts'
import { checkSigner } from '../cms/verify-signer.ts'
import type { PdfDocument } from '../pdf/document.ts'
import { PdfString, textOf } from '../pdf/objects.ts'
import { parsePdfDate } from '../pdf/dates.ts'
import { raw } from '../asn1/der.ts'
import { checkTimestampToken, type TimestampCheck } from '../timestamps/timestamp-token.ts'
import type { TrustAnchors } from '../trust/anchors.ts'
import type { Certificate } from '../x509/certificate.ts'
import { concatBytes } from '../util/bytes.ts'
import { digest, type FileHasher, type HashName } from '../util/digest.ts'
import { checkByteRange, type ByteRangeCheck } from './byte-range.ts'
import type { SignatureField } from './fields.ts'

/**
 * First pass over one signature: everything that does not depend on the other
 * signatures (structure, digest, CMS signature, the signature's own timestamp).
 * The signer's chain is validated afterwards, at the time proven for it.
 */

export const SUPPORTED_SUBFILTERS = ['adbe.pkcs7.detached', 'ETSI.CAdES.detached', 'ETSI.RFC3161'] as const

export interface SignatureContext {
  doc: PdfDocument
  anchors: TrustAnchors
  /** Certificates from the DSS, offered to chain building. */
  extraCertificates: readonly Certificate[]
  hasher: FileHasher
  /** Shared digest cache: the same ranges are never hashed twice. */
  digests: Map<string, Promise<Uint8Array>>
}

export interface ExaminedSignature {
  field: SignatureField
  kind: 'signature' | 'document-timestamp'
  subFilter: string
  byteRange: ByteRangeCheck
  unsupported: string | null
  problems: string[]
  notes: string[]
  digestAlgorithm: HashName | null
  digestMatches: boolean | null
  signatureValid: boolean | null
  signer: Certificate | null
  /** Certificates available for the signer's chain. */
  certificates: Certificate[]
  claimedSigningTime: Date | null
  /** The signature-time-stamp of a signature, or the token of a document timestamp. */
  timestamp: TimestampCheck | null
}

function rangesDigest(context: SignatureContext, hash: HashName, ranges: [number, number][]): Promise<Uint8Array> {
  const key = `${hash}:${ranges.flat().join(',')}`
  let pending = context.digests.get(key)
  if (!pending) {
    pending = context.hasher.digestRanges(hash, ranges)
    context.digests.set(key, pending)
  }
  return pending
}

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}

export async function examineSignature(field: SignatureField, context: SignatureContext): Promise<ExaminedSignature> {
  const { doc } = context
  const subFilter = field.dict.name('SubFilter') ?? ''
  const contentsValue = field.dict.get('Contents')
  const contents = contentsValue instanceof PdfString ? contentsValue : null
  const result: ExaminedSignature = {
    field,
    kind: subFilter === 'ETSI.RFC3161' || field.dict.name('Type') === 'DocTimeStamp' ? 'document-timestamp' : 'signature',
    subFilter,
    byteRange: checkByteRange(doc, field, contents),
    unsupported: null,
    problems: [],
    notes: [],
    digestAlgorithm: null,
    digestMatches: null,
    signatureValid: null,
    signer: null,
    certificates: [],
    claimedSigningTime: parsePdfDate(textOf(field.dict.get('M'))),
    timestamp: null,
  }
  if (!(SUPPORTED_SUBFILTERS as readonly string[]).includes(subFilter)) {
    result.unsupported = subFilter ? `unsupported signature format /SubFilter /${subFilter}` : 'the signature dictionary has no /SubFilter'
    return result
  }
  if (result.kind === 'document-timestamp' && subFilter !== 'ETSI.RFC3161') {
    result.unsupported = `a /DocTimeStamp must use /SubFilter /ETSI.RFC3161, not /${subFilter}`
    return result
  }
  if (!contents || contents.bytes.length === 0) {
    result.unsupported = 'the signature has no /Contents'
    return result
  }
  const ranges = result.byteRange.ranges
  const digestOf = (hash: HashName): Promise<Uint8Array | null> => (ranges ? rangesDigest(context, hash, ranges) : Promise.resolve(null))
  const signedContent = async (): Promise<Uint8Array> =>
    ranges ? concatBytes(ranges.map(([start, length]) => doc.bytes.subarray(start, start + length))) : new Uint8Array(0)

  let signedData: SignedData
  try {
    signedData = parseSignedData(contents.bytes)
  } catch (error) {
    result.unsupported = `/Contents is not a CMS SignedData structure (${message(error)})`
    return result
  }
  if (contents.bytes.subarray(signedData.length).some((byte) => byte !== 0))
    result.notes.push('/Contents has non-zero bytes after the CMS structure (not signed, ignored)')

  if (result.kind === 'document-timestamp') {
    const token = contents.bytes.subarray(0, signedData.length)
    const check = await checkTimestampToken(token, async (hash) => (await digestOf(hash)) ?? new Uint8Array(0), context)
    result.timestamp = check
    result.unsupported = check.unsupported
    result.digestAlgorithm = check.imprintAlgorithm
    result.digestMatches = ranges && check.imprintAlgorithm ? check.coversData : null
    result.signatureValid = check.unsupported ? null : check.signatureValid
    result.signer = check.signer
    result.certificates = check.certificates
    result.problems.push(...check.problems.filter((problem) => !problem.startsWith('TSA chain: ')))
    if (result.digestMatches === false) result.problems.unshift('the document timestamp does not match the signed bytes: the document was modified')
    return result
  }

  if (signedData.eContent !== null) {
    result.unsupported = 'the CMS signature encapsulates its content; PDF signatures must be detached'
    return result
  }
  if (signedData.eContentType !== OID.data) result.problems.push(`unexpected encapsulated content type ${signedData.eContentType}`)
  const signer = await checkSigner({
    signedData,
    expectedContentType: signedData.eContentType,
    contentDigest: digestOf,
    content: signedContent,
    extraCertificates: [...context.anchors.certificates, ...context.extraCertificates],
  })
  result.certificates = signer.certificates
  result.signer = signer.signer
  result.digestAlgorithm = signer.digestAlgorithm
  result.digestMatches = signer.digestMatches
  result.signatureValid = signer.signatureValid
  result.problems.push(...signer.problems)
  if (signer.unsupported) {
    result.unsupported = signer.unsupported
    return result
  }
  if (signer.signingTime) result.claimedSigningTime = signer.signingTime
  if (subFilter === 'ETSI.CAdES.detached' && !signer.hasSigningCertificateAttribute)
    result.notes.push('the CAdES signature has no ESS signing-certificate-v2 attribute (required by PAdES)')

  const info = signedData.signerInfos[0]
  const timestampAttribute = info ? findAttribute(info.unsignedAttributes, OID.signatureTimeStamp) : undefined
  const tokenElement = timestampAttribute?.values[0]
  if (info && tokenElement) {
    if ((timestampAttribute?.values.length ?? 0) > 1) result.notes.push('more than one signature-time-stamp; only the first was checked')
    result.timestamp = await checkTimestampToken(raw(tokenElement), (hash) => digest(hash, info.signature), context)
    if (result.timestamp.unsupported) result.problems.push(`signature-time-stamp not checked: ${result.timestamp.unsupported}`)
    else result.problems.push(...result.timestamp.problems.filter((problem) => !problem.startsWith('TSA chain: ') || !result.timestamp?.chain.valid))
  }
  return result
}
