import { children, content, octets, time, TAG, type Der } from '../asn1/der.ts'
import { algorithmIdentifier, hashName, OID, signatureScheme, UnsupportedAlgorithmError } from './algorithms.ts'
import { findAttribute, type SignedData, type SignerInfo } from './signed-data.ts'
import { verifySignature } from './web-crypto.ts'
import { parseCertificate, type Certificate } from '../x509/certificate.ts'
import { oid } from '../asn1/der.ts'
import { bytesEqual } from '../util/bytes.ts'
import { digest, type HashName } from '../util/digest.ts'

/**
 * Checks one SignerInfo: the messageDigest attribute against the digest we computed,
 * the signature over the signed attributes, and the ESS signing-certificate(-v2)
 * binding when present. Chain validation is separate (trust/chain.ts).
 */

export interface SignerCheck {
  signer: Certificate | null
  certificates: Certificate[]
  digestAlgorithm: HashName | null
  /** messageDigest equals the computed digest (null when not computed). */
  digestMatches: boolean | null
  signatureValid: boolean | null
  signingTime: Date | null
  problems: string[]
  /** Set when the signature uses something we cannot check; the signature is then "unsupported". */
  unsupported: string | null
  /** Whether an ESS signing-certificate(-v2) attribute was present (and checked). */
  hasSigningCertificateAttribute: boolean
}

export interface SignerInput {
  signedData: SignedData
  /** The content type the signed attributes must declare. */
  expectedContentType: string
  /** Digest of the content under the SignerInfo's digest algorithm; null when the content is unknown. */
  contentDigest: (hash: HashName) => Promise<Uint8Array | null>
  /** The content itself, needed only for signatures without signed attributes. */
  content: () => Promise<Uint8Array>
  /** Extra certificates to look for the signer in (DSS, anchors). */
  extraCertificates: readonly Certificate[]
}

export async function parseCertificates(ders: readonly Uint8Array[], problems: string[]): Promise<Certificate[]> {
  const out: Certificate[] = []
  for (const der of ders) {
    try {
      out.push(await parseCertificate(der))
    } catch (error) {
      problems.push(`an embedded certificate could not be parsed: ${error instanceof Error ? error.message : String(error)}`)
    }
  }
  return out
}

function matchesSid(certificate: Certificate, info: SignerInfo): boolean {
  if ('subjectKeyIdentifier' in info.sid)
    return certificate.subjectKeyIdentifier !== null && bytesEqual(certificate.subjectKeyIdentifier, info.sid.subjectKeyIdentifier)
  return certificate.serialNumber === info.sid.serialNumber && bytesEqual(certificate.issuerDer, info.sid.issuerDer)
}

/** ESS signing-certificate (RFC 2634, SHA-1) or -v2 (RFC 5035): the first ESSCertID must hash to the signer's certificate. */
async function essBinding(info: SignerInfo, signer: Certificate): Promise<{ present: boolean; ok: boolean; problem?: string }> {
  const v2 = findAttribute(info.signedAttributes, OID.signingCertificateV2)
  const v1 = findAttribute(info.signedAttributes, OID.signingCertificate)
  const attribute = v2 ?? v1
  if (!attribute) return { present: false, ok: true }
  const value = attribute.values[0]
  if (!value) return { present: true, ok: false, problem: 'empty signing-certificate attribute' }
  const [certs] = children(value)
  const [first] = certs ? children(certs) : []
  if (!first) return { present: true, ok: false, problem: 'signing-certificate attribute lists no certificate' }
  const fields = children(first)
  let hash: HashName = v2 ? 'SHA-256' : 'SHA-1'
  let hashElement: Der | undefined = fields[0]
  if (v2 && fields[0]?.tag === TAG.SEQUENCE) {
    hash = hashName(algorithmIdentifier(fields[0]))
    hashElement = fields[1]
  }
  if (!hashElement || hashElement.tag !== TAG.OCTET_STRING) return { present: true, ok: false, problem: 'malformed signing-certificate attribute' }
  const ok = bytesEqual(content(hashElement), await digest(hash, signer.der))
  return { present: true, ok, ...(ok ? {} : { problem: "the signing-certificate attribute names a different certificate than the signer's" }) }
}

