import { signatureScheme, UnsupportedAlgorithmError, OID } from '../cms/algorithms.ts'
import { verifySignature } from '../cms/web-crypto.ts'
import type { Certificate } from '../x509/certificate.ts'
import { bytesEqual } from '../util/bytes.ts'
import type { TrustAnchors } from './anchors.ts'

/**
 * Certification path building and validation (a practical subset of RFC 5280 6.1).
 * From the signer's certificate we look for an issuer by name among the certificates
 * at hand (the CMS set, the DSS, the anchors) and accept it only if its key verifies the
 * child's signature, trying each such issuer until a path reaches a trust anchor; we stop
 * at the first certificate whose key is pinned as a trust anchor, or at a self-signed root.
 * Every certificate on the path must be valid at the validation time; issuers must be CAs
 * allowed to sign certificates.
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

/** Signature checks one chain search may make: a CMS stuffed with look-alike certificates must not make path building explode. */
const MAX_SIGNATURE_CHECKS = 64

interface PathSearch {
  certificates: Certificate[]
  trusted: boolean
  /** A link that should verify does not (look-alike, forged or corrupt certificate). */
  broken: boolean
  problems: string[]
}

function searchRank(search: PathSearch): number {
  if (search.broken) return 0
  return search.trusted ? 3 : search.problems.some((problem) => problem.startsWith('root ')) ? 2 : 1
}

/**
 * Extends `path` towards a trust anchor, trying every certificate named as the issuer whose
 * key verifies the last link (depth first, best ending kept). A self-issued certificate
 * (subject = issuer) that does not verify with its own key is not a root: RFC 5280 allows
 * it in a chain, e.g. the link certificate of a CA key rollover (same name, new key,
 * signed by the old key), so its issuer is searched for like any other's.
 */
async function searchPath(path: Certificate[], candidates: readonly Certificate[], anchors: TrustAnchors, budget: { checks: number }): Promise<PathSearch> {
  const current = path[path.length - 1] as Certificate
  if (anchors.pins.has(current.spkiPin)) return { certificates: path, trusted: true, broken: false, problems: [] }
  if (path.length >= MAX_PATH) return { certificates: path, trusted: false, broken: true, problems: ['certificate chain is too long'] }
  const selfIssued = issuedBy(current, current)
  if (selfIssued) {
    budget.checks--
    if ((await signs(current, current)).ok)
      return { certificates: path, trusted: false, broken: false, problems: [`root "${current.subject}" is not a trust anchor`] }
  }
  const named = candidates.filter((candidate) => issuedBy(current, candidate) && !path.some((seen) => sameCertificate(seen, candidate)))
  if (named.length === 0) {
    if (selfIssued)
      return {
        certificates: path,
        trusted: false,
        broken: true,
        problems: [`self-issued certificate "${current.subject}" does not verify with its own key, and no other certificate of that name signed it`],
      }
    return {
      certificates: path,
      trusted: false,
      broken: false,
      problems: [`issuer "${current.issuer}" of "${current.subject}" was not found: chain incomplete`],
    }
  }
  let best: PathSearch | null = null
  const failures: string[] = []
  for (const candidate of named) {
    if (budget.checks-- <= 0) break
    const check = await signs(candidate, current)
    if (!check.ok) {
      if (check.problem) failures.push(check.problem)
      continue
    }
    const found = await searchPath([...path, candidate], candidates, anchors, budget)
    if (found.trusted && !found.broken) return found
    if (!best || searchRank(found) > searchRank(best)) best = found
  }
  if (best) return best
  const what = selfIssued ? `self-issued certificate "${current.subject}" does not verify with its own key, nor` : `"${current.subject}" is not signed`
  return {
    certificates: path,
    trusted: false,
    broken: true,
    problems: [`${what} by the key of any certificate named "${current.issuer}"${failures.length ? ` (${failures.join('; ')})` : ''}`],
  }
}

export async function validateChain(
  leaf: Certificate,
  pool: readonly Certificate[],
  anchors: TrustAnchors,
  at: Date,
  purpose: ChainPurpose,
): Promise<ChainResult> {
  const search = await searchPath([leaf], [...pool, ...anchors.certificates], anchors, { checks: MAX_SIGNATURE_CHECKS })
  const result: ChainResult = {
    certificates: search.certificates,
    valid: !search.broken,
    trusted: search.trusted && !search.broken,
    problems: [...search.problems],
  }
  const fail = (problem: string): void => {
    result.valid = false
    result.problems.push(problem)
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
      if (purpose === 'timestamp' && !certificate.extendedKeyUsage?.includes(OID.timeStamping))
        fail(`${name} is not a time-stamping certificate (extendedKeyUsage lacks timeStamping)`)
      continue
    }
    const isAnchor = anchors.pins.has(certificate.spkiPin)
    const constraints = certificate.basicConstraints
    // Version 1 certificates predate extensions; they may act as CAs (common for old roots).
    if (constraints ? !constraints.ca : certificate.version >= 3 && !isAnchor)
      fail(`${name} is not a CA certificate but issued "${result.certificates[index - 1]?.subject}"`)
    if (certificate.keyUsage && !certificate.keyUsage.has('keyCertSign')) fail(`${name} may not sign certificates (keyUsage lacks keyCertSign)`)
    // pathLenConstraint: how many non-self-issued intermediates may follow below this CA (RFC 5280 4.2.1.9).
    const below = result.certificates.slice(1, index).filter((intermediate) => !issuedBy(intermediate, intermediate)).length
    if (constraints?.pathLength !== null && constraints?.pathLength !== undefined && below > constraints.pathLength)
      fail(`${name} allows ${constraints.pathLength} intermediate certificates below it, found ${below}`)
  }
  return result
}
