import { signatureScheme, UnsupportedAlgorithmError, OID } from '../cms/algorithms.ts'
import { verifySignature } from '../cms/web-crypto.ts'
import type { Certificate } from '../x509/certificate.ts'
import { bytesEqual } from '../util/bytes.ts'
import type { TrustAnchors } from './anchors.ts'

/**
 * Certification path building and validation (a practical subset of RFC 5280 6.1).
 * From the signer's certificate we look for an issuer by name among the certificates
 * at hand (the CMS set, the DSS, the anchors) and accept it only if its key verifies the
 * child's signature; we stop at the first certificate whose key is pinned as a trust
 * anchor, or at a self-signed root. Every certificate on the path must be valid at the
 * validation time; issuers must be CAs allowed to sign certificates.
 * Revocation (CRL/OCSP) is not checked.
 */

export interface ChainResult {
  certificates: Certificate[]
  /** Every link verifies, every certificate is within its validity period and allowed its role. */
  valid: boolean
  /** A certificate on the path has a pinned key. */
  trusted: boolean
  problems: string[]
}

export type ChainPurpose = 'signature' | 'timestamp'

const MAX_PATH = 10

function sameCertificate(a: Certificate, b: Certificate): boolean {
  return bytesEqual(a.der, b.der)
}

function issuedBy(child: Certificate, issuer: Certificate): boolean {
  return bytesEqual(child.issuerDer, issuer.subjectDer) || child.issuer === issuer.subject
}

async function signs(issuer: Certificate, child: Certificate): Promise<{ ok: boolean; problem?: string }> {
  try {
    const scheme = signatureScheme(child.signatureAlgorithm, null)
    return { ok: await verifySignature({ spki: issuer.spki, keyAlgorithm: issuer.keyAlgorithm }, scheme, child.tbs, child.signature) }
  } catch (error) {
    if (error instanceof UnsupportedAlgorithmError) return { ok: false, problem: error.message }
    return { ok: false, problem: `signature check failed: ${error instanceof Error ? error.message : String(error)}` }
  }
}

export async function validateChain(leaf: Certificate, pool: readonly Certificate[], anchors: TrustAnchors, at: Date, purpose: ChainPurpose): Promise<ChainResult> {
  const result: ChainResult = { certificates: [leaf], valid: true, trusted: false, problems: [] }
  const fail = (problem: string): void => {
    result.valid = false
    result.problems.push(problem)
  }
  const candidates = [...pool, ...anchors.certificates]
  let current = leaf
  for (;;) {
    if (anchors.pins.has(current.spkiPin)) {
      result.trusted = true
      break
    }
    if (result.certificates.length >= MAX_PATH) {
      fail('certificate chain is too long')
      break
    }
    if (issuedBy(current, current)) {
      const self = await signs(current, current)
      if (!self.ok) fail(`self-issued certificate "${current.subject}" does not verify with its own key${self.problem ? ` (${self.problem})` : ''}`)
      else result.problems.push(`root "${current.subject}" is not a trust anchor`)
      break
    }
    const named = candidates.filter((candidate) => issuedBy(current, candidate) && !result.certificates.some((seen) => sameCertificate(seen, candidate)))
    if (named.length === 0) {
      result.problems.push(`issuer "${current.issuer}" of "${current.subject}" was not found: chain incomplete`)
      break
    }
    let issuer: Certificate | null = null
    const failures: string[] = []
    for (const candidate of named) {
      const check = await signs(candidate, current)
      if (check.ok) {
        issuer = candidate
        break
      }
      if (check.problem) failures.push(check.problem)
    }
    if (!issuer) {
      fail(`"${current.subject}" is not signed by the key of any certificate named "${current.issuer}"${failures.length ? ` (${failures.join('; ')})` : ''}`)
      break
    }
    result.certificates.push(issuer)
    current = issuer
  }

  // Roles and validity periods.
  for (const [index, certificate] of result.certificates.entries()) {
    const name = `"${certificate.subject}"`
    if (at < certificate.notBefore || at > certificate.notAfter) {
      fail(`${name} is not valid at ${at.toISOString()} (valid ${certificate.notBefore.toISOString()} to ${certificate.notAfter.toISOString()})`)
    }
    if (certificate.unhandledCritical.length > 0) fail(`${name} has unsupported critical extensions ${certificate.unhandledCritical.join(', ')}`)
    if (index === 0) {
      if (purpose === 'signature' && certificate.keyUsage && !certificate.keyUsage.has('digitalSignature') && !certificate.keyUsage.has('nonRepudiation')) {
        fail(`${name} may not sign documents (keyUsage lacks digitalSignature and nonRepudiation)`)
      }
      if (purpose === 'timestamp' && !certificate.extendedKeyUsage?.includes(OID.timeStamping)) fail(`${name} is not a time-stamping certificate (extendedKeyUsage lacks timeStamping)`)
      continue
    }
    const isAnchor = anchors.pins.has(certificate.spkiPin)
    const constraints = certificate.basicConstraints
    // Version 1 certificates predate extensions; they may act as CAs (common for old roots).
    if (constraints ? !constraints.ca : certificate.version >= 3 && !isAnchor) fail(`${name} is not a CA certificate but issued "${result.certificates[index - 1]?.subject}"`)
    if (certificate.keyUsage && !certificate.keyUsage.has('keyCertSign')) fail(`${name} may not sign certificates (keyUsage lacks keyCertSign)`)
    // pathLenConstraint: how many non-self-issued intermediates may follow below this CA.
    const below = index - 1
    if (constraints?.pathLength !== null && constraints?.pathLength !== undefined && below > constraints.pathLength) fail(`${name} allows ${constraints.pathLength} intermediate certificates below it, found ${below}`)
  }
  return result
}
