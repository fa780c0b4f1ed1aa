import * as pkijs from 'pkijs'
import { hashFromOid, OID } from '../cms/algorithms.ts'
import { parseSignedData } from '../cms/signed-data.ts'
import { checkSigner } from '../cms/verify-signer.ts'
import { validateChain, type ChainResult } from '../trust/chain.ts'
import type { TrustAnchors } from '../trust/anchors.ts'
import type { Certificate } from '../x509/certificate.ts'
import { describeName } from '../x509/names.ts'
import { bytesEqual, copyBytes, toHex } from '../util/bytes.ts'
import { digest, type HashName } from '../util/digest.ts'

/**
 * RFC 3161 time-stamp tokens: a CMS SignedData whose content is a TSTInfo. A token
 * proves that its messageImprint existed at genTime, so it only dates what it hashes:
 * the SignerInfo signature value for a CAdES signature-time-stamp, the ByteRange bytes
 * for a document timestamp. We check that imprint, the token's own signature and the
 * TSA's chain (validated at genTime, with the timeStamping key purpose).
 */

export interface TimestampCheck {
  time: Date | null
  tsaName: string | null
  imprintAlgorithm: HashName | null
  /** The messageImprint equals the hash of what the token is supposed to cover. */
  coversData: boolean
  /** The token's CMS signature and content digest verify. */
  signatureValid: boolean
  /** The TSTInfo digest check (messageDigest of the token's content). */
  contentDigestMatches: boolean | null
  signer: Certificate | null
  chain: ChainResult
  problems: string[]
  unsupported: string | null
  certificates: Certificate[]
}

export interface TimestampContext {
  anchors: TrustAnchors
  extraCertificates: readonly Certificate[]
}

function emptyChain(): ChainResult {
  return { certificates: [], valid: false, trusted: false, problems: [] }
}

/** `imprintOf(hash)` hashes what the token must cover with the algorithm the token used. */
export async function checkTimestampToken(
  token: Uint8Array,
  imprintOf: (hash: HashName) => Promise<Uint8Array>,
  context: TimestampContext,
): Promise<TimestampCheck> {
  const result: TimestampCheck = {
    time: null,
    tsaName: null,
    imprintAlgorithm: null,
    coversData: false,
    signatureValid: false,
    contentDigestMatches: null,
    signer: null,
    chain: emptyChain(),
    problems: [],
    unsupported: null,
    certificates: [],
  }
  let signedData
  try {
    signedData = parseSignedData(token)
  } catch (error) {
    result.unsupported = `the time-stamp token is not CMS SignedData: ${error instanceof Error ? error.message : String(error)}`
    return result
  }
  if (signedData.eContentType !== OID.tstInfo || !signedData.eContent) {
    result.unsupported = 'the time-stamp token does not hold a TSTInfo'
    return result
  }
  const eContent = signedData.eContent
  let tstInfo: pkijs.TSTInfo
  try {
    tstInfo = pkijs.TSTInfo.fromBER(copyBytes(eContent))
  } catch (error) {
    result.unsupported = `unreadable TSTInfo: ${error instanceof Error ? error.message : String(error)}`
    return result
  }
  result.time = tstInfo.genTime
  const imprintHash = hashFromOid(tstInfo.messageImprint.hashAlgorithm.algorithmId)
  if (!imprintHash || imprintHash === 'SHA-1') {
    result.unsupported = `unsupported time-stamp imprint algorithm ${tstInfo.messageImprint.hashAlgorithm.algorithmId}`
    return result
  }
  result.imprintAlgorithm = imprintHash
  const imprint = tstInfo.messageImprint.hashedMessage.valueBlock.valueHexView
  const expected = await imprintOf(imprintHash)
  result.coversData = bytesEqual(imprint, expected)
  if (!result.coversData)
    result.problems.push(
      `the time-stamp's messageImprint (${toHex(imprint).slice(0, 16)}…) is not the ${imprintHash} of the data it should time-stamp (${toHex(expected).slice(0, 16)}…)`,
    )

  const signer = await checkSigner({
    signedData,
    expectedContentType: OID.tstInfo,
    contentDigest: (hash) => digest(hash, eContent),
    content: () => Promise.resolve(eContent),
    // The TSA certificate may be left out of the token (certReq false) and given as an anchor or in the DSS.
    extraCertificates: [...context.anchors.certificates, ...context.extraCertificates],
  })
  result.certificates = signer.certificates
  result.signer = signer.signer
  result.contentDigestMatches = signer.digestMatches
  result.problems.push(...signer.problems.map((problem) => `time-stamp token: ${problem}`))
  if (signer.unsupported) {
    result.unsupported = `time-stamp token: ${signer.unsupported}`
    return result
  }
  result.signatureValid = signer.signatureValid === true && signer.digestMatches === true
  if (!signer.hasSigningCertificateAttribute) result.problems.push('time-stamp token: no ESS signing-certificate attribute (required by RFC 3161)')

  if (tstInfo.tsa && tstInfo.tsa.type === 4) result.tsaName = describeName(tstInfo.tsa.value as pkijs.RelativeDistinguishedNames).text
  else result.tsaName = signer.signer?.subject ?? null
  if (signer.signer && result.time) {
    result.chain = await validateChain(signer.signer, [...signer.certificates, ...context.extraCertificates], context.anchors, result.time, 'timestamp')
    result.problems.push(...result.chain.problems.map((problem) => `TSA chain: ${problem}`))
  }
  return result
}

export function timestampValid(check: TimestampCheck): boolean {
  return check.unsupported === null && check.coversData && check.signatureValid && check.chain.valid
}