export async function checkSigner(input: SignerInput): Promise<SignerCheck> {
  const { signedData } = input
  const problems: string[] = []
  const result: SignerCheck = {
    signer: null,
    certificates: [],
    digestAlgorithm: null,
    digestMatches: null,
    signatureValid: null,
    signingTime: null,
    problems,
    unsupported: null,
    hasSigningCertificateAttribute: false,
  }
  result.certificates = await parseCertificates(signedData.certificates, problems)
  if (signedData.signerInfos.length !== 1) {
    result.unsupported = `expected exactly one SignerInfo, found ${signedData.signerInfos.length}`
    return result
  }
  const info = signedData.signerInfos[0] as SignerInfo
  try {
    result.digestAlgorithm = hashName(info.digestAlgorithm)
    if (result.digestAlgorithm === 'SHA-1') throw new UnsupportedAlgorithmError('SHA-1 digests are not accepted')
  } catch (error) {
    result.unsupported = error instanceof Error ? error.message : String(error)
    return result
  }
  const signer = [...result.certificates, ...input.extraCertificates].find((certificate) => matchesSid(certificate, info)) ?? null
  result.signer = signer

  let signedBytes: Uint8Array
  if (info.signedAttributesDer) {
    const contentType = findAttribute(info.signedAttributes, OID.contentType)?.values[0]
    const messageDigest = findAttribute(info.signedAttributes, OID.messageDigest)?.values[0]
    if (!messageDigest || messageDigest.tag !== TAG.OCTET_STRING) {
      problems.push('the signed attributes have no messageDigest')
      result.digestMatches = false
    } else {
      const computed = await input.contentDigest(result.digestAlgorithm)
      result.digestMatches = computed === null ? null : bytesEqual(octets(messageDigest), computed)
      if (result.digestMatches === false) problems.push('the digest of the signed bytes does not match the signed messageDigest: the document was modified')
    }
    const declaredType = contentType && contentType.tag === TAG.OID ? oid(contentType) : null
    if (declaredType !== input.expectedContentType)
      problems.push(`the signed contentType attribute is ${declaredType ?? 'missing'}, expected ${input.expectedContentType}`)
    const signingTime = findAttribute(info.signedAttributes, OID.signingTime)?.values[0]
    if (signingTime) {
      try {
        result.signingTime = time(signingTime)
      } catch {
        problems.push('unreadable signingTime attribute')
      }
    }
    signedBytes = info.signedAttributesDer
    if (declaredType !== input.expectedContentType) result.signatureValid = false
  } else {
    // No signed attributes (allowed for adbe.pkcs7.detached): the signature is over the content itself.
    signedBytes = await input.content()
  }

  if (!signer) {
    problems.push("the signer's certificate is not in the signature")
    result.signatureValid = false
    return result
  }
  try {
    const scheme = signatureScheme(info.signatureAlgorithm, result.digestAlgorithm)
    const verified = await verifySignature({ spki: signer.spki, keyAlgorithm: signer.keyAlgorithm }, scheme, signedBytes, info.signature)
    if (!verified) problems.push(`the ${scheme.kind} signature does not verify with the signer's public key`)
    result.signatureValid = result.signatureValid !== false && verified
    // Without signed attributes a modified document and a wrong key look the same: only a success tells us the digest.
    if (!info.signedAttributesDer) result.digestMatches = verified ? true : null
  } catch (error) {
    if (error instanceof UnsupportedAlgorithmError) {
      result.unsupported = error.message
      result.signatureValid = null
      return result
    }
    throw error
  }
  const binding = await essBinding(info, signer)
  result.hasSigningCertificateAttribute = binding.present
  if (!binding.ok) {
    result.signatureValid = false
    problems.push(binding.problem ?? 'signing-certificate attribute mismatch')
  }
  return result
}
